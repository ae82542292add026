#include "dielectric.hpp"

#include <algorithm>
#include <cmath>

#include "mfie_pair.hpp"
#include "reference.hpp"

namespace efie {
namespace {

// <f_i, n x f_j> over one triangle: c_i c_j / (4 A) sum_p w_p (r_p - v_i).(n x (r_p - v_j)), exact
// with the 3-point rule (a quadratic): the identity terms the Mueller weights leave.
void rotated_gram_block(const Triangle& t, double out[3][3]) {
  const Vec3 n = unit_normal(t);
  const double area = 0.5 * norm(cross(t.v[1] - t.v[0], t.v[2] - t.v[0]));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[i][j] = 0;
  for (int p = 0; p < test_points; ++p) {
    Vec3 rp;
    double wp;
    test_rule(p, t.v[0], t.v[1], t.v[2], rp, wp);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) out[i][j] += wp * dot(rp - t.v[i], cross(n, rp - t.v[j]));
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[i][j] *= t.coef[i] * t.coef[j] / (4 * area);
}

}  // namespace

void dielectric_fill(const Problem& p, const Dielectric& d, bool muller, complex* a) {
  const long n = p.unknowns(), n2 = 2 * n, nt = p.triangle_count();
  const auto& tris = p.triangles;
  const double k[2] = {p.k, p.k * std::sqrt(d.eps_r * d.mu_r)}, eta_r[2] = {1.0, std::sqrt(d.mu_r / d.eps_r)};
  // Weights of the interior equations: PMCHWT 1, 1; Mueller -eps_r, -mu_r (dielectric.hpp).
  const double we = muller ? -d.eps_r : 1.0, wh = muller ? -d.mu_r : 1.0;
  std::fill(a, a + std::size_t(n2) * n2, complex(0));
  std::vector<char> near(nt, 0);
  for (long t = 0; t < nt; ++t) {
    for (int e = p.near_offsets[t]; e < p.near_offsets[t + 1]; ++e) near[p.near_pairs[e][1]] = 1;
    for (long s = 0; s < nt; ++s) {
      complex zj[3][3] = {}, zm[3][3] = {}, ke[3][3] = {}, kh[3][3] = {};
      double nx[3][3] = {};
      if (s == t && muller) rotated_gram_block(tris[t], nx);
      for (int m = 0; m < 2; ++m) {
        Cplx pa[3][3], pk[3][3];
        if (near[s]) {
          pair_block<true>(tris[t], tris[s], k[m], pa);
          k_pair_block<true>(tris[t], tris[s], s == t, k[m], pk);
        } else {
          pair_block<false>(tris[t], tris[s], k[m], pa);
          k_pair_block<false>(tris[t], tris[s], false, k[m], pk);
        }
        const double ve = m == 0 ? 1.0 : we, vh = m == 0 ? 1.0 : wh;
        const complex wj(0, ve * eta_r[m] / k[m]), wm(0, vh / (k[m] * eta_r[m]));
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) {
            const complex av(pa[i][j].re, pa[i][j].im), kv(pk[i][j].re, pk[i][j].im);
            zj[i][j] += wj * av;
            zm[i][j] += wm * av;
            ke[i][j] += ve * kv;
            kh[i][j] += vh * kv;
          }
      }
      for (int i = 0; i < 3; ++i) {
        const long r = tris[t].basis[i];
        if (r < 0) continue;
        for (int j = 0; j < 3; ++j) {
          const long c = tris[s].basis[j];
          if (c < 0) continue;
          a[r + c * n2] += zj[i][j];
          a[r + (c + n) * n2] += ke[i][j] + 0.5 * (1 - we) * nx[i][j];
          a[(r + n) + c * n2] -= kh[i][j] + 0.5 * (1 - wh) * nx[i][j];
          a[(r + n) + (c + n) * n2] += zm[i][j];
        }
      }
    }
    for (int e = p.near_offsets[t]; e < p.near_offsets[t + 1]; ++e) near[p.near_pairs[e][1]] = 0;
  }
}

