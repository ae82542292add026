// The register-lean point physics of the `lean` GPU variant (src/qpoint_lean.hpp) against the
// reference qpoint_update (src/qpoint.hpp) that every other backend runs: stress and dt estimate
// to round-off on deformed Jacobians, at rest, with viscosity off, with an inverted element, in
// 2D and 3D, through strided storage as the GPU kernel's shared-memory stage holds it.
#include <cmath>
#include <random>
#include <vector>

#include "copa/testing.hpp"
#include "qpoint.hpp"
#include "qpoint_lean.hpp"

using namespace laghos;

namespace {

struct Point {
  std::vector<double> J, dv, Jac0inv;
  double e = 1.0, rho0DetJ0w = 0.01, weight = 0.1, gamma = 1.4;
};

// J = h (I + a R), J0^{-1} = (I + b R')/h, dv = s R'' (R.. uniform in [-1, 1]).
Point random_point(int dim, std::mt19937_64& rng, double a, double s) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double h = 0.05;
  Point p;
  p.J.resize(dim * dim);
  p.dv.resize(dim * dim);
  p.Jac0inv.resize(dim * dim);
  for (int i = 0; i < dim * dim; ++i) {
    const double id = (i % (dim + 1) == 0) ? 1.0 : 0.0;
    p.J[i] = h * (id + a * u(rng));
    p.Jac0inv[i] = (id + 0.1 * u(rng)) / h;
    p.dv[i] = s * u(rng);
  }
  p.e = 2.0 * (u(rng) + 1.0);
  return p;
}

QPointIn inputs(const Point& p, bool viscosity) {
  QPointIn in;
  in.J = p.J.data();
  in.dvdxi = p.dv.data();
  in.Jac0inv = p.Jac0inv.data();
  in.e = p.e;
  in.rho0DetJ0w = p.rho0DetJ0w;
  in.weight = p.weight;
  in.gamma = p.gamma;
  in.h0 = 0.05;
  in.h1order = 2;
  in.cfl = 0.5;
  in.viscosity = viscosity;
  return in;
}

// Runs both on the point (the lean one on a copy spread with stride ld) and expects agreement:
// stress to rtol of its largest entry, dt to rtol (or both exactly 0 / infinite).
template <int DIM>
void expect_same(const Point& p, bool viscosity, double rtol = 1e-12) {
  constexpr int DD = DIM * DIM, ld = 5;
  const QPointIn in = inputs(p, viscosity);
  double ref[DD];
  const double dt_ref = qpoint_update<DIM>(in, ref);
  std::vector<double> J(DD * ld, NAN), dv(DD * ld, NAN), stress(DD * ld, NAN);
  for (int i = 0; i < DD; ++i) {
    J[i * ld] = p.J[i];
    dv[i * ld] = p.dv[i];
  }
  const double dt = lean::qpoint_update_strided<DIM>(in, J.data(), dv.data(), ld, stress.data(), ld);
  double scale = 0.0, diff = 0.0;
  for (int i = 0; i < DD; ++i) {
    scale = std::fmax(scale, std::fabs(ref[i]));
    diff = std::fmax(diff, std::fabs(stress[i * ld] - ref[i]));
  }
  EXPECT_TRUE(std::isfinite(diff));
  EXPECT_LE(diff, rtol * scale) << "stress differs by " << diff << " of " << scale;
  if (dt_ref == 0.0 || std::isinf(dt_ref))
    EXPECT_EQ(dt, dt_ref);
  else
    COPA_EXPECT_NEAR_REL(dt, dt_ref, rtol);
  for (int i = 0; i < DD; ++i) EXPECT_EQ(J[i * ld], p.J[i]);  // J is read, never written
}

}  // namespace

TEST(QPointLean, deformed_3d) {
  std::mt19937_64 rng(18);
  for (int n = 0; n < 2000; ++n) expect_same<3>(random_point(3, rng, 0.3, 1.0), true);
}

TEST(QPointLean, deformed_2d) {
  std::mt19937_64 rng(19);
  for (int n = 0; n < 2000; ++n) expect_same<2>(random_point(2, rng, 0.3, 1.0), true);
}

// At rest (the Sedov start), a velocity gradient at CG round-off (1e-12), viscosity off.
TEST(QPointLean, rest_noise_and_no_viscosity) {
  std::mt19937_64 rng(20);
  for (int n = 0; n < 200; ++n) {
    expect_same<3>(random_point(3, rng, 0.0, 0.0), true);
    expect_same<3>(random_point(3, rng, 0.1, 1e-12), true);
    expect_same<3>(random_point(3, rng, 0.3, 1.0), false);
    expect_same<2>(random_point(2, rng, 0.1, 1e-12), true);
  }
}

// An inverted element (det J < 0): dt estimate 0 in both.
TEST(QPointLean, inverted_element) {
  std::mt19937_64 rng(21);
  Point p = random_point(3, rng, 0.1, 1.0);
  for (int c = 0; c < 3; ++c) p.J[c] = -p.J[c];  // flip the first row
  expect_same<3>(p, true);
  double s[9];
  EXPECT_EQ(qpoint_update<3>(inputs(p, true), s), 0.0);
}

// The 6-entry Jacobi against min_eigen<3> on random symmetric matrices: the smallest eigenvalue
// to round-off of the matrix norm and the same unit eigenvector.
TEST(QPointLean, min_eigen3_matches_min_eigen) {
  std::mt19937_64 rng(22);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int n = 0; n < 2000; ++n) {
    const double a00 = u(rng), a11 = u(rng), a22 = u(rng), a01 = u(rng), a02 = u(rng), a12 = u(rng);
    const double S[9] = {a00, a01, a02, a01, a11, a12, a02, a12, a22};
    double vref[3], v[3];
    const double lref = min_eigen<3>(S, vref);
    const double l = lean::min_eigen3<true>(lean::Sym3{a00, a11, a22, a01, a02, a12}, v);
    EXPECT_NEAR(l, lref, 1e-14);
    EXPECT_EQ(lean::min_eigen3<false>(lean::Sym3{a00, a11, a22, a01, a02, a12}, nullptr), l);
    EXPECT_NEAR(v[0] * vref[0] + v[1] * vref[1] + v[2] * vref[2], 1.0, 1e-12);
  }
}
