// The step plan built on the device (issue 13, regrid on the GPU): its passes run on the host in
// the kernels' order through the same bodies (emulate_device_plan: the parallel singles/groups
// split and exclusive scans of counts where the device runs CUB scans) must give the host plan
// (build_step_plan: the serial walk, the serial restriction list) field by field on the trees the
// other AMR tests use; the lookups the device plan makes through the uploaded coordinate hash
// must be the host tree's.
#include <array>
#include <iostream>
#include <string>
#include <vector>

#include "amr_driver.hpp"
#include "amr_plan.hpp"
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
