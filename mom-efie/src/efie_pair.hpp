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

EFIE_HD bool is_near(const Triangle& t, const Triangle& s) {
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

// Complex wavenumber (lossy medium, k = k' - j k''): the same kernels.
EFIE_HD Cplx green(double R, Cplx k) { return (inv_four_pi / R) * exp_minus_j(R * k); }

// (exp(-jkR) - 1 + k^2 R^2/2)/(4 pi R) = -j k/(4 pi) [1 + sum_(n>=3) (-jkR)^(n-1) / n!], by the
// series below |kR| = 0.5 (no cancellation), directly above.
EFIE_HD Cplx green_smooth(double R, Cplx k) {
  const Cplx x = R * k;
  if (x.re * x.re + x.im * x.im < 0.25) {
    const Cplx mjx{x.im, -x.re};  // -j x
    Cplx sum{1, 0}, power = mjx * mjx;  // (-jx)^(n-1) from n = 3
    double fact = 6;
    for (int n = 3; n < 20; ++n) {
      sum = sum + (1.0 / fact) * power;
      power = power * mjx;
      fact *= n + 1;
    }
    return inv_four_pi * Cplx{k.im, -k.re} * sum;
  }
  const Cplx num = exp_minus_j(x) + Cplx{-1.0 + 0.5 * (x.re * x.re - x.im * x.im), x.re * x.im};
  return (inv_four_pi / R) * num;
}

// The weights of the two terms a near pair's extraction integrates analytically over the source
// triangle s (area A): a = 1 / (4 pi A) for int 1/R and b = -k^2 / (8 pi A) for int R, the
// 1 / (4 pi R) and -k^2 R / (8 pi) terms of G's expansion averaged over s.
template <class K>
struct ExtractionWeights {
  double a;
  K b;
};
template <class K>
EFIE_HD ExtractionWeights<K> extraction_weights(const Triangle& s, K k) {
  const double inv_area = 2.0 / norm(cross(s.v[1] - s.v[0], s.v[2] - s.v[0]));
  return {inv_area * inv_four_pi, -0.5 * k * k * inv_area * inv_four_pi};
}

// Potential sums of one test point r over the source triangle s.
template <bool Singular, class K>
EFIE_HD void source_sums(Vec3 r, const Triangle& s, K k, Cplx& g0, CVec3& g1) {
  g0 = {0, 0};
  g1 = {{0, 0}, {0, 0}, {0, 0}};
  for (int q = 0; q < source_points; ++q) {
    Vec3 rq;
    double wq;
    source_rule(q, s.v[0], s.v[1], s.v[2], rq, wq);
    const double R = norm(r - rq);
    const Cplx g = wq * (Singular ? green_smooth(R, k) : green(R, k));
    g0 = g0 + g;
    add_scaled(g1, rq, g);
  }
  if (Singular) {
    const PotentialIntegrals pi = potential_integrals(r, s.v[0], s.v[1], s.v[2]);
    const ExtractionWeights<K> w = extraction_weights(s, k);
    accumulate(g0, w.a * pi.inv_r + w.b * pi.r);
    accumulate(g1.x, w.a * pi.inv_r_vec.x + w.b * pi.r_vec.x);
    accumulate(g1.y, w.a * pi.inv_r_vec.y + w.b * pi.r_vec.y);
    accumulate(g1.z, w.a * pi.inv_r_vec.z + w.b * pi.r_vec.z);
  }
}

// The rule on the test triangle: the 3-point rule of the fill; the 7-point source rule as a test
// rule makes the Galerkin rule symmetric in (test, source), which the reciprocity test uses.
struct TestRule3 {
  static constexpr int points = test_points;
  EFIE_HD static void at(int q, Vec3 a, Vec3 b, Vec3 c, Vec3& p, double& w) { test_rule(q, a, b, c, p, w); }
};
struct TestRule7 {
  static constexpr int points = source_points;
  EFIE_HD static void at(int q, Vec3 a, Vec3 b, Vec3 c, Vec3& p, double& w) { source_rule(q, a, b, c, p, w); }
};

// The 3x3 block B_ij (far pairs with Singular = false, near pairs with Singular = true).
// k: real, or complex (a lossy medium: the dielectric formulations).
template <bool Singular, class TestRule = TestRule3, class K = double>
EFIE_HD void pair_block(const Triangle& t, const Triangle& s, K k, Cplx out[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[i][j] = {0, 0};
  const K k2q = 0.25 * k * k;
  for (int p = 0; p < TestRule::points; ++p) {
    Vec3 rp;
    double wp;
    TestRule::at(p, t.v[0], t.v[1], t.v[2], rp, wp);
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

// One entry (i, j) of the block from the plain formula (the sampled-entry oracle, verify.cpp).
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

// ---- The far block in centroid-local coordinates (the optimised fill: GPU and OpenMP) ----------
// Same integral as pair_block<false>, rearranged for speed and accuracy:
// - every point is stored relative to its triangle's centroid c (precomputed once per triangle), so
//   R_pq = |(c_T - c_S) + r'_p - r'_q| and the moments below carry no |r| ~ radius cancellation;
// - 1/R from one reciprocal square root (no division, no separate sqrt), one sincos per (p, q);
// - the 1/(4 pi) and the test weight 1/3 are applied once per pair;
// - the 9 entries from four pair moments (w_p = 1/3, g0_p = sum_q w_q G_pq, g1'_p = sum_q w_q G_pq r'_q):
//     S0 = sum_p g0_p, S1 = sum_p g1'_p, T0 = sum_p r'_p g0_p, U = sum_p r'_p . g1'_p
//   since sum_p (r'_p - v'_i).(g1'_p - v'_j g0_p) = U - v'_j.T0 - v'_i.S1 + (v'_i.v'_j) S0, so
//     B_ij = c_i c_j / (12 pi) [k^2/4 (U - v'_j.T0 - v'_i.S1 + (v'_i.v'_j) S0) - S0].
// FLOPs per pair: 21 x (3 + 5 + rsqrt + 2 + sincos + 9) + 3 x 23 + about 250 for the 9 entries.
struct QuadTriangle {
  double c[3];             // centroid
  double test[test_points][3];      // test points minus the centroid
  double vert[3][3];       // vertices minus the centroid
  double src[source_points][3];     // source points minus the centroid
  double coef[3];          // RWG factors c_i (0 for none)
  int basis[3];            // unknowns (-1 for none)
  int pad;
};

// The points of Rule on t minus c, one row of out each.
template <class Rule>
inline void centred_points(const Triangle& t, Vec3 c, double (&out)[Rule::points][3]) {
  for (int p = 0; p < Rule::points; ++p) {
    Vec3 r;
    double w;
    Rule::at(p, t.v[0], t.v[1], t.v[2], r, w);
    r = r - c;
    out[p][0] = r.x, out[p][1] = r.y, out[p][2] = r.z;
  }
}

inline QuadTriangle make_quad_triangle(const Triangle& t) {
  QuadTriangle q{};
  const Vec3 c = t.centroid;
  q.c[0] = c.x, q.c[1] = c.y, q.c[2] = c.z;
  for (int i = 0; i < 3; ++i) {
    const Vec3 v = t.v[i] - c;
    q.vert[i][0] = v.x, q.vert[i][1] = v.y, q.vert[i][2] = v.z;
    q.coef[i] = t.coef[i];
    q.basis[i] = t.basis[i];
  }
  centred_points<TestRule3>(t, c, q.test);
  centred_points<TestRule7>(t, c, q.src);
  return q;
}

EFIE_HD double inv_sqrt(double x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return rsqrt(x);
#else
  return 1.0 / std::sqrt(x);
#endif
}

// Weight of source point q of the 7-point rule (quadrature.hpp), as a constant after unrolling.
EFIE_HD double source_weight(int q) { return q == 0 ? 0.225 : (q <= 3 ? 0.13239415278850618 : 0.12593918054482715); }

// The four pair moments (without the factor 1/(12 pi), applied with the entries).
struct PairMoments {
  Cplx s0, u;
  CVec3 s1, t0;
};

// g0 = sum_q w_q G(R_q) and g1' = sum_q w_q G(R_q) r'_q of one test point over the 7 source
// points of s, e = the test point relative to s's centroid (without the 1/(4 pi)).
EFIE_HD void far_point_sums(double e0, double e1, double e2, const QuadTriangle& s, double k, Cplx& g0, CVec3& g1) {
  g0 = {0, 0};
  g1 = {{0, 0}, {0, 0}, {0, 0}};
#pragma unroll
  for (int q = 0; q < source_points; ++q) {
    const double x0 = e0 - s.src[q][0], x1 = e1 - s.src[q][1], x2 = e2 - s.src[q][2];
    const double r2 = x0 * x0 + x1 * x1 + x2 * x2;
    const double inv_r = inv_sqrt(r2);
    double sn, cs;
    sin_cos(k * (r2 * inv_r), sn, cs);
    const double f = source_weight(q) * inv_r;
    const Cplx g{cs * f, -sn * f};
    g0 = g0 + g;
    g1.x = g1.x + s.src[q][0] * g;
    g1.y = g1.y + s.src[q][1] * g;
    g1.z = g1.z + s.src[q][2] * g;
  }
}

EFIE_HD PairMoments far_moments(const QuadTriangle& t, const QuadTriangle& s, double k) {
  const double d0 = t.c[0] - s.c[0], d1 = t.c[1] - s.c[1], d2 = t.c[2] - s.c[2];
  PairMoments m{{0, 0}, {0, 0}, {{0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}}};
#pragma unroll
  for (int p = 0; p < test_points; ++p) {
    Cplx g0;
    CVec3 g1;
    far_point_sums(d0 + t.test[p][0], d1 + t.test[p][1], d2 + t.test[p][2], s, k, g0, g1);
    m.s0 = m.s0 + g0;
    m.s1.x = m.s1.x + g1.x;
    m.s1.y = m.s1.y + g1.y;
    m.s1.z = m.s1.z + g1.z;
    m.t0.x = m.t0.x + t.test[p][0] * g0;
    m.t0.y = m.t0.y + t.test[p][1] * g0;
    m.t0.z = m.t0.z + t.test[p][2] * g0;
    m.u = m.u + t.test[p][0] * g1.x + t.test[p][1] * g1.y + t.test[p][2] * g1.z;
  }
  return m;
}

// Entry (i, j) from the moments; vt = v'_j . T0, vs = v'_i . S1.
EFIE_HD Cplx moment_entry(const PairMoments& m, const QuadTriangle& t, int i, const QuadTriangle& s, int j, Cplx vt, Cplx vs,
                          double k) {
  const double vv = t.vert[i][0] * s.vert[j][0] + t.vert[i][1] * s.vert[j][1] + t.vert[i][2] * s.vert[j][2];
  const Cplx e = (0.25 * k * k) * (m.u - vt - vs + vv * m.s0) - m.s0;
  return (inv_four_pi / test_points * t.coef[i] * s.coef[j]) * e;
}

EFIE_HD Cplx vertex_dot(const double v[3], const CVec3& c) { return dot(Vec3{v[0], v[1], v[2]}, c); }

// The block of the pair (t as test, s as source) from its moments.
EFIE_HD void block_from_moments(const PairMoments& m, const QuadTriangle& t, const QuadTriangle& s, double k, Cplx out[3][3]) {
  Cplx vt[3], vs[3];
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    vt[j] = vertex_dot(s.vert[j], m.t0);
    vs[j] = vertex_dot(t.vert[j], m.s1);
  }
#pragma unroll
  for (int i = 0; i < 3; ++i)
#pragma unroll
    for (int j = 0; j < 3; ++j) out[i][j] = moment_entry(m, t, i, s, j, vt[j], vs[i], k);
}

EFIE_HD void far_block_local(const QuadTriangle& t, const QuadTriangle& s, double k, Cplx out[3][3]) {
  block_from_moments(far_moments(t, s, k), t, s, k, out);
}

// The symmetric rule's block B(t,s) + B(s,t)^T (twice the block of A = (P + P^T)/2) from one set
// of moments. B(t,s)_ij pairs v'^s_j with T0 and v'^t_i with S1 of the moments (t, s); B(s,t)_ji
// pairs v'^t_i with T0 and v'^s_j with S1 of the moments (s, t); the prefactor, S0, U and
// v'^t_i.v'^s_j are the same in both, so the sum is the block of
//   S0 = S0(t,s) + S0(s,t), U = U(t,s) + U(s,t), T0 = T0(t,s) + S1(s,t), S1 = S1(t,s) + T0(s,t)
// (half the entry arithmetic of two blocks, and one set of moments live instead of a 3x3 block).
// The 6 test points of both directions are one loop that is not unrolled (only the 7 source
// points are), so the GPU compiler does not schedule two unrolled 21-point evaluations together
// (which doubles the live registers and spills).
EFIE_HD PairMoments symmetric_far_moments(const QuadTriangle& t, const QuadTriangle& s, double k) {
  PairMoments m{{0, 0}, {0, 0}, {{0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}}};
#pragma unroll 1
  for (int dp = 0; dp < 2 * test_points; ++dp) {
    const bool mirrored = dp >= test_points;  // test point of s against the source points of t
    const QuadTriangle& te = mirrored ? s : t;
    const QuadTriangle& so = mirrored ? t : s;
    const int p = mirrored ? dp - test_points : dp;
    const double r0 = te.test[p][0], r1 = te.test[p][1], r2 = te.test[p][2];
    Cplx g0;
    CVec3 g1;
    far_point_sums(te.c[0] - so.c[0] + r0, te.c[1] - so.c[1] + r1, te.c[2] - so.c[2] + r2, so, k, g0, g1);
    const CVec3 rg0{r0 * g0, r1 * g0, r2 * g0};
    // (t, s): S1 += g1', T0 += r'_p g0; (s, t): its S1 goes to T0 and its T0 to S1.
    const CVec3& to_s1 = mirrored ? rg0 : g1;
    const CVec3& to_t0 = mirrored ? g1 : rg0;
    m.s0 = m.s0 + g0;
    m.s1 = {m.s1.x + to_s1.x, m.s1.y + to_s1.y, m.s1.z + to_s1.z};
    m.t0 = {m.t0.x + to_t0.x, m.t0.y + to_t0.y, m.t0.z + to_t0.z};
    m.u = m.u + r0 * g1.x + r1 * g1.y + r2 * g1.z;
  }
  return m;
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
