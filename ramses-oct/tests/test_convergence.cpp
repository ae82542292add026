#include <cmath>
#include <iostream>

#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "test_helpers.hpp"

using namespace ro;

static copa::Backend fast_backend() {
#if defined(COPA_HAVE_OPENMP)
  return copa::Backend::openmp;
#else
  return copa::Backend::serial;
#endif
}

TEST(Convergence, sod_l1_and_convergence) {
  // Toro test 1 at t = 0.2: L1(rho) < 0.011 at 128 cells, and falls by >= 1.6 from 128 to 256.
  double err[2];
  for (int i = 0; i < 2; ++i) {
    const int nx = 128 << i;
    const OctMesh m = build_mesh({nx, 4, 4}, {Boundary::outflow, Boundary::outflow, Boundary::outflow});
    const auto r = test::run_problem(fast_backend(), "sod", {nx, 4, 4}, Boundary::outflow, 100000);
    COPA_EXPECT_NEAR_REL(r.t, 0.2, 1e-14);
    err[i] = sod_l1_density_error(m, r.u, 1.4, r.t);
    std::cout << "sod nx " << nx << " L1(rho) " << err[i] << "\n";
  }
  std::cout << "ratio " << err[0] / err[1] << "\n";
  EXPECT_TRUE(err[0] < 0.011);
  EXPECT_TRUE(err[0] / err[1] >= 1.6);
}

TEST(Convergence, sound_second_order) {
  // Linear sound wave along the cube diagonal, one period: observed order between 16^3 and 32^3,
  // with the MC limiter (minmod clips the smooth extrema and gives order ~1.5 here, README).
  double err[2];
  for (int i = 0; i < 2; ++i) {
    const int n = 16 << i;
    const OctMesh m = build_mesh({n, n, n}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
    ProblemParams pp;
    pp.name = "sound";
    const auto r = test::run_problem(fast_backend(), "sound", {n, n, n}, Boundary::periodic, 100000, -1, 2);
    err[i] = sound_relative_l1(m, r.u, sound_wave(m, pp), r.t);
    std::cout << "sound n " << n << " relative L1(rho) " << err[i] << "\n";
  }
  const double order = std::log2(err[0] / err[1]);
  std::cout << "order " << order << "\n";
  EXPECT_TRUE(order > 1.8);
}
