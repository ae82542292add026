// The step lists and the step plan built on the GPU (the regrid on the GPU) downloaded after
// every upload (the initial grid and each regrid whose tree changed) must equal the host lists
// (build_step_lists) and plan (build_step_plan) field by field, and the run's state the serial
// oracle's to round-off. gpu label: CUDA or HIP builds.
#include <array>
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

TEST(Amr, amr_device_plan_on_the_gpu_equals_host_plan) {
  const PlanCase cases[] = {{"sedov", {12, 8, 10}, Boundary::periodic, 3, "gradient", 10},
                            {"sedov", {8, 8, 8}, Boundary::reflecting, 3, "gradient", 12},
                            {"sod", {16, 4, 4}, Boundary::outflow, 2, "gradient", 16},
                            {"sod", {32, 4, 4}, Boundary::reflecting, 1, "gradient", 30}};
  for (const PlanCase& c : cases) {
    const OctMesh base = case_mesh(c);
    const RunConfig cfg = case_config(c);
    amr::AmrConfig ac = case_amr(c, 1);
    const auto oracle = amr::run_amr(copa::Backend::serial, base, cfg, ac);
    PlanChecks n;
    ac.device = [&n](const HydroParams& hp, bool reflux) {
      return std::unique_ptr<amr::DeviceStep>(
          new PlanCheckedStep(amr::make_gpu_amr_step(hp, reflux), reflux, false, amr::default_group_min, n));
    };
    const auto dev = amr::run_amr(copa::Backend::serial, base, cfg, ac);
    ASSERT_EQ(dev.tree.key, oracle.tree.key) << c.problem;
    const double l2 = relative_l2(dev.u, oracle.u);
    std::cerr << c.problem << " bc " << int(c.bc) << ": " << n.plans << " device lists and plans = host lists and plans; state vs oracle relative L2 "
              << l2 << "\n";
    EXPECT_GT(n.plans, 2);
    EXPECT_LT(l2, 1e-12);
  }
}
