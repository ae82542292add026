// The step plan built on the device (issue 13, regrid on the GPU): its passes run on the host in
// the kernels' order through the same bodies (emulate_device_plan: the parallel singles/groups
// split and exclusive scans of counts where the device runs CUB scans) must give the host plan
// (build_step_plan: the serial walk, the serial restriction list) field by field on the trees the
// other AMR tests use; the lookups the device plan makes through the uploaded coordinate hash
// must be the host tree's.
#include <algorithm>
#include <array>
#include <iostream>
#include <string>
#include <vector>

#include "amr/amr_driver.hpp"
#include "amr/amr_plan.hpp"
#include "copa/testing.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"
#include "test_amr_plan_compare.hpp"

using namespace ro;
using namespace ro::amr_test;

TEST(Amr, amr_device_plan_emulated_equals_host_plan) {
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::Tree t = case_tree(c, base);
    const amr::StepLists lists = amr::build_step_lists(t);
    ASSERT_GT(t.octs_at(c.levels), 0) << c.problem;
    for (const int groups : {amr::default_group_min, 8, 1, 0})
      for (const bool reflux : {true, false}) {
        const amr::StepPlan host = amr::build_step_plan(t, lists, reflux, groups);
        amr::StepPlan dev;
        amr::emulate_device_plan(t, lists, reflux, dev, groups);
        SCOPED_TRACE(std::string(c.problem) + " bc " + std::to_string(int(c.bc)) + " groups " +
                     std::to_string(groups) + " reflux " + std::to_string(reflux));
        expect_same_plan(dev, host);
        EXPECT_FALSE(host.ghost_flip.empty());
        EXPECT_EQ(host.restrict_begin.size(), static_cast<std::size_t>(c.levels + 1));
        EXPECT_EQ(groups > 0, !host.groups.empty());
        if (groups == amr::default_group_min && reflux)
          std::cerr << c.problem << " bc " << int(c.bc) << ": " << host.leaf_octs.size() << " leaf octs, "
                    << host.singles.size() << " singles, " << host.groups.size() << " groups, "
                    << host.ghost_flip.size() / 7 << " ghosts, " << host.restrict_cell.size()
                    << " restriction pairs: device plan = host plan\n";
      }
  }
}

// The GPU regrid's queued build sizes the plan's arrays by
// bounds it has before the counts: leaf octs <= octs, singles + groups <= leaf octs, groups x
// group_min <= leaf octs (a group's members are a run of at least group_min leaf octs, runs
// disjoint), restriction pairs <= 8 per coarse oct. A count past its bound would write past the
// device arrays: every group_min and tree of the plan tests is checked.
TEST(Amr, amr_queued_plan_bounds_hold) {
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::Tree t = case_tree(c, base);
    const amr::StepLists lists = amr::build_step_lists(t);
    const long long noct = t.noct(), ncoarse = t.level_begin[t.max_level];
    for (int group_min = 0; group_min <= 9; ++group_min) {
      SCOPED_TRACE(std::string(c.problem) + " bc " + std::to_string(int(c.bc)) + " group_min " +
                   std::to_string(group_min));
      const amr::StepPlan p = amr::build_step_plan(t, lists, true, group_min);
      const long long nleaf = static_cast<long long>(p.leaf_octs.size());
      const long long nsingle = static_cast<long long>(p.singles.size());
      const long long ngroup = static_cast<long long>(p.groups.size());
      EXPECT_LE(nleaf, noct);
      EXPECT_LE(nsingle + ngroup, nleaf);
      EXPECT_LE(ngroup, nleaf / std::clamp(group_min, 1, 8));
      EXPECT_LE(static_cast<long long>(p.restrict_cell.size()), 8 * ncoarse);
    }
  }
}

TEST(Amr, amr_device_plan_split_equals_serial_walk) {
  // Complete groups: the parallel split (plan_is_single) reproduces the serial walk "a head and
  // its 7 followers", heads at least 8 leaf octs apart.
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::Tree t = case_tree(c, base);
    const amr::StepPlan p = amr::build_step_plan(t, amr::build_step_lists(t), true, 8);  // complete groups
    long long last = -8;
    for (long long i = 0; i < static_cast<long long>(p.head.size()); ++i)
      if (p.head[i]) {
        EXPECT_GE(i - last, 8) << c.problem << " leaf " << i;
        last = i;
      }
    // Each leaf decides alone: single exactly when the serial walk put it in singles.
    ASSERT_FALSE(p.groups.empty());
    std::vector<bool> in_singles(p.head.size(), false);
    for (const std::int32_t i : p.singles) in_singles[i] = true;
    const amr::PlanView v = amr::plan_view(t);
    std::vector<bool> walked(p.head.size(), true);
    for (std::size_t i = 0; i < p.head.size(); ++i)
      if (p.head[i]) {
        EXPECT_EQ(p.head[i], amr::complete_group) << i;
        for (std::size_t m = i; m < i + 8 && m < walked.size(); ++m) walked[m] = false;
      }
    for (std::size_t i = 0; i < p.head.size(); ++i) {
      EXPECT_EQ(amr::plan_is_single(v, p.leaf_octs.data(), p.head.data(), i), in_singles[i]) << i;
      EXPECT_EQ(walked[i], in_singles[i]) << i;
    }
  }
}

TEST(Amr, amr_device_plan_hash_lookups_equal_tree) {
  // view_find_oct probes the concatenated hash the device receives: every oct is found where it
  // is, and absent coordinates are absent, as Tree::find_oct says.
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::Tree t = case_tree(c, base);
    const amr::PlanView v = amr::plan_view(t);
    long long absent = 0;
    for (int l = 0; l <= t.max_level; ++l) {
      for (std::int64_t o = t.level_begin[l]; o < t.level_begin[l + 1]; ++o)
        ASSERT_EQ(amr::view_find_oct(v, l, t.coord[0][o], t.coord[1][o], t.coord[2][o]), o);
      for (int z = 0; z < t.cells_at(l, 2) / 2; ++z)
        for (int y = 0; y < t.cells_at(l, 1) / 2; ++y)
          for (int x = 0; x < t.cells_at(l, 0) / 2; ++x) {
            const std::int32_t want = t.find_oct(l, x, y, z);
            ASSERT_EQ(amr::view_find_oct(v, l, x, y, z), want);
            absent += want < 0;
          }
    }
    EXPECT_GT(absent, 0) << c.problem;
  }
}
