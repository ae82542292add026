#include "far_field.hpp"

#include <cmath>

namespace efie {

using complex = std::complex<double>;

SourceMoments source_moments(const Problem& p, const std::vector<complex>& x, bool with_magnetic) {
  const long n = p.unknowns();
  const std::size_t nq = p.triangles.size() * source_points;
  SourceMoments s;
  s.position.resize(nq);
  s.electric.resize(nq);
  if (with_magnetic) s.magnetic.resize(nq);
  for (std::size_t t = 0; t < p.triangles.size(); ++t) {
    const Triangle& tr = p.triangles[t];
    for (int q = 0; q < source_points; ++q) {
      Vec3 r;
      double w;
      source_rule(q, tr.v[0], tr.v[1], tr.v[2], r, w);
      for (int c = 0; c < (with_magnetic ? 2 : 1); ++c) {
        std::array<complex, 3> m{0.0, 0.0, 0.0};
        for (int i = 0; i < 3; ++i)
          if (tr.basis[i] >= 0) {
            const complex f = x[tr.basis[i] + c * n] * (0.5 * tr.coef[i] * w);
            const Vec3 a = r - tr.v[i];
            m[0] += f * a.x;
            m[1] += f * a.y;
            m[2] += f * a.z;
          }
        (c == 0 ? s.electric : s.magnetic)[t * source_points + q] = m;
      }
      s.position[t * source_points + q] = r;
    }
  }
  return s;
}

RcsCuts far_field_cuts(const Problem& p, const SourceMoments& s, double scale, int samples) {
  const Vec3 kh = p.wave.direction, e = p.wave.polarisation, h = cross(kh, e);
  const bool magnetic = !s.magnetic.empty();
  RcsCuts cuts;
  cuts.theta_deg.resize(samples);
  cuts.e_plane.resize(samples);
  cuts.h_plane.resize(samples);
  const double norm_area = M_PI * p.radius * p.radius;
  // Each angle is written by one thread: the result does not depend on the thread count.
#pragma omp parallel for schedule(dynamic)
  for (int a = 0; a < 2 * samples; ++a) {
    const int it = a % samples;
    const double th = M_PI * it / (samples - 1);
    const Vec3 rh = std::cos(th) * kh + std::sin(th) * (a < samples ? e : h);
    complex j[3] = {0.0, 0.0, 0.0}, m[3] = {0.0, 0.0, 0.0};
    for (std::size_t q = 0; q < s.position.size(); ++q) {
      const double ph = p.k * dot(rh, s.position[q]);
      const complex f(std::cos(ph), std::sin(ph));
      for (int c = 0; c < 3; ++c) j[c] += s.electric[q][c] * f;
      if (magnetic)
        for (int c = 0; c < 3; ++c) m[c] += s.magnetic[q][c] * f;
    }
    // J~_perp = J~ - (r_hat.J~) r_hat, plus M~ x r_hat
    const complex rj = rh.x * j[0] + rh.y * j[1] + rh.z * j[2];
    complex v[3] = {j[0] - rj * rh.x, j[1] - rj * rh.y, j[2] - rj * rh.z};
    if (magnetic) {
      v[0] += m[1] * rh.z - m[2] * rh.y;
      v[1] += m[2] * rh.x - m[0] * rh.z;
      v[2] += m[0] * rh.y - m[1] * rh.x;
    }
    const double sigma = scale * (std::norm(v[0]) + std::norm(v[1]) + std::norm(v[2])) / norm_area;
    cuts.theta_deg[it] = 180.0 * it / (samples - 1);
    (a < samples ? cuts.e_plane : cuts.h_plane)[it] = sigma;
  }
  return cuts;
}

}  // namespace efie
