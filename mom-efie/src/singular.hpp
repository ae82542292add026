// Analytic integrals of R^-1 and R (scalar and vector) over a flat triangle for an observation
// point r anywhere (off the plane, in the plane, inside the triangle): the line-integral reduction
// of Wilton, Rao, Glisson, Schaubert, Al-Bundak and Butler (IEEE TAP 32(3), 1984) in the recursive
// form of Graglia (IEEE TAP 41(10), 1993).
//
// With n the unit normal, d = n.(r - r_plane), rho the projection of r, and for each edge i
// (tangent l_i, outward in-plane normal u_i = l_i x n, end points at signed abscissae l-, l+ from
// the foot of rho, in-plane distance P0 = (rho_edge - rho).u_i, R0^2 = P0^2 + d^2, R+- the distances
// from r to the end points):
//   L_-1 = ln((R+ + l+)/(R- + l-)),  L_q = [q R0^2 L_(q-2) + l+ R+^q - l- R-^q]/(q + 1)
//   I_-1 = sum P0 L_-1 - |d| sum beta,  beta = atan(P0 l+/(R0^2 + |d| R+)) - atan(P0 l-/(R0^2 + |d| R-))
//   I_1  = [d^2 I_-1 + sum P0 L_1]/3
//   int (rho' - rho) R^q = sum u_i L_(q+2)/(q + 2)   (q = -1, 1)
#pragma once
#include "math.hpp"

namespace efie {

struct PotentialIntegrals {
  double inv_r;   // int 1/R dS'
  double r;       // int R dS'
  Vec3 inv_r_vec; // int r'/R dS'  (r' the source point)
  Vec3 r_vec;     // int r' R dS'
};

// The per-edge quantities above (u, l+, l-, P0, R0^2, R+, R-) of the edge pm -> pp, for r at
// height d over the plane of unit normal n, rho its foot: what the potentials and their gradients
// both sum over the edges.
struct EdgeTerms {
  Vec3 u;
  double lp, lm, p0, r0sq, rp, rm;
};

EFIE_HD EdgeTerms edge_terms(Vec3 pm, Vec3 pp, Vec3 n, Vec3 rho, Vec3 r, double d) {
  const Vec3 edge = pp - pm;
  const Vec3 t = (1.0 / norm(edge)) * edge;
  EdgeTerms e;
  e.u = cross(t, n);
  e.lp = dot(pp - rho, t), e.lm = dot(pm - rho, t);
  e.p0 = dot(pm - rho, e.u);
  e.r0sq = e.p0 * e.p0 + d * d;
  e.rp = norm(pp - r), e.rm = norm(pm - r);
  return e;
}

EFIE_HD PotentialIntegrals potential_integrals(Vec3 r, Vec3 va, Vec3 vb, Vec3 vc) {
  const Vec3 nn = cross(vb - va, vc - va);
  const Vec3 n = (1.0 / norm(nn)) * nn;
  const double d = dot(r - va, n), ad = fabs(d);
  const Vec3 rho = r - d * n;
  const Vec3 v[3] = {va, vb, vc};
  const double scale = norm(vb - va) + norm(vc - vb) + norm(va - vc);
  double sum_p0_lm1 = 0, sum_beta = 0, sum_p0_l1 = 0;
  Vec3 sum_u_l1{0, 0, 0}, sum_u_l3{0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    const EdgeTerms e = edge_terms(v[i], v[(i + 1) % 3], n, rho, r, d);
    const Vec3 u = e.u;
    const double lp = e.lp, lm = e.lm, p0 = e.p0, r0sq = e.r0sq, rp = e.rp, rm = e.rm;
    // R + l without cancellation: for l < 0, R + l = R0^2 / (R - l).
    double lm1 = 0;
    const bool on_edge_line = r0sq <= 1e-28 * scale * scale;  // every use of L_-1 is then multiplied by 0
    if (!on_edge_line) {
      const double fp = lp >= 0 ? rp + lp : r0sq / (rp - lp);
      const double fm = lm >= 0 ? rm + lm : r0sq / (rm - lm);
      lm1 = log(fp / fm);
    }
    const double l1 = 0.5 * (r0sq * lm1 + lp * rp - lm * rm);
    const double l3 = 0.25 * (3.0 * r0sq * l1 + lp * rp * rp * rp - lm * rm * rm * rm);
    if (!on_edge_line && ad > 0)
      sum_beta += atan(p0 * lp / (r0sq + ad * rp)) - atan(p0 * lm / (r0sq + ad * rm));
    sum_p0_lm1 += p0 * lm1;
    sum_p0_l1 += p0 * l1;
    sum_u_l1 = sum_u_l1 + l1 * u;
    sum_u_l3 = sum_u_l3 + l3 * u;
  }
  PotentialIntegrals out;
  out.inv_r = sum_p0_lm1 - ad * sum_beta;
  out.r = (d * d * out.inv_r + sum_p0_l1) / 3.0;
  out.inv_r_vec = sum_u_l1 + out.inv_r * rho;
  out.r_vec = (1.0 / 3.0) * sum_u_l3 + out.r * rho;
  return out;
}

}  // namespace efie