std::vector<complex> dielectric_rhs(const Problem& p) {
  const long n = p.unknowns();
  std::vector<complex> v(2 * n, 0.0);
  const Vec3 kh = p.wave.direction, e = p.wave.polarisation, h = cross(kh, e);
  for (const auto& t : p.triangles)
    for (int q = 0; q < test_points; ++q) {
      Vec3 r;
      double w;
      test_rule(q, t.v[0], t.v[1], t.v[2], r, w);
      const complex phase = std::exp(complex(0, -p.k * dot(kh, r)));
      for (int i = 0; i < 3; ++i)
        if (t.basis[i] >= 0) {
          v[t.basis[i]] += 0.5 * t.coef[i] * w * dot(r - t.v[i], e) * phase;
          v[t.basis[i] + n] += 0.5 * t.coef[i] * w * dot(r - t.v[i], h) * phase;
        }
    }
  return v;
}

RcsCuts bistatic_rcs_jm(const Problem& p, const std::vector<complex>& x, int samples) {
  const long n = p.unknowns();
  const std::size_t nq = p.triangles.size() * source_points;
  std::vector<Vec3> pos(nq);
  std::vector<std::array<complex, 6>> moment(nq);  // (eta0 J)_xyz, M_xyz at the source points
  for (std::size_t t = 0; t < p.triangles.size(); ++t) {
    const Triangle& tr = p.triangles[t];
    for (int q = 0; q < source_points; ++q) {
      Vec3 r;
      double w;
      source_rule(q, tr.v[0], tr.v[1], tr.v[2], r, w);
      std::array<complex, 6> m{};
      for (int i = 0; i < 3; ++i)
        if (tr.basis[i] >= 0)
          for (int c = 0; c < 2; ++c) {
            const complex f = x[tr.basis[i] + c * n] * (0.5 * tr.coef[i] * w);
            const Vec3 a = r - tr.v[i];
            m[3 * c] += f * a.x;
            m[3 * c + 1] += f * a.y;
            m[3 * c + 2] += f * a.z;
          }
      pos[t * source_points + q] = r;
      moment[t * source_points + q] = m;
    }
  }
  const Vec3 kh = p.wave.direction, e = p.wave.polarisation, h = cross(kh, e);
  RcsCuts cuts;
  cuts.theta_deg.resize(samples);
  cuts.e_plane.resize(samples);
  cuts.h_plane.resize(samples);
  const double norm_area = M_PI * p.radius * p.radius;
  for (int s = 0; s < 2 * samples; ++s) {
    const int it = s % samples;
    const double th = M_PI * it / (samples - 1);
    const Vec3 rh = std::cos(th) * kh + std::sin(th) * (s < samples ? e : h);
    complex f[6] = {};
    for (std::size_t q = 0; q < nq; ++q) {
      const double ph = p.k * dot(rh, pos[q]);
      const complex w(std::cos(ph), std::sin(ph));
      for (int c = 0; c < 6; ++c) f[c] += moment[q][c] * w;
    }
    // (eta0 J~)_perp + M~ x r_hat
    const complex rj = rh.x * f[0] + rh.y * f[1] + rh.z * f[2];
    const complex v[3] = {f[0] - rj * rh.x + (f[4] * rh.z - f[5] * rh.y), f[1] - rj * rh.y + (f[5] * rh.x - f[3] * rh.z),
                          f[2] - rj * rh.z + (f[3] * rh.y - f[4] * rh.x)};
    const double sigma = p.k * p.k / (4 * M_PI) * (std::norm(v[0]) + std::norm(v[1]) + std::norm(v[2])) / norm_area;
    cuts.theta_deg[it] = 180.0 * it / (samples - 1);
    (s < samples ? cuts.e_plane : cuts.h_plane)[it] = sigma;
  }
  return cuts;
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
