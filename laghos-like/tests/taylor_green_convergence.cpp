// Taylor-Green vortex (problem 0, 2D, with its energy source): the velocity field stays the
// initial one for all time, so the L2 velocity error must fall with refinement at a fixed order.
// RK4, CFL 0.5, to t = 0.25 on 2^(r+1) x 2^(r+1) zones (README "Verification", Taylor-Green).
// Measured (serial, L2 velocity error; observed orders between successive refinements):
//   t = 0 (interpolation of the exact field, same norm):  Q2Q1 r 2..4 orders 3.00, 3.00
//   Q1Q0 r 1..4: 7.49e-2, 1.66e-2, 4.08e-3, 1.02e-3    orders 2.17, 2.03, 2.01   (k + 1 = 2)
//   Q2Q1 r 1..4: 8.53e-3, 3.20e-3, 9.44e-4, 2.49e-4    orders 1.41, 1.76, 1.93   (k = 2, not 3)
//   Q3Q2 r 1..3: 5.03e-3, 4.79e-4, 4.78e-5             orders 3.39, 3.32         (k = 3, not 4)
// A CFL of 0.05 or a CG tolerance of 1e-14 changes the Q2Q1 errors by < 0.1 %, so the time and
// solver errors are not the limit; the norm and the initial state converge at k + 1 (t = 0 row).
// The semi-discrete scheme as Laghos defines it gives order k for k >= 2 here (README).
// Asserted: the t = 0 order > 2.9 (Q2), Q1Q0 order in 1.9..2.1, Q2Q1 orders rising with the finest
// > 1.85, Q3Q2 finest order > 2.9.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "copa/testing.hpp"
#include "discretization.hpp"
#include "hydro.hpp"
#include "kernels.hpp"
#include "mesh.hpp"
#include "reference.hpp"

using namespace laghos;

namespace {
double tg_velocity_l2_error(int refine, int k, int ot, double t_final) {
  CartesianMesh mesh = named_mesh("square01_quad");
  for (int i = 0; i < refine; ++i) mesh.refine();
  ProblemSpec spec;
  spec.problem = 0;
  spec.order_k = k;
  spec.order_t = ot;
  std::vector<double> state;
  const Discretization d = build_discretization(mesh, spec, state);
  if (t_final == 0.0) return velocity_errors(d, state, 0).l2;
  auto kernels = make_serial_kernels();
  kernels->setup(d);
  RunOptions run;
  run.t_final = t_final;
  run.ode = 4;
  run.quiet = true;
  LagrangianHydro hydro(d, *kernels, run);
  const RunResult res = hydro.run(state, [](const std::string&) {});
  return velocity_errors(d, res.state, 0).l2;
}

// Observed orders log2(e_{r-1} / e_r) for r = first+1 .. last.
std::vector<double> orders(int first, int last, int k, int ot, double t_final) {
  std::vector<double> rates;
  double prev = 0.0;
  for (int refine = first; refine <= last; ++refine) {
    const double err = tg_velocity_l2_error(refine, k, ot, t_final);
    std::printf("Q%dQ%d t = %.2f refine %d: L2 velocity error %.4e", k, ot, t_final, refine, err);
    if (refine > first) {
      rates.push_back(std::log2(prev / err));
      std::printf(", observed order %.2f", rates.back());
    }
    std::printf("\n");
    prev = err;
  }
  return rates;
}
}  // namespace

TEST(TaylorGreenConvergence, taylor_green_initial_interpolation_q2_is_order_3) {
  const auto r = orders(2, 4, 2, 1, 0.0);
  EXPECT_TRUE(r.back() > 2.9);
}

TEST(TaylorGreenConvergence, taylor_green_q1q0_converges_at_order_2) {
  const auto r = orders(1, 4, 1, 0, 0.25);
  EXPECT_TRUE(r.back() > 1.9 && r.back() < 2.1);
}

TEST(TaylorGreenConvergence, taylor_green_q2q1_converges_at_order_2) {
  const auto r = orders(1, 4, 2, 1, 0.25);
  for (std::size_t i = 1; i < r.size(); ++i) EXPECT_TRUE(r[i] > r[i - 1]);
  EXPECT_TRUE(r.back() > 1.85);
}

TEST(TaylorGreenConvergence, taylor_green_q3q2_converges_at_order_3) {
  const auto r = orders(1, 3, 3, 2, 0.25);
  EXPECT_TRUE(r.back() > 2.9);
}
