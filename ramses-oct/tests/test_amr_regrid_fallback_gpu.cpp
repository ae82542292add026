// The regrid's queued lists and plan build (adopt() launches them over bounds and guessed capacities and reads every count at its one wait) and its fallback
// (a count past its guessed capacity: the lists and plan built again with exact sizes). The GPU
// step is run twice, with the optimistic capacities and with starved ones (RegridCapacity::starved:
// half the last counts, so that regrids overflow them and the unit kernels' warps stride over
// several units each), global dt and --subcycle: after every upload and regrid the device lists,
// plan, counts and per-level ranges equal the host's; the starved run takes the fallback and ends
// with the optimistic run's tree, steps, time and state bit for bit, and its report records the count. gpu label: CUDA or HIP builds.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "amr/amr_driver.hpp"
#include "amr/amr_gpu.hpp"
#include "amr/amr_plan.hpp"
#include "amr/amr_run.hpp"
#include "copa/report.hpp"
#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"
#include "test_amr_plan_checked_step.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

amr::AmrResult run_gpu(const OctMesh& base, const RunConfig& cfg, amr::AmrConfig ac, amr::RegridCapacity capacity,
                    PlanChecks& n) {
  const bool subcycle = ac.subcycle;
  ac.device = [&n, subcycle, capacity](const HydroParams& hp, bool reflux) {
    return std::unique_ptr<amr::DeviceStep>(
        new PlanCheckedStep(amr::make_gpu_amr_step(hp, reflux, subcycle, amr::default_group_min, capacity), reflux,
                            subcycle, amr::default_group_min, n));
  };
  return amr::run_amr(copa::Backend::serial, base, cfg, ac);
}

}  // namespace

TEST(Amr, amr_gpu_regrid_fallback_equals_queued_build) {
  const PlanCase cases[] = {{"sedov", {8, 8, 8}, Boundary::reflecting, 3, "gradient", 12},
                            {"sod", {16, 4, 4}, Boundary::outflow, 2, "gradient", 16}};
  for (const PlanCase& c : cases)
    for (const bool subcycle : {false, true}) {
      const std::string what = case_label(c) + " subcycle " +
                               std::to_string(subcycle);
      SCOPED_TRACE(what);
      const OctMesh base = case_mesh(c);
      const RunConfig cfg = case_config(c);
      amr::AmrConfig ac = case_amr(c, 1);
      ac.subcycle = subcycle;
      PlanChecks queued, starved;
      const auto a = run_gpu(base, cfg, ac, amr::RegridCapacity::optimistic, queued);
      const auto b = run_gpu(base, cfg, ac, amr::RegridCapacity::starved, starved);
      std::cerr << what << ": " << a.regrids << " regrids; device plans = host plans: " << queued.plans
                << " optimistic (" << queued.fallbacks << " fallbacks), " << starved.plans << " starved ("
                << starved.fallbacks << " fallbacks)\n";
      EXPECT_GT(a.regrids, 2);
      EXPECT_GT(starved.fallbacks, 0);
      // The JSON's run.problem.amr.regrid_fallbacks is the run's count.
      EXPECT_EQ(b.regrid_fallbacks, starved.fallbacks);
      EXPECT_EQ(a.regrid_fallbacks, queued.fallbacks);
      // The run's report records the starved run's count as one run.fallbacks entry of kind regrid.
      copa::Report rep("ramses-oct", "test");
      amr::add_regrid_fallbacks(rep, b.regrid_fallbacks, b.regrids);
      ASSERT_EQ(rep.fallbacks().size(), 1u);
      EXPECT_EQ(rep.fallbacks()[0]["kind"], "regrid");
      EXPECT_NE(copa::fallback_line(rep.fallbacks()[0]).find(std::to_string(b.regrid_fallbacks) + " of " +
                                                             std::to_string(b.regrids) + " regrids"),
                std::string::npos);
      EXPECT_EQ(b.regrids, a.regrids);
      ASSERT_EQ(b.tree.key, a.tree.key);
      EXPECT_EQ(b.steps, a.steps);
      EXPECT_EQ(b.t, a.t);
      EXPECT_EQ(b.u, a.u);  // bit for bit: the same plan gives the same launches
    }
}
