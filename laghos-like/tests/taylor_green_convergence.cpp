// Taylor-Green vortex (problem 0, 2D, with its energy source): the velocity stays the initial one
// for all time, so the L2 velocity error must fall with refinement at a fixed order. Q2Q1 to
// t = 0.25 (RK4, CFL 0.5) on 4^2 .. 32^2 zones. Measured: 8.53e-3, 3.20e-3, 9.44e-4, 2.49e-4,
// orders 1.41, 1.76, 1.93, rising toward 2 (the order of the Q1 thermodynamic space, which
// drives the velocity through the pressure; k + 1 = 3 is not observed, README "Known limits").
// Asserted: every observed order rises and the finest one exceeds 1.85.
#define COPA_TEST_MAIN
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
double tg_velocity_l2_error(int refine, const std::string& ode) {
  CartesianMesh mesh = named_mesh("square01_quad");
  for (int i = 0; i < refine; ++i) mesh.refine();
  ProblemSpec spec;
  spec.problem = 0;
  spec.order_k = 2;
  spec.order_t = 1;
  std::vector<double> state;
  const Discretization d = build_discretization(mesh, spec, state);
  auto kernels = make_serial_kernels();
  kernels->setup(d);
  RunOptions run;
  run.t_final = 0.25;
  run.ode = ode == "rk2avg" ? 7 : 4;
  run.quiet = true;
  LagrangianHydro hydro(d, *kernels, run);
  const RunResult res = hydro.run(state, [](const std::string&) {});
  return velocity_errors(d, res.state, 0).l2;
}
}  // namespace

COPA_TEST(taylor_green_q2q1_converges_at_order_2) {
  double prev = 0.0, prev_rate = 0.0;
  for (int refine = 1; refine <= 4; ++refine) {
    const double err = tg_velocity_l2_error(refine, "rk4");
    if (refine > 1) {
      const double rate = std::log2(prev / err);
      std::printf("refine %d: L2 velocity error %.4e, observed order %.2f\n", refine, err, rate);
      if (refine > 2) COPA_CHECK(rate > prev_rate);
      if (refine == 4) COPA_CHECK(rate > 1.85);
      prev_rate = rate;
    } else {
      std::printf("refine %d: L2 velocity error %.4e\n", refine, err);
    }
    prev = err;
  }
}
