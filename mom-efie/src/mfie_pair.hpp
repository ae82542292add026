// The MFIE interaction of one (test triangle T, source triangle S) pair for a closed PEC surface
// with outward normals (time convention exp(+j w t), G = exp(-jkR)/(4 pi R)).
//
// Equation (the n x H form, limit from outside): J/2 - n x PV int grad G x J' dS' = n x H_inc.
// Testing: Galerkin with RWG f_m on the n x H equation, the choice of Yla-Oijala and Taskinen
// (IEEE TAP 51(8), 2003, "Calculation of CFIE impedance matrix elements with RWG and n x RWG
// functions"): the RWG-tested n x H MFIE and the RWG-tested tangential EFIE are the pair whose
// sum is the well-conditioned CFIE (both test the same space; n x RWG testing of the MFIE would
// need the EFIE tested with n x RWG too). So
//   M_mn = 1/2 int f_m . f_n dS - int f_m . [n x int grad G x f_n dS'] dS,   M I = <f_m, n x H_inc>.
// With grad G = g(R) (r - r') and (r - r') x (r' - v_j) = (r - r') x (r - v_j), the source integral
// of f_j = c_j (r' - v_j)/(2 A_S) is (c_j / 2) Ig(r) x (r - v_j), Ig = (1/A_S) int_S grad G dS', so
// with a = r_p - v_i, b = r_p - v_j and n x (Ig x b) = Ig (n.b) - b (n.Ig):
//   B_ij = -(c_i c_j / 4) sum_p w_p [(a.Ig_p)(n.b) - (a.b)(n.Ig_p)]
// (one complex 3-vector per test point serves all 9 entries, the reuse of the EFIE's g0, g1).
// Self pairs: Ig and b lie in the plane of T, so n x (Ig x b) = 0 and only the Gram term is left
// (the principal value of a flat triangle on itself vanishes). Near pairs: grad G = grad(1/(4 pi R))
// - k^2/(8 pi) grad R + grad G_s, the first two integrated analytically (gradient_integrals), the
// smooth grad G_s = h(R)(r - r') by the 7-point rule.
#pragma once
#include "efie_pair.hpp"

