// The regrid's queued lists and plan build (README "The regrid's count waits": adopt() launches
// them over bounds and guessed capacities and reads every count at its one wait) and its fallback
// (a count past its guessed capacity: the lists and plan built again with exact sizes). The GPU
// step is run twice, with the optimistic capacities and with starved ones (RegridCapacity::starved:
// half the last counts, so that regrids overflow them and the unit kernels' warps stride over
// several units each), global dt and --subcycle: after every upload and regrid the device lists,
// plan, counts and per-level ranges equal the host's; the starved run takes the fallback and ends
// with the optimistic run's tree, steps, time and state bit for bit. gpu label: CUDA or HIP builds.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "amr_driver.hpp"
#include "amr_gpu.hpp"
#include "amr_plan.hpp"
#include "copa/testing.hpp"
#include "reference.hpp"
#include "test_amr_forwarding_step.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"
#include "test_amr_plan_compare.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

struct RegridChecks {
  long plans = 0;
  long long fallbacks = 0;
};

// The GPU step, its lists, plan and counts checked against the host's after every upload and
// adopt, and its fallbacks recorded.
class CountsCheckedStep final : public ForwardingStep {
 public:
  CountsCheckedStep(std::unique_ptr<amr::DeviceStep> gpu, bool reflux, bool subcycle, RegridChecks& n)
      : ForwardingStep(std::move(gpu)), reflux_(reflux), subcycle_(subcycle), n_(n) {}
  void upload(const amr::Tree& t, const std::vector<double>& u) override {
    base_ = t.base;
    inner().upload(t, u);
    check(t);
  }
  void adopt() override {
    inner().adopt();
    amr::Tree t;
    inner().download_tree(t);
    t.base = base_;
    check(t);
    n_.fallbacks = inner().regrid_fallbacks();
  }

 private:
  void check(const amr::Tree& t) {
    const amr::StepLists l = amr::build_step_lists(t);
    amr::StepLists dl;
    inner().download_lists(dl);
    expect_same_device_lists(dl, l);
    const amr::StepPlan host = amr::build_step_plan(t, l, reflux_);
    amr::StepPlan dev;
    inner().download_plan(dev);
    expect_same_plan(dev, host);
    const amr::PlanCounts& c = inner().counts();
    EXPECT_EQ(c.leaf_octs, static_cast<long long>(host.leaf_octs.size()));
    EXPECT_EQ(c.singles, static_cast<long long>(host.singles.size()));
    EXPECT_EQ(c.groups, static_cast<long long>(host.groups.size()));
    EXPECT_EQ(c.ghosts, static_cast<long long>(host.ghost_flip.size() / 7));
    EXPECT_EQ(c.faces, static_cast<long long>(l.faces.size()));
    EXPECT_EQ(c.restrict_begin, host.restrict_begin);
    EXPECT_EQ(inner().leaf_cells_per_level(), t.leaf_cells_per_level());
    if (subcycle_) expect_same_levels(c.levels, amr::emulate_plan_levels(t, host));
    ++n_.plans;
  }
  static void expect_same_levels(const amr::PlanLevels& a, const amr::PlanLevels& b) {
    EXPECT_EQ(a.leaf_begin, b.leaf_begin);
    EXPECT_EQ(a.single_begin, b.single_begin);
    EXPECT_EQ(a.group_begin, b.group_begin);
    EXPECT_EQ(a.single_ghost_begin, b.single_ghost_begin);
    EXPECT_EQ(a.group_ghost_begin, b.group_ghost_begin);
    EXPECT_EQ(a.face_begin, b.face_begin);
    EXPECT_EQ(a.ghosts, b.ghosts);
  }
  const OctMesh* base_ = nullptr;
  bool reflux_, subcycle_;
  RegridChecks& n_;
};

amr::AmrResult run_gpu(const OctMesh& base, const RunConfig& cfg, amr::AmrConfig ac, amr::RegridCapacity capacity,
                    RegridChecks& n) {
  const bool subcycle = ac.subcycle;
  ac.device = [&n, subcycle, capacity](const HydroParams& hp, bool reflux) {
    return std::unique_ptr<amr::DeviceStep>(new CountsCheckedStep(
        amr::make_gpu_amr_step(hp, reflux, subcycle, amr::default_group_min, capacity), reflux, subcycle, n));
  };
  return amr::run_amr(copa::Backend::serial, base, cfg, ac);
}

}  // namespace

TEST(Amr, amr_gpu_regrid_fallback_equals_queued_build) {
  const PlanCase cases[] = {{"sedov", {8, 8, 8}, Boundary::reflecting, 3, "gradient", 12},
                            {"sod", {16, 4, 4}, Boundary::outflow, 2, "gradient", 16}};
  for (const PlanCase& c : cases)
    for (const bool subcycle : {false, true}) {
      const std::string what = std::string(c.problem) + " bc " + std::to_string(int(c.bc)) + " subcycle " +
                               std::to_string(subcycle);
      SCOPED_TRACE(what);
      const OctMesh base = build_mesh(c.base, {c.bc, c.bc, c.bc});
      const RunConfig cfg = amr_config(c.problem, 1.0, c.steps);
      amr::AmrConfig ac = amr_levels(c.levels, c.kind, 1);
      ac.subcycle = subcycle;
      RegridChecks queued, starved;
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
      EXPECT_EQ(b.regrids, a.regrids);
      ASSERT_EQ(b.tree.key, a.tree.key);
      EXPECT_EQ(b.steps, a.steps);
      EXPECT_EQ(b.t, a.t);
      EXPECT_EQ(b.u, a.u);  // bit for bit: the same plan gives the same launches
    }
}
