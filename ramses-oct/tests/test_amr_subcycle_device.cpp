// Level subcycling on the device step (--subcycle on cuda/hip, GpuAmrStep::advance_subcycled),
// checked where there is no GPU: (1) the plan's per-level ranges, as the device derives them from
// its scans (plan_level_ranges through emulate_plan_levels), against what the host lists and plan
// hold level by level; (2) the device's subcycled coarse step emulated on the host (the same
// recursion, per-level slices, sums, reflux factor, commit and restriction, through the GPU
// bodies: emulate_plan_subcycled_step) driven by the GPU path's driver (device regrid, the leaf
// updates counted from the device's leaf cells per level) against the serial oracle's subcycled run.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "amr/amr_driver.hpp"
#include "amr/amr_plan.hpp"
#include "hydro/reference.hpp"
#include "copa/testing.hpp"
#include "test_amr_emulated_step.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

// The number of entries of sorted v below x.
long long below(const std::vector<std::int32_t>& v, long long x) {
  return std::lower_bound(v.begin(), v.end(), x) - v.begin();
}

}  // namespace

TEST(AmrSubcycle, amr_subcycle_device_level_ranges_equal_host_lists_and_plan) {
  for (const PlanCase& c : plan_cases) {
    const BuiltCase b(c);
    const amr::Tree& t = b.tree;
    const amr::StepLists& lists = b.lists;
    const amr::StepPlan& p = b.plan;
    const amr::PlanLevels lv = amr::emulate_plan_levels(t, p);
    SCOPED_TRACE(b.name);
    const int L = t.max_level;
    ASSERT_EQ(lv.leaf_begin.size(), std::size_t(L + 2));
    ASSERT_EQ(lv.face_begin.size(), std::size_t(L + 1));
    const long long nsingle = static_cast<long long>(p.singles.size());
    EXPECT_EQ(lv.ghosts, p.ghost_begin.back());
    // The ends: every list whole, the singles' ghosts before the groups'.
    EXPECT_EQ(lv.single_begin[L + 1], nsingle);
    EXPECT_EQ(lv.group_begin[L + 1], static_cast<long long>(p.groups.size()));
    EXPECT_EQ(lv.single_ghost_begin[0], 0);
    EXPECT_EQ(lv.single_ghost_begin[L + 1], lv.group_ghost_begin[0]);
    EXPECT_EQ(lv.group_ghost_begin[L + 1], lv.ghosts);
    EXPECT_EQ(lv.face_begin[0], 0);
    EXPECT_EQ(lv.face_begin[L], static_cast<long long>(lists.faces.size()));
    long long ghosts_seen = 0;
    for (int l = 0; l <= L; ++l) {
      // Leaf octs: the serial host lists' level bounds, and every entry in range of level l.
      EXPECT_EQ(lv.leaf_begin[l], lists.leaf_octs_begin[l]);
      for (long long i = lv.leaf_begin[l]; i < lv.leaf_begin[l + 1]; ++i) EXPECT_EQ(t.level[p.leaf_octs[i]], l);
      // Singles and groups (the serial walk's): the units whose leaf index lies in level l's range.
      EXPECT_EQ(lv.single_begin[l], below(p.singles, lv.leaf_begin[l]));
      EXPECT_EQ(lv.group_begin[l], below(p.groups, lv.leaf_begin[l]));
      for (long long j = lv.single_begin[l]; j < lv.single_begin[l + 1]; ++j)
        EXPECT_EQ(t.level[p.leaf_octs[p.singles[j]]], l);
      for (long long j = lv.group_begin[l]; j < lv.group_begin[l + 1]; ++j)
        for (int m = 0; m < amr::member_rank(p.group_members[j], 8); ++m) EXPECT_EQ(t.level[p.leaf_octs[p.groups[j] + m]], l);
      // Ghosts: exactly those of level l's units, each prolonged from a cell of level l - 1.
      EXPECT_EQ(lv.single_ghost_begin[l], p.ghost_begin[lv.single_begin[l]]);
      EXPECT_EQ(lv.group_ghost_begin[l], p.ghost_begin[nsingle + lv.group_begin[l]]);
      for (const auto& [first, last] : {std::pair{lv.single_ghost_begin[l], lv.single_ghost_begin[l + 1]},
                                        std::pair{lv.group_ghost_begin[l], lv.group_ghost_begin[l + 1]}}) {
        EXPECT_LE(first, last);
        ghosts_seen += last - first;
        for (long long g = first; g < last; ++g) EXPECT_EQ(t.level[p.ghost_src[7 * g] / 8], l - 1);
      }
      // Reflux faces of level l's coarse cells.
      if (l < L) {
        for (long long e = lv.face_begin[l]; e < lv.face_begin[l + 1]; ++e)
          EXPECT_EQ(t.level[lists.faces[e].cell / 8], l);
      }
    }
    EXPECT_EQ(ghosts_seen, lv.ghosts);
    std::cerr << c.problem << " bc " << int(c.bc) << ": per level leaf octs";
    for (int l = 0; l <= L; ++l) std::cerr << " " << lv.leaf_begin[l + 1] - lv.leaf_begin[l];
    std::cerr << ", ghosts " << lv.ghosts << ", reflux faces " << lists.faces.size() << ": ranges = host lists/plan\n";
  }
}