namespace efie {

// Gradients (with respect to the observation point r) of the same potentials, for the MFIE's
// n x grad G kernel; Gauss's theorem in the source plane turns the tangential parts into the
// edge integrals L_-1 = int 1/R dl and L_1 = int R dl of potential_integrals, and the normal
// part of grad(1/R) is the solid angle sum(beta) (Graglia 1993, eqs. for grad I):
//   int grad(1/R) dS' = -sum u_i L_-1,i - n sign(d) sum beta_i
//   int grad R dS'    = -sum u_i L_1,i  + n d I_-1
// In the plane of the triangle (d = 0) the normal part is 0: that is the principal value, the
// jump +-2 pi n of the solid angle being the 1/2 identity term of the MFIE, added separately.
struct GradientIntegrals {
  Vec3 grad_inv_r;  // int grad_r (1/R) dS' = -int (r - r') / R^3 dS'
  Vec3 grad_r;      // int grad_r R dS'     =  int (r - r') / R dS'
};

EFIE_HD GradientIntegrals gradient_integrals(Vec3 r, Vec3 va, Vec3 vb, Vec3 vc) {
  const Vec3 nn = cross(vb - va, vc - va);
  const Vec3 n = (1.0 / norm(nn)) * nn;
  const double scale = norm(vb - va) + norm(vc - vb) + norm(va - vc);
  // A point in the plane up to round-off is in the plane: its normal part is the principal value 0,
  // not the +-2 pi of a rounding error's sign.
  const double d_raw = dot(r - va, n), d = fabs(d_raw) <= 1e-13 * scale ? 0.0 : d_raw, ad = fabs(d);
  const Vec3 rho = r - d_raw * n;
  const Vec3 v[3] = {va, vb, vc};
  double sum_p0_lm1 = 0, sum_beta = 0;
  Vec3 sum_u_lm1{0, 0, 0}, sum_u_l1{0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    const EdgeTerms e = edge_terms(v[i], v[(i + 1) % 3], n, rho, r, d);
    const Vec3 u = e.u;
    const double lp = e.lp, lm = e.lm, p0 = e.p0, r0sq = e.r0sq, rp = e.rp, rm = e.rm;
    double lm1;
    if (r0sq > 1e-28 * scale * scale) {
      const double fp = lp >= 0 ? rp + lp : r0sq / (rp - lp);
      const double fm = lm >= 0 ? rm + lm : r0sq / (rm - lm);
      lm1 = log(fp / fm);
    } else {
      // r on the edge's line, off the edge (a test point is never on a source edge): int dl/|l|.
      lm1 = lm > 0 ? log(lp / lm) : (lp < 0 ? log(lm / lp) : 0.0);
    }
    const double l1 = 0.5 * (r0sq * lm1 + lp * rp - lm * rm);
    if (r0sq > 1e-28 * scale * scale && ad > 0)
      sum_beta += atan(p0 * lp / (r0sq + ad * rp)) - atan(p0 * lm / (r0sq + ad * rm));
    sum_p0_lm1 += p0 * lm1;
    sum_u_lm1 = sum_u_lm1 + lm1 * u;
    sum_u_l1 = sum_u_l1 + l1 * u;
  }
  const double inv_r = sum_p0_lm1 - ad * sum_beta;
  const double sign_d = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);
  GradientIntegrals out;
  out.grad_inv_r = (-1.0) * sum_u_lm1 - (sign_d * sum_beta) * n;
  out.grad_r = (-1.0) * sum_u_l1 + (d * inv_r) * n;
  return out;
}

}  // namespace efie
