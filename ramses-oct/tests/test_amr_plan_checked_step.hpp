// The GPU step wrapped so that after every upload and every regrid's adopt its device lists, plan
// and counts are downloaded and compared with the host's for the same tree (field by field), the
// per-level ranges too under --subcycle; it counts the plans checked, the partial groups in them
// and the regrids that took the queued build's fallback. Shared by the gpu tests of the device plan,
// of partial sibling groups and of the regrid's queued build.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "amr/amr_gpu.hpp"
#include "amr/amr_members.hpp"
#include "amr/amr_plan.hpp"
#include "test_amr_forwarding_step.hpp"
#include "test_amr_plan_compare.hpp"

namespace ro::amr_test {

struct PlanChecks {
  long plans = 0, partial_groups = 0;
  long long fallbacks = 0;
};

class PlanCheckedStep final : public ForwardingStep {
 public:
  PlanCheckedStep(std::unique_ptr<amr::DeviceStep> gpu, bool reflux, bool subcycle, int group_min, PlanChecks& n)
      : ForwardingStep(std::move(gpu)), reflux_(reflux), subcycle_(subcycle), group_min_(group_min), n_(n) {}
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
    n_.fallbacks = inner().regrid_fallbacks();
  }

 private:
  void check(const amr::Tree& t) {
    const amr::StepLists l = amr::build_step_lists(t);
    amr::StepLists dl;
    inner().download_lists(dl);
    expect_same_device_lists(dl, l);
    const amr::StepPlan host = amr::build_step_plan(t, l, reflux_, group_min_);
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
    for (const std::uint8_t m : host.group_members) n_.partial_groups += m != amr::complete_group;
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
  int group_min_;
  PlanChecks& n_;
};

}  // namespace ro::amr_test
