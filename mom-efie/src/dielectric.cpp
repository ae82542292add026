#include "dielectric.hpp"

#include <algorithm>
#include <cmath>

#include "dielectric_pair.hpp"
#include "far_field.hpp"
#include "reference.hpp"

namespace efie {

void dielectric_rows(const Problem& p, const Dielectric& d, bool muller, long t, const bool rows[3], complex* a) {
  const long n = p.unknowns(), n2 = 2 * n, nt = p.triangle_count();
  const auto& tris = p.triangles;
  const DielectricMedia md = dielectric_media(p.k, d.eps_r, d.mu_r, muller);
  std::vector<char> near(nt, 0);  // the near-list row of t
  for (int e = p.near_offsets[t]; e < p.near_offsets[t + 1]; ++e) near[p.near_pairs[e][1]] = 1;
  for (long s = 0; s < nt; ++s) {
    DielectricBlocks b;
    if (near[s])
      dielectric_pair<true>(tris[t], tris[s], s == t, md, b);
    else
      dielectric_pair<false>(tris[t], tris[s], false, md, b);
    for (int i = 0; i < 3; ++i) {
      const long r = tris[t].basis[i];
      if (r < 0 || !rows[i]) continue;
      for (int j = 0; j < 3; ++j) {
        const long c = tris[s].basis[j];
        if (c < 0) continue;
        a[r + c * n2] += complex(b.jj[i][j].re, b.jj[i][j].im);
        a[r + (c + n) * n2] += complex(b.jm[i][j].re, b.jm[i][j].im);
        a[(r + n) + c * n2] += complex(b.mj[i][j].re, b.mj[i][j].im);
        a[(r + n) + (c + n) * n2] += complex(b.mm[i][j].re, b.mm[i][j].im);
      }
    }
  }
}

void dielectric_fill(const Problem& p, const Dielectric& d, bool muller, complex* a) {
  const long n2 = 2 * p.unknowns();
  std::fill(a, a + std::size_t(n2) * n2, complex(0));
  const bool all[3] = {true, true, true};
  for (long t = 0; t < p.triangle_count(); ++t) dielectric_rows(p, d, muller, t, all, a);
}

std::vector<complex> dielectric_rhs(const Problem& p) {
  const long n = p.unknowns();
  std::vector<complex> v(2 * n, 0.0);
  const Vec3 e = p.wave.polarisation, h = cross(p.wave.direction, e);
  tested_plane_wave(p, [&](const Triangle& t, int i, double s, const Vec3& d, complex phase) {
    v[t.basis[i]] += s * dot(d, e) * phase;
    v[t.basis[i] + n] += s * dot(d, h) * phase;
  });
  return v;
}

RcsCuts bistatic_rcs_jm(const Problem& p, const std::vector<complex>& x, int samples) {
  return far_field_cuts(p, source_moments(p, x, true), p.k * p.k / (4 * M_PI), samples);
}

double rms_db_error_dielectric(const RcsCuts& cuts, double ka, const Dielectric& d) {
  double sum = 0;
  for (std::size_t i = 0; i < cuts.theta_deg.size(); ++i) {
    double e, h;
    mie_bistatic_dielectric(ka, d.eps_r, d.mu_r, cuts.theta_deg[i] * M_PI / 180.0, e, h);
    const double de = 10.0 * std::log10(cuts.e_plane[i] / e), dh = 10.0 * std::log10(cuts.h_plane[i] / h);
    sum += de * de + dh * dh;
  }
  return std::sqrt(sum / double(2 * cuts.theta_deg.size()));
}

}  // namespace efie