namespace efie {

EFIE_HD Vec3 unit_normal(const Triangle& t) {
  const Vec3 n = cross(t.v[1] - t.v[0], t.v[2] - t.v[0]);
  return (1.0 / norm(n)) * n;
}

// g(R) of grad G = g(R) (r - r'): -(1 + jkR) exp(-jkR) / (4 pi R^3).
EFIE_HD Cplx grad_green(double R, double k) {
  double s, c;
  sin_cos(k * R, s, c);
  const double x = k * R, f = -inv_four_pi / (R * R * R);
  // (1 + jx)(c - js) = (c + x s) + j (x c - s)
  return {(c + x * s) * f, (x * c - s) * f};
}

// h(R) of grad G_s = h(R)(r - r'), G_s = G - 1/(4 pi R) + k^2 R/(8 pi):
//   h = [1 - (1 + jkR) exp(-jkR)] / (4 pi R^3) + k^2 / (8 pi R)
//     = k^3/(4 pi) sum_(n>=3) (-j)^n (n - 1)/n! (kR)^(n-3)   (the 1/R terms cancel exactly),
// by the series below kR = 0.5 (no cancellation), directly above.
EFIE_HD Cplx grad_green_smooth(double R, double k) {
  const double x = k * R;
  if (x < 0.5) {
    // (-j)^n cycles 1, -j, -1, j from n = 0; start at n = 3: j.
    double re = 0, im = 0, term = 1.0 / 6.0;  // x^(n-3) / n!
    for (int n = 3; n < 20; ++n) {
      const double v = (n - 1) * term;
      switch (n % 4) {
        case 0: re += v; break;
        case 1: im -= v; break;
        case 2: re -= v; break;
        default: im += v; break;
      }
      term *= x / (n + 1);
    }
    const double f = k * k * k * inv_four_pi;
    return {re * f, im * f};
  }
  const Cplx g = grad_green(R, k);
  return {g.re + inv_four_pi / (R * R * R) + 0.5 * k * k * inv_four_pi / R, g.im};
}

// Complex wavenumber (lossy medium): the same two kernels.
EFIE_HD Cplx grad_green(double R, Cplx k) {
  const Cplx x = R * k;
  return (-inv_four_pi / (R * R * R)) * (Cplx{1.0 - x.im, x.re} * exp_minus_j(x));  // (1 + jx) = (1 - x'', x')
}

EFIE_HD Cplx grad_green_smooth(double R, Cplx k) {
  const Cplx x = R * k;
  if (x.re * x.re + x.im * x.im < 0.25) {
    // sum_(n>=3) (-j)^n (n - 1)/n! x^(n-3), with (-j x)^n / x^3 built up from (-j)^3 = j.
    const Cplx mjx{x.im, -x.re};
    Cplx sum{0, 0}, term{0, 1.0 / 6.0};  // (-j)^n x^(n-3) / n! at n = 3
    for (int n = 3; n < 20; ++n) {
      sum = sum + double(n - 1) * term;
      term = (1.0 / (n + 1)) * (term * mjx);
    }
    return inv_four_pi * (k * k * k) * sum;
  }
  return grad_green(R, k) + (inv_four_pi / (R * R * R) + 0.5 * inv_four_pi / R * (k * k));
}

// c_i c_j / (4 A) sum_p w_p (r_p - v_i).op(r_p - v_j) over one triangle by the 3-point test rule
// (exact when op is linear: the integrand is then a quadratic).
template <class Op>
EFIE_HD void rule_gram_block(const Triangle& t, Op op, double out[3][3]) {
  const double area = 0.5 * norm(cross(t.v[1] - t.v[0], t.v[2] - t.v[0]));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[i][j] = 0;
  for (int p = 0; p < test_points; ++p) {
    Vec3 rp;
    double wp;
    test_rule(p, t.v[0], t.v[1], t.v[2], rp, wp);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) out[i][j] += wp * dot(rp - t.v[i], op(rp - t.v[j]));
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[i][j] *= t.coef[i] * t.coef[j] / (4 * area);
}

struct Identity {
  EFIE_HD Vec3 operator()(Vec3 a) const { return a; }
};

// The 3x3 Gram block int_T f_i . f_j dS = c_i c_j / (4 A) sum_p w_p (r_p - v_i).(r_p - v_j).
EFIE_HD void gram_block(const Triangle& t, double out[3][3]) { rule_gram_block(t, Identity{}, out); }

// Ig = (1/A_S) int_S grad G(r, r') dS' at one test point (far: 7-point rule; near: extraction).
template <bool Singular, class K>
EFIE_HD CVec3 mean_grad_green(Vec3 r, const Triangle& s, K k) {
  CVec3 ig{{0, 0}, {0, 0}, {0, 0}};
  for (int q = 0; q < source_points; ++q) {
    Vec3 rq;
    double wq;
    source_rule(q, s.v[0], s.v[1], s.v[2], rq, wq);
    const Vec3 x = r - rq;
    const double R = norm(x);
    const Cplx g = wq * (Singular ? grad_green_smooth(R, k) : grad_green(R, k));
    add_scaled(ig, x, g);
  }
  if (Singular) {
    const GradientIntegrals gi = gradient_integrals(r, s.v[0], s.v[1], s.v[2]);
    const ExtractionWeights<K> w = extraction_weights(s, k);
    accumulate(ig.x, w.a * gi.grad_inv_r.x + w.b * gi.grad_r.x);
    accumulate(ig.y, w.a * gi.grad_inv_r.y + w.b * gi.grad_r.y);
    accumulate(ig.z, w.a * gi.grad_inv_r.z + w.b * gi.grad_r.z);
  }
  return ig;
}

// The 3x3 MFIE block of (T, S): the principal-value term, plus half the Gram block when S is T.
template <bool Singular>
EFIE_HD void mfie_pair_block(const Triangle& t, const Triangle& s, bool self, double k, Cplx out[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[i][j] = {0, 0};
  if (self) {
    double g[3][3];
    gram_block(t, g);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) out[i][j] = {0.5 * g[i][j], 0};
    return;
  }
  const Vec3 n = unit_normal(t);
  for (int p = 0; p < test_points; ++p) {
    Vec3 rp;
    double wp;
    test_rule(p, t.v[0], t.v[1], t.v[2], rp, wp);
    const CVec3 ig = mean_grad_green<Singular>(rp, s, k);
    const Cplx n_ig = dot(n, ig);
    for (int i = 0; i < 3; ++i) {
      const Vec3 a = rp - t.v[i];
      const Cplx a_ig = dot(a, ig);
      for (int j = 0; j < 3; ++j) {
        const Vec3 b = rp - s.v[j];
        out[i][j] = out[i][j] + wp * (dot(n, b) * a_ig - dot(a, b) * n_ig);
      }
    }
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[i][j] = (-0.25 * t.coef[i] * s.coef[j]) * out[i][j];
}

// The 3x3 block of the K operator tested with RWG (no n x): <f_i, int grad G x f_j dS'>
//   = (c_i c_j / 4) sum_p w_p a . (Ig_p x b)
// principal value (the +-1/2 terms cancel in the PMCHWT); 0 on a self pair (a, Ig, b in one plane).
template <bool Singular, class K>
EFIE_HD void k_pair_block(const Triangle& t, const Triangle& s, bool self, K k, Cplx out[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[i][j] = {0, 0};
  if (self) return;
  for (int p = 0; p < test_points; ++p) {
    Vec3 rp;
    double wp;
    test_rule(p, t.v[0], t.v[1], t.v[2], rp, wp);
    const CVec3 ig = mean_grad_green<Singular>(rp, s, k);
    for (int i = 0; i < 3; ++i) {
      const Vec3 a = rp - t.v[i];
      for (int j = 0; j < 3; ++j) out[i][j] = out[i][j] + wp * dot(cross(rp - s.v[j], a), ig);  // a.(Ig x b) = Ig.(b x a)
    }
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[i][j] = (0.25 * t.coef[i] * s.coef[j]) * out[i][j];
}

}  // namespace efie
