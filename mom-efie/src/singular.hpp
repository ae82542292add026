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
    const Vec3 pm = v[i], pp = v[(i + 1) % 3];
    const Vec3 edge = pp - pm;
    const Vec3 t = (1.0 / norm(edge)) * edge;
    const Vec3 u = cross(t, n);
    const double lp = dot(pp - rho, t), lm = dot(pm - rho, t);
    const double p0 = dot(pm - rho, u);
    const double r0sq = p0 * p0 + d * d;
    const double rp = norm(pp - r), rm = norm(pm - r);
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
