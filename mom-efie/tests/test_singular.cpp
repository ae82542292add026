// Analytic R^-1 and R integrals (singular.hpp) against brute-force quadrature: Duffy transformation
// about the projected observation point (removes the 1/R singularity), Gauss-Legendre panels
// graded towards the apex, 3 signed sub-triangles.
#include <array>
#include <cmath>
#include <iostream>
#include <vector>

#include "copa/testing.hpp"
#include "singular.hpp"

using namespace efie;

namespace {

void gauss_legendre(int n, std::vector<double>& x, std::vector<double>& w) {
  x.resize(n);
  w.resize(n);
  for (int i = 0; i < n; ++i) {
    double z = std::cos(M_PI * (i + 0.75) / (n + 0.5)), dp = 0;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1, p1 = z;
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      dp = n * (z * p1 - p0) / (z * z - 1);
      const double dz = p1 / dp;
      z -= dz;
      if (std::fabs(dz) < 1e-16) break;
    }
    x[i] = 0.5 * (z + 1);
    w[i] = 1.0 / ((1 - z * z) * dp * dp);
  }
}

// Duffy quadrature over the triangle (a, b, c) about `apex`: the sub-triangles (apex, v_s, v_s+1)
// with q = apex + u ((v_s - apex) + v (v_s+1 - v_s)), Jacobian u times the signed doubled area (so
// sub-triangles outside cancel), u panelled geometrically from 1e-6 to 1, 48 Gauss points in u and
// v; calls f(q, w) with the weight w.
template <class F>
void duffy(Vec3 apex, Vec3 a, Vec3 b, Vec3 c, F f) {
  std::vector<double> gx, gw;
  gauss_legendre(48, gx, gw);
  const Vec3 nn = cross(b - a, c - a);
  const Vec3 n = (1.0 / norm(nn)) * nn;
  const Vec3 v[3] = {a, b, c};
  std::vector<double> edges{0.0};
  for (double e = 1e-6; e < 1; e *= 4) edges.push_back(e);
  edges.push_back(1.0);
  for (int s = 0; s < 3; ++s) {
    const Vec3 p1 = v[s], p2 = v[(s + 1) % 3];
    const double jac = dot(cross(p1 - apex, p2 - p1), n);
    if (std::fabs(jac) < 1e-14) continue;  // the apex on this side's line: no area
    for (std::size_t pu = 0; pu + 1 < edges.size(); ++pu)
      for (int iu = 0; iu < int(gx.size()); ++iu) {
        const double u = edges[pu] + (edges[pu + 1] - edges[pu]) * gx[iu];
        const double wu = (edges[pu + 1] - edges[pu]) * gw[iu];
        for (int iv = 0; iv < int(gx.size()); ++iv) f(apex + u * ((p1 - apex) + gx[iv] * (p2 - p1)), wu * gw[iv] * u * jac);
      }
  }
}

// int over the triangle of {1/R, R, r'/R, r' R}, about the projection of r onto its plane.
std::array<double, 8> brute_force(Vec3 r, Vec3 a, Vec3 b, Vec3 c) {
  const Vec3 nn = cross(b - a, c - a);
  const Vec3 n = (1.0 / norm(nn)) * nn;
  std::array<double, 8> sum{};
  duffy(r - dot(r - a, n) * n, a, b, c, [&](Vec3 q, double w) {
    const double R = norm(q - r);
    const double vals[8] = {1 / R, R, q.x / R, q.y / R, q.z / R, q.x * R, q.y * R, q.z * R};
    for (int k = 0; k < 8; ++k) sum[k] += w * vals[k];
  });
  return sum;
}

void check_point(Vec3 r, Vec3 a, Vec3 b, Vec3 c) {
  const auto ref = brute_force(r, a, b, c);
  const auto an = potential_integrals(r, a, b, c);
  const double got[8] = {an.inv_r, an.r, an.inv_r_vec.x, an.inv_r_vec.y, an.inv_r_vec.z, an.r_vec.x, an.r_vec.y, an.r_vec.z};
  double scale_inv = std::fabs(ref[0]), scale_r = std::fabs(ref[1]);
  for (int k = 2; k < 5; ++k) scale_inv = std::max(scale_inv, std::fabs(ref[k]));
  for (int k = 5; k < 8; ++k) scale_r = std::max(scale_r, std::fabs(ref[k]));
  for (int k = 0; k < 8; ++k) {
    const double scale = (k == 1 || k >= 5) ? scale_r : scale_inv;
    EXPECT_TRUE(std::fabs(got[k] - ref[k]) <= 1e-10 * scale);
    if (std::fabs(got[k] - ref[k]) > 1e-10 * scale)
      std::cerr << "  component " << k << ": analytic - brute = " << got[k] - ref[k] << " of " << ref[k] << "\n";
  }
}

