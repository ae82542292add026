// The step lists and the step plan built on the GPU (issue 13, regrid on the GPU) downloaded after
// every upload (the initial grid and each regrid whose tree changed) must equal the host lists
// (build_step_lists) and plan (build_step_plan) field by field, and the run's state the serial
// oracle's to round-off. gpu label: CUDA or HIP builds.
#include <array>
#include <iostream>
#include <memory>
#include <string>

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

// The GPU step, its device lists and plan checked against the host's after every upload.
class CheckedDeviceStep final : public ForwardingStep {
 public:
  CheckedDeviceStep(std::unique_ptr<amr::DeviceStep> gpu, bool reflux, long& checked)
      : ForwardingStep(std::move(gpu)), reflux_(reflux), checked_(checked) {}
  void upload(const amr::Tree& t, const std::vector<double>& u) override {
    base_ = t.base;
    inner().upload(t, u);
    check(t);
  }
  // After the device rebuild the host tree is stale: the device's, downloaded, is checked.
  void adopt() override {
    inner().adopt();
    amr::Tree t;
    inner().download_tree(t);
    t.base = base_;
    check(t);
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
    ++checked_;
  }
  const OctMesh* base_ = nullptr;
  bool reflux_;
  long& checked_;
};

}  // namespace

TEST(Amr, amr_device_plan_on_the_gpu_equals_host_plan) {
  const PlanCase cases[] = {{"sedov", {12, 8, 10}, Boundary::periodic, 3, "gradient", 10},
                            {"sedov", {8, 8, 8}, Boundary::reflecting, 3, "gradient", 12},
                            {"sod", {16, 4, 4}, Boundary::outflow, 2, "gradient", 16},
                            {"sod", {32, 4, 4}, Boundary::reflecting, 1, "gradient", 30}};
  for (const PlanCase& c : cases) {
    const OctMesh base = build_mesh(c.base, {c.bc, c.bc, c.bc});
    const RunConfig cfg = amr_config(c.problem, 1.0, c.steps);
    amr::AmrConfig ac = amr_levels(c.levels, c.kind, 1);
    const auto oracle = amr::run_amr(copa::Backend::serial, base, cfg, ac);
    long checked = 0;
    ac.device = [&checked](const HydroParams& hp, bool reflux) {
      return std::unique_ptr<amr::DeviceStep>(new CheckedDeviceStep(amr::make_gpu_amr_step(hp, reflux), reflux, checked));
    };
    const auto dev = amr::run_amr(copa::Backend::serial, base, cfg, ac);
    ASSERT_EQ(dev.tree.key, oracle.tree.key) << c.problem;
    const double l2 = relative_l2(dev.u, oracle.u);
    std::cerr << c.problem << " bc " << int(c.bc) << ": " << checked << " device lists and plans = host lists and plans; state vs oracle relative L2 "
              << l2 << "\n";
    EXPECT_GT(checked, 2);
    EXPECT_LT(l2, 1e-12);
  }
}
