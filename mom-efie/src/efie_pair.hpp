// The EFIE interaction of one (test triangle T, source triangle S) pair: the 3x3 block of
// contributions to the entries (RWG on the edge opposite vertex i of T, RWG on the edge opposite
// vertex j of S). Shared by every backend (host and device).
//
// RWG on T: f_i(r) = c_i (r - v_i) / (2 A_T), div f_i = c_i / A_T, c_i = +-l_i (+ on T+, - on T-).
// Matrix (Galerkin, constants moved to the right-hand side: Z = (j eta / k) A):
//   A_mn = int int G(r, r') [k^2 f_m(r).f_n(r') - div f_m div' f_n],  G = exp(-jkR) / (4 pi R)
// so the pair block is, with the areas cancelled by the quadrature weights (sum w = 1),
//   B_ij = c_i c_j sum_p w_p { k^2/4 [(r_p - v_i).g1_p - ((r_p - v_i).v_j) g0_p] - g0_p }
//   g0_p = (1/A_S) int_S G(r_p, r') dS',   g1_p = (1/A_S) int_S G(r_p, r') r' dS'
// (the reuse of the study: the 21 kernel values are summed into g0, g1 once per test point and then
// serve all 9 entries). Far pairs: g0, g1 by the 7-point source rule. Near pairs: singularity
// extraction G = 1/(4 pi R) - k^2 R/(8 pi) + G_s, the first two terms integrated analytically
// (singular.hpp), the smooth G_s = (exp(-jkR) - 1 + k^2 R^2/2)/(4 pi R) by the 7-point rule.
#pragma once
#include "math.hpp"
#include "quadrature.hpp"
#include "singular.hpp"

namespace efie {

struct Triangle {
  Vec3 v[3];
  Vec3 centroid;
  double diameter;  // longest edge
  double coef[3];   // c_i of the RWG on the edge opposite vertex i (0 when the edge carries none)
  int basis[3];     // its unknown, -1 when none (boundary edge)
};

// Pairs closer than this multiple of the larger triangle diameter (centroid to centroid) are near;
// every pair sharing a vertex is closer than 2 diameters, so it is near.
constexpr double near_factor = 2.0;

inline bool is_near(const Triangle& t, const Triangle& s) {
  const Vec3 d = t.centroid - s.centroid;
  const double lim = near_factor * (t.diameter > s.diameter ? t.diameter : s.diameter);
  return dot(d, d) < lim * lim;
}

constexpr double inv_four_pi = 0.079577471545947668;

EFIE_HD void sin_cos(double x, double& s, double& c) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  sincos(x, &s, &c);
#else
  s = std::sin(x);
  c = std::cos(x);
#endif
}

EFIE_HD Cplx green(double R, double k) {
  double s, c;
  sin_cos(k * R, s, c);
  const double f = inv_four_pi / R;
  return {c * f, -s * f};
}

// (exp(-jkR) - 1 + k^2 R^2 / 2) / (4 pi R), with cos x - 1 = -2 sin^2(x/2) to avoid cancellation.
EFIE_HD Cplx green_smooth(double R, double k) {
  if (R == 0) return {0, -k * inv_four_pi};
  const double x = k * R;
  double s, c, sh, ch;
  sin_cos(x, s, c);
  sin_cos(0.5 * x, sh, ch);
  const double f = inv_four_pi / R;
  return {(-2.0 * sh * sh + 0.5 * x * x) * f, -s * f};
}

// Potential sums of one test point r over the source triangle s.
template <bool Singular>
EFIE_HD void source_sums(Vec3 r, const Triangle& s, double k, Cplx& g0, CVec3& g1) {
  g0 = {0, 0};
  g1 = {{0, 0}, {0, 0}, {0, 0}};
  for (int q = 0; q < source_points; ++q) {
    Vec3 rq;
    double wq;
    source_rule(q, s.v[0], s.v[1], s.v[2], rq, wq);
    const double R = norm(r - rq);
    const Cplx g = wq * (Singular ? green_smooth(R, k) : green(R, k));
    g0 = g0 + g;
    g1.x = g1.x + rq.x * g;
    g1.y = g1.y + rq.y * g;
    g1.z = g1.z + rq.z * g;
  }
  if (Singular) {
    const PotentialIntegrals pi = potential_integrals(r, s.v[0], s.v[1], s.v[2]);
    const double inv_area = 2.0 / norm(cross(s.v[1] - s.v[0], s.v[2] - s.v[0]));
    const double a = inv_area * inv_four_pi, b = -0.5 * k * k * inv_area * inv_four_pi;
    g0.re += a * pi.inv_r + b * pi.r;
    g1.x.re += a * pi.inv_r_vec.x + b * pi.r_vec.x;
    g1.y.re += a * pi.inv_r_vec.y + b * pi.r_vec.y;
    g1.z.re += a * pi.inv_r_vec.z + b * pi.r_vec.z;
  }
}

// The 3x3 block B_ij (far pairs with Singular = false, near pairs with Singular = true).
template <bool Singular>
EFIE_HD void pair_block(const Triangle& t, const Triangle& s, double k, Cplx out[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[i][j] = {0, 0};
  const double k2q = 0.25 * k * k;
  for (int p = 0; p < test_points; ++p) {
    Vec3 rp;
    double wp;
    test_rule(p, t.v[0], t.v[1], t.v[2], rp, wp);
    Cplx g0;
    CVec3 g1;
    source_sums<Singular>(rp, s, k, g0, g1);
    for (int i = 0; i < 3; ++i) {
      const Vec3 a = rp - t.v[i];
      const Cplx ag1 = dot(a, g1);
      for (int j = 0; j < 3; ++j) {
        const double av = dot(a, s.v[j]);
        const Cplx term = k2q * (ag1 - av * g0) - g0;
        out[i][j] = out[i][j] + wp * term;
      }
    }
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[i][j] = (t.coef[i] * s.coef[j]) * out[i][j];
}

// One entry (i, j) of the block: what a basis-pair thread needs from each of its 4 triangle pairs.
template <bool Singular>
EFIE_HD Cplx pair_entry(const Triangle& t, int i, const Triangle& s, int j, double k) {
  const double k2q = 0.25 * k * k;
  Cplx sum{0, 0};
  for (int p = 0; p < test_points; ++p) {
    Vec3 rp;
    double wp;
    test_rule(p, t.v[0], t.v[1], t.v[2], rp, wp);
    Cplx g0;
    CVec3 g1;
    source_sums<Singular>(rp, s, k, g0, g1);
    const Vec3 a = rp - t.v[i];
    const Cplx term = k2q * (dot(a, g1) - dot(a, s.v[j]) * g0) - g0;
    sum = sum + wp * term;
  }
  return (t.coef[i] * s.coef[j]) * sum;
}

// Near-pair correction B_near - B_far: the fill kernels treat every pair as far (no branch), then
// the near-pair list adds this.
EFIE_HD void near_correction(const Triangle& t, const Triangle& s, double k, Cplx out[3][3]) {
  Cplx far[3][3];
  pair_block<false>(t, s, k, far);
  pair_block<true>(t, s, k, out);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[i][j] = out[i][j] - far[i][j];
}

}  // namespace efie
