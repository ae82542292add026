// The device step's shared launches rest on disjoint cells:
// reflux_restrict_kernel runs the reflux beside the finest restriction, so no cell a reflux face
// writes may be one that restriction writes or reads; restrict_scan_kernel runs the coarsest
// restriction beside the scan, so that restriction may write only covered cells (the scan reads
// leaves). The ranges are chosen as GpuAmrStep::advance chooses them: the levels' restriction
// ranges that hold pairs, finest first. Checked on the plan cases' trees (one to three levels).
// Checked that it can fail: the coarsest range in place of the finest shares 128-512 cells with
// the reflux on the two- and three-level trees (the restriction of level 0 reads refluxed
// level-1 leaves).
#include <cstdint>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "amr/amr_driver.hpp"
#include "amr/amr_plan.hpp"
#include "copa/testing.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"

using namespace ro;
using namespace ro::amr_test;

TEST(Amr, amr_device_step_shared_launches_touch_disjoint_cells) {
  for (const PlanCase& c : plan_cases) {
    const BuiltCase b(c);
    const amr::Tree& t = b.tree;
    const amr::StepLists& lists = b.lists;
    const amr::StepPlan& p = b.plan;
    const std::string& what = b.name;
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    for (std::size_t k = 0; k + 1 < p.restrict_begin.size(); ++k)
      if (p.restrict_begin[k + 1] > p.restrict_begin[k]) ranges.emplace_back(p.restrict_begin[k], p.restrict_begin[k + 1]);
    ASSERT_FALSE(ranges.empty()) << what;
    ASSERT_FALSE(lists.faces.empty()) << what;
    std::vector<char> refluxed(static_cast<std::size_t>(t.noct()) * 8, 0);
    for (const amr::RefluxFace& f : lists.faces) refluxed[f.cell] = 1;
    long long shared = 0, covered_written = 0, leaf_written = 0;
    for (std::int64_t e = ranges.front().first; e < ranges.front().second; ++e) {
      shared += refluxed[p.restrict_cell[e]];
      for (int k = 0; k < 8; ++k) shared += refluxed[p.restrict_son[e] * 8 + k];
    }
    for (std::int64_t e = ranges.back().first; e < ranges.back().second; ++e)
      (t.son[p.restrict_cell[e]] >= 0 ? covered_written : leaf_written) += 1;
    std::cerr << what << ": " << ranges.size() << " restriction launches' ranges, " << lists.faces.size()
              << " reflux faces; cells shared by the reflux and the finest restriction " << shared
              << ", leaf cells the coarsest restriction writes " << leaf_written << " (covered "
              << covered_written << ")\n";
    EXPECT_EQ(shared, 0) << what;
    EXPECT_EQ(leaf_written, 0) << what;
    EXPECT_GT(covered_written, 0) << what;
  }
}
