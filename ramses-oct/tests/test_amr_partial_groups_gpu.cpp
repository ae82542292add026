// Partial sibling groups on the GPU (tuning group-min): the
// GPU step built with group_min 1 (every block with a leaf oct a group, most of them partial) and
// 8 (complete blocks only), global dt and --subcycle, on a cube and a brick domain: after every
// upload and regrid the device plan equals the host plan of the same group_min field by field,
// and the run equals the serial oracle (the same tree, steps and end time, the state to 1e-12).
// gpu label: CUDA or HIP builds.
#include <array>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>

#include "amr/amr_driver.hpp"
#include "amr/amr_gpu.hpp"
#include "amr/amr_plan.hpp"
#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"
#include "test_amr_plan_checked_step.hpp"

using namespace ro;
using namespace ro::amr_test;

TEST(Amr, amr_gpu_partial_groups_equal_oracle) {
  const PlanCase cases[] = {{"sedov", {8, 8, 8}, Boundary::reflecting, 3, "gradient", 12},
                            {"sedov", {12, 8, 10}, Boundary::periodic, 2, "gradient", 10},
                            {"sod", {16, 4, 4}, Boundary::outflow, 2, "gradient", 16}};
  for (const PlanCase& c : cases)
    for (const bool subcycle : {false, true})
      for (const int group_min : {1, 8}) {
        const std::string what = case_label(c) + " subcycle " +
                                 std::to_string(subcycle) + " group_min " + std::to_string(group_min);
        SCOPED_TRACE(what);
        const OctMesh base = case_mesh(c);
        const RunConfig cfg = case_config(c);
        amr::AmrConfig ac = case_amr(c, 2);
        ac.subcycle = subcycle;
        const auto oracle = amr::run_amr(copa::Backend::serial, base, cfg, ac);
        PlanChecks n;
        ac.device = [&n, subcycle, group_min](const HydroParams& hp, bool reflux) {
          return std::unique_ptr<amr::DeviceStep>(new PlanCheckedStep(
              amr::make_gpu_amr_step(hp, reflux, subcycle, group_min), reflux, subcycle, group_min, n));
        };
        const auto dev = amr::run_amr(copa::Backend::serial, base, cfg, ac);
        ASSERT_EQ(dev.tree.key, oracle.tree.key);
        const double l2 = relative_l2(dev.u, oracle.u);
        std::cerr << what << ": " << n.plans << " device plans = host plans (" << n.partial_groups
                  << " partial groups in them), grouped share " << dev.grouped_oct_updates / dev.leaf_oct_updates
                  << "; state vs oracle relative L2 " << l2 << "\n";
        EXPECT_GT(n.plans, 1);
        if (group_min == 1) {
          EXPECT_GT(n.partial_groups, 0);
        } else {
          EXPECT_EQ(n.partial_groups, 0);
        }
        EXPECT_EQ(dev.steps, oracle.steps);
        EXPECT_LE(std::fabs(dev.t - oracle.t), 1e-12 * oracle.t);
        EXPECT_LT(l2, 1e-12);
      }
}