TEST(AmrSubcycle, amr_subcycle_emulated_device_step_equals_serial) {
  // Sedov base 8^3 + 2 levels (periodic), and Sod base 16 x 4 x 4 + 2 levels with reflecting
  // (mirrored ghost cells on every y and z face) and outflow faces, a regrid every 2 coarse steps
  // (the device regrid's emulation in between), with and without refluxing.
  const PlanCase cases[] = {{"sedov", {8, 8, 8}, Boundary::periodic, 2, "gradient", 8},
                            {"sod", {16, 4, 4}, Boundary::reflecting, 2, "gradient", 12},
                            {"sod", {16, 4, 4}, Boundary::outflow, 2, "gradient", 12}};
  for (const PlanCase& c : cases)
    for (const bool reflux : {true, false}) {
      const OctMesh base = case_mesh(c);
      const RunConfig cfg = case_config(c);
      amr::AmrConfig ac = case_amr(c, 2);
      ac.subcycle = true;
      ac.reflux = reflux;
      const auto oracle = amr::run_amr(copa::Backend::serial, base, cfg, ac);
      EmulatedCounts n;
      ac.device = emulated_device(n);
      const auto dev = amr::run_amr(copa::Backend::serial, base, cfg, ac);
      const std::string what = std::string(c.problem) + " bc " + std::to_string(int(c.bc)) + " reflux " +
                               std::to_string(reflux);
      SCOPED_TRACE(what);
      ASSERT_TRUE(dev.tree.key == oracle.tree.key);
      ASSERT_EQ(dev.u.size(), oracle.u.size());
      const double diff = relative_l2(dev.u, oracle.u);
      std::cerr << what << ": " << dev.steps << " coarse steps, " << n.moves << " tree changes, octs per level "
                << dev.tree.octs_at(0) << "/" << dev.tree.octs_at(1) << "/" << dev.tree.octs_at(2)
                << ", emulated device - serial relative L2 " << diff << ", mass change "
                << rel_change(dev.final.mass, dev.initial.mass) << "\n";
      EXPECT_LT(diff, 1e-13);
      EXPECT_EQ(dev.steps, oracle.steps);
      EXPECT_EQ(n.subcycled_steps, dev.steps);
      EXPECT_GT(n.moves, 0);
      EXPECT_GT(dev.tree.octs_at(2), 0);
      // The driver counts the substeps' leaf updates from the device's leaf cells per level, and
      // the sibling groups' share from the per-level ranges (level l's groups 2^l times).
      EXPECT_EQ(dev.leaf_cell_updates, oracle.leaf_cell_updates);
      EXPECT_EQ(dev.grouped_oct_updates, double(n.grouped_oct_updates));
      EXPECT_GT(n.group_updates, 0);
      EXPECT_LE(dev.grouped_oct_updates, dev.leaf_oct_updates);
      COPA_EXPECT_NEAR_REL(dev.t, oracle.t, 1e-13);
    }
}