// A tilted triangle, so that no coordinate is special.
const Vec3 ta{0.1, -0.2, 0.3}, tb{1.2, 0.1, 0.5}, tc{0.4, 0.9, -0.1};
Vec3 in_plane(double s, double t) { return ta + s * (tb - ta) + t * (tc - ta); }
Vec3 normal() {
  const Vec3 n = cross(tb - ta, tc - ta);
  return (1.0 / norm(n)) * n;
}

// int over the triangle of (r - r')/R^3 and (r - r')/R by Duffy quadrature about `apex` (the
// projection of r when it is off the plane; a vertex when r is in the plane outside the triangle).
std::array<Vec3, 2> brute_gradient(Vec3 r, Vec3 apex, Vec3 a, Vec3 b, Vec3 c) {
  std::array<Vec3, 2> sum{Vec3{0, 0, 0}, Vec3{0, 0, 0}};
  duffy(apex, a, b, c, [&](Vec3 q, double w) {
    const Vec3 x = r - q;
    const double R = norm(x);
    sum[0] = sum[0] + (w / (R * R * R)) * x;
    sum[1] = sum[1] + (w / R) * x;
  });
  return sum;
}

void check_gradient(Vec3 r, Vec3 apex, Vec3 a, Vec3 b, Vec3 c) {
  const auto ref = brute_gradient(r, apex, a, b, c);
  const auto an = gradient_integrals(r, a, b, c);
  const Vec3 want_inv = (-1.0) * ref[0];  // grad(1/R) = -(r - r')/R^3
  const double e0 = norm(an.grad_inv_r - want_inv) / norm(want_inv), e1 = norm(an.grad_r - ref[1]) / norm(ref[1]);
  std::cout << "  gradient integrals: relative error grad(1/R) " << e0 << ", grad R " << e1 << "\n";
  EXPECT_TRUE(e0 <= 1e-9);
  EXPECT_TRUE(e1 <= 1e-9);
}

}  // namespace

// The MFIE's analytic gradient integrals against brute force, off the plane (incl. close above
// the triangle and above a vertex) and in the plane outside it (coplanar neighbours).
TEST(Singular, gradient_integrals) {
  const Vec3 n = normal();
  for (const Vec3 r : {in_plane(0.3, 0.3) + 0.5 * n, in_plane(0.2, 0.25) - 0.03 * n, in_plane(1.4, 0.6) + 0.2 * n,
                       ta + 0.3 * n})
    check_gradient(r, r - dot(r - ta, n) * n, ta, tb, tc);
  for (const Vec3 r : {in_plane(1.3, 0.7), in_plane(-0.4, -0.3), in_plane(1.8, 0.0)}) check_gradient(r, ta, ta, tb, tc);
  // In the plane inside: the principal value has no normal part (the 1/2 term is separate).
  EXPECT_TRUE(std::fabs(dot(gradient_integrals(in_plane(0.3, 0.3), ta, tb, tc).grad_inv_r, n)) <= 1e-12);
}

TEST(Singular, singular_off_plane) {
  check_point(in_plane(0.3, 0.3) + 0.5 * normal(), ta, tb, tc);
  check_point(in_plane(0.2, 0.25) - 0.03 * normal(), ta, tb, tc);
  check_point(in_plane(1.4, 0.6) + 0.2 * normal(), ta, tb, tc);  // projection outside
  check_point(ta + 0.3 * normal(), ta, tb, tc);                  // above a vertex
}

TEST(Singular, singular_in_plane) {
  check_point(in_plane(0.3, 0.3), ta, tb, tc);     // inside (the self-term case)
  check_point(in_plane(2.0 / 3.0, 1.0 / 6.0), ta, tb, tc);  // a test-rule point
  check_point(in_plane(1.3, 0.7), ta, tb, tc);     // outside
  check_point(in_plane(1.8, 0.0), ta, tb, tc);     // on the extension of an edge
  check_point(in_plane(-0.4, -0.3), ta, tb, tc);   // outside, beyond a vertex
}
