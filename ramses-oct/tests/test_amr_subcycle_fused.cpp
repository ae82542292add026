// The premises of the device's fused subcycled launches,
// on the plan cases' trees (one to three levels; periodic, reflecting and outflow faces):
// (1) the commit of level l (unew -> u on its leaf cells) and the restriction of level l + 1 into
// level l's covered cells share one launch, so the cells one writes are neither written nor read
// by the other; (2) nothing zeroes the fine-flux sums: a level's first substep starts every sum
// element it keeps (block::flux_sum_add), which serves the reflux only if every reflux face of
// level l - 1 reads a kept face of a leaf oct of level l (written by each substep), and every kept
// face is read by exactly one reflux face (none is summed for nothing or refluxed twice).
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "amr/amr_driver.hpp"
#include "amr/amr_plan.hpp"
#include "copa/testing.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"

using namespace ro;
using namespace ro::amr_test;

TEST(AmrSubcycle, amr_subcycle_commit_and_restriction_touch_disjoint_cells) {
  for (const PlanCase& c : plan_cases) {
    const BuiltCase b(c);
    const amr::Tree& t = b.tree;
    const amr::StepPlan& p = b.plan;
    const amr::PlanLevels lv = amr::emulate_plan_levels(t, p);
    SCOPED_TRACE(b.name);
    long long committed_total = 0, restricted_total = 0;
    for (int l = 0; l < t.max_level; ++l) {
      if (t.octs_at(l + 1) == 0) continue;
      // The cells the commit writes (and reads in unew): level l's leaf cells.
      std::vector<char> committed(static_cast<std::size_t>(t.noct()) * 8, 0);
      for (long long i = lv.leaf_begin[l]; i < lv.leaf_begin[l + 1]; ++i)
        for (int k = 0; k < 8; ++k) {
          const std::int64_t g = std::int64_t(p.leaf_octs[i]) * 8 + k;
          if (t.son[g] < 0) committed[g] = 1, ++committed_total;
        }
      // The restriction pairs advance_subcycled takes for level l.
      const std::size_t k = static_cast<std::size_t>(t.max_level - 1 - l);
      long long shared = 0;
      for (std::int64_t e = p.restrict_begin[k]; e < p.restrict_begin[k + 1]; ++e) {
        const std::int64_t cell = p.restrict_cell[e], son = p.restrict_son[e];
        EXPECT_EQ(t.level[cell / 8], l);
        EXPECT_GE(t.son[cell], 0);
        EXPECT_EQ(t.level[son], l + 1);
        shared += committed[cell];
        for (int s = 0; s < 8; ++s) shared += committed[son * 8 + s];
        ++restricted_total;
      }
      EXPECT_EQ(shared, 0) << "level " << l;
    }
    std::cerr << b.name << ": " << committed_total << " committed leaf cells and " << restricted_total
              << " restricted cells on the refined levels' visits, none shared\n";
    EXPECT_GT(committed_total, 0);
    EXPECT_GT(restricted_total, 0);
  }
}

TEST(AmrSubcycle, amr_subcycle_every_kept_fine_face_is_read_by_one_reflux_face) {
  for (const PlanCase& c : plan_cases) {
    const BuiltCase b(c);
    const amr::Tree& t = b.tree;
    const amr::StepLists& lists = b.lists;
    const amr::StepPlan& p = b.plan;
    SCOPED_TRACE(b.name);
    // Per (oct, face): the reflux faces that read its sums, and whether a leaf oct keeps it.
    std::vector<int> reads(static_cast<std::size_t>(t.noct()) * 6, 0);
    std::vector<char> kept(static_cast<std::size_t>(t.noct()) * 6, 0);
    for (const amr::RefluxFace& f : lists.faces) {
      EXPECT_EQ(t.level[f.fine_oct], t.level[f.cell / 8] + 1);
      ++reads[std::size_t(f.fine_oct) * 6 + (f.face ^ 1)];
    }
    long long kept_faces = 0, unread = 0, read_twice = 0, read_not_kept = 0;
    for (std::size_t i = 0; i < p.leaf_octs.size(); ++i)
      for (int f = 0; f < 6; ++f)
        if ((p.keep[i] >> f) & 1) {
          const std::size_t at = std::size_t(p.leaf_octs[i]) * 6 + f;
          kept[at] = 1;
          ++kept_faces;
          unread += reads[at] == 0;
          read_twice += reads[at] > 1;
        }
    for (std::size_t at = 0; at < reads.size(); ++at) read_not_kept += reads[at] > 0 && !kept[at];
    std::cerr << b.name << ": " << kept_faces << " kept fine faces, " << lists.faces.size()
              << " reflux faces; unread " << unread << ", read twice " << read_twice << ", read but not kept "
              << read_not_kept << "\n";
    EXPECT_GT(kept_faces, 0);
    EXPECT_EQ(kept_faces, static_cast<long long>(lists.faces.size()));
    EXPECT_EQ(unread, 0);
    EXPECT_EQ(read_twice, 0);
    EXPECT_EQ(read_not_kept, 0);
  }
}
