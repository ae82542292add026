// Leaf cubes on the GPU (--leaf-cubes, README "Leaf cubes"): the GPU step with the cubes marched
// (leaf_cube_kernel) and with their groups run as units, global dt and --subcycle, on trees with
// cubes on levels 0 to 2: after every upload and regrid the device plan (its cube bytes included)
// equals the host plan field by field, each run equals the serial oracle (the same tree, steps and
// end time, the state to 1e-12), and the two runs equal each other to 1e-12 (the device compiler
// contracts the two kernels' products differently, so not bit for bit; the host emulation of both
// is, test_amr_leaf_cubes.cpp). gpu label: CUDA or HIP builds.
#include <cmath>
#include <iostream>
#include <memory>
#include <string>

#include "amr_driver.hpp"
#include "amr_gpu.hpp"
#include "amr_plan.hpp"
#include "copa/testing.hpp"
#include "reference.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"
#include "test_amr_plan_checked_step.hpp"

using namespace ro;
using namespace ro::amr_test;

TEST(Amr, amr_gpu_leaf_cubes_equal_oracle) {
  const PlanCase cases[] = {{"sedov", {16, 16, 16}, Boundary::periodic, 2, "band", 4},
                            {"sedov", {16, 16, 16}, Boundary::reflecting, 2, "gradient", 12},
                            {"sedov", {12, 8, 10}, Boundary::outflow, 3, "gradient", 10}};
  long cubes = 0;
  for (const PlanCase& c : cases)
    for (const bool subcycle : {false, true}) {
      const OctMesh base = build_mesh(c.base, {c.bc, c.bc, c.bc});
      const RunConfig cfg = amr_config(c.problem, 1.0, c.steps);
      amr::AmrConfig ac = amr_levels(c.levels, c.kind, 2);
      ac.subcycle = subcycle;
      const auto oracle = amr::run_amr(copa::Backend::serial, base, cfg, ac);
      std::vector<double> state[2];
      for (const bool on : {true, false}) {
        const std::string what = std::string(c.problem) + " " + c.kind + " bc " + std::to_string(int(c.bc)) +
                                 " subcycle " + std::to_string(subcycle) + " cubes " + std::to_string(on);
        SCOPED_TRACE(what);
        PlanChecks n;
        ac.device = [&n, subcycle, on](const HydroParams& hp, bool reflux) {
          return std::unique_ptr<amr::DeviceStep>(new PlanCheckedStep(
              amr::make_gpu_amr_step(hp, reflux, subcycle, amr::default_group_min, amr::LeafUpdate::units,
                                     amr::RegridCapacity::optimistic, on),
              reflux, subcycle, amr::default_group_min, n));
        };
        const auto dev = amr::run_amr(copa::Backend::serial, base, cfg, ac);
        ASSERT_EQ(dev.tree.key, oracle.tree.key);
        const double l2 = relative_l2(dev.u, oracle.u);
        std::cerr << what << ": " << n.plans << " device plans = host plans (" << n.cubes
                  << " cubes in them); state vs oracle relative L2 " << l2 << "\n";
        EXPECT_GE(n.plans, 1);  // a static band's regrids keep the tree: only the upload's plan
        cubes += n.cubes;
        EXPECT_EQ(dev.steps, oracle.steps);
        EXPECT_LE(std::fabs(dev.t - oracle.t), 1e-12 * oracle.t);
        EXPECT_LT(l2, 1e-12);
        state[on ? 0 : 1] = dev.u;
      }
      EXPECT_LT(relative_l2(state[0], state[1]), 1e-12);
    }
  EXPECT_GT(cubes, 0);
}
