// The leaf update by cells on the GPU (--leaf-update cells, amr_leaf_cells.hpp): the GPU step
// built with it, global dt (the device dt) and --subcycle, group_min 1 (partial groups) and the
// default, on periodic (the lean pass 2 kernel), reflecting and outflow domains, and without
// reflux (covered neighbours predicted where read): the run equals the serial oracle (the same
// tree, steps and end time, the state to 1e-12). gpu label: CUDA or HIP builds.
#include <cmath>
#include <iostream>
#include <memory>
#include <string>

#include "amr_driver.hpp"
#include "amr_gpu.hpp"
#include "amr_plan.hpp"
#include "copa/testing.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"

using namespace ro;
using namespace ro::amr_test;

TEST(Amr, amr_gpu_leaf_update_by_cells_equals_oracle) {
  const PlanCase cases[] = {{"sedov", {8, 8, 8}, Boundary::periodic, 2, "gradient", 12},
                            {"sedov", {8, 8, 8}, Boundary::reflecting, 3, "gradient", 12},
                            {"sod", {16, 4, 4}, Boundary::outflow, 2, "gradient", 16}};
  for (const PlanCase& c : cases)
    for (const bool subcycle : {false, true})
      for (const int group_min : {1, amr::default_group_min})
        for (const bool reflux : {true, false}) {
          if (!reflux && (subcycle || group_min == 1)) continue;
          const std::string what = std::string(c.problem) + " bc " + std::to_string(int(c.bc)) + " subcycle " +
                                   std::to_string(subcycle) + " group_min " + std::to_string(group_min) +
                                   " reflux " + std::to_string(reflux);
          SCOPED_TRACE(what);
          const OctMesh base = build_mesh(c.base, {c.bc, c.bc, c.bc});
          const RunConfig cfg = amr_config(c.problem, 1.0, c.steps);
          amr::AmrConfig ac = amr_levels(c.levels, c.kind, 2);
          ac.subcycle = subcycle;
          ac.reflux = reflux;
          const auto oracle = amr::run_amr(copa::Backend::serial, base, cfg, ac);
          ac.device = [subcycle, group_min](const HydroParams& hp, bool rf) {
            return amr::make_gpu_amr_step(hp, rf, subcycle, group_min, amr::LeafUpdate::cells);
          };
          const auto dev = amr::run_amr(copa::Backend::serial, base, cfg, ac);
          ASSERT_EQ(dev.tree.key, oracle.tree.key);
          const double l2 = relative_l2(dev.u, oracle.u);
          std::cerr << what << ": " << dev.regrids << " regrids, state vs oracle relative L2 " << l2 << "\n";
          EXPECT_EQ(dev.steps, oracle.steps);
          EXPECT_LE(std::fabs(dev.t - oracle.t), 1e-12 * oracle.t);
          EXPECT_LT(l2, 1e-12);
        }
}
