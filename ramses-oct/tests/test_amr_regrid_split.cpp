// The regrid kernels' finer decompositions: the device runs the
// buffer and the 2:1 balance one thread per (oct, slot) and the plan's unit slots one warp per
// unit. The parts must do per oct exactly what the whole-oct bodies do: the same set of cells
// set (not only the same flags after the pass, where a cell set by two octs hides one of them),
// the same error, on the device plan tests' trees and states.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "amr/amr_flags_body.hpp"
#include "amr/amr_plan.hpp"
#include "copa/testing.hpp"
#include "test_amr_flags_cases.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

std::vector<long long> sorted_unique(std::vector<long long> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

TEST(Amr, amr_flags_slot_parts_equal_whole_oct) {
  std::int64_t octs_setting = 0, balance_sets = 0;
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::AmrResult r = case_run(c, base);
    const amr::Tree& t = r.tree;
    const amr::PlanView v = amr::plan_view(t);
    std::vector<char> crit;
    const std::vector<char> flag = host_flags(t, r.u, criterion_of("gradient"), HydroParams{}.gamma, crit);
    // Two flag arrays as the passes' input: the criterion bytes (also on the finest level) and the
    // flags after a regrid's flags (many flagged cells, as the balance reads them).
    for (const std::vector<char>* in : {static_cast<const std::vector<char>*>(&crit), &flag}) {
      SCOPED_TRACE(std::string(c.problem) + " bc " + std::to_string(int(c.bc)));
      for (std::int64_t o = 0; o < t.level_begin[t.max_level]; ++o) {
        std::vector<long long> whole, parts;
        amr::flags_buffer_oct(v, in->data(), o, [&](long long g) { whole.push_back(g); });
        for (int q = 0; q < 27; ++q) amr::flags_buffer_slot(v, in->data(), o, q, [&](long long g) { parts.push_back(g); });
        ASSERT_EQ(sorted_unique(parts), sorted_unique(whole)) << "buffer, oct " << o;
        octs_setting += !whole.empty();
      }
      for (std::int64_t o = t.level_begin[1]; o < t.noct(); ++o) {
        std::vector<long long> whole, parts;
        const bool ok = amr::flags_balance_oct(v, in->data(), o, [&](long long g) { whole.push_back(g); });
        bool ok_parts = true;
        for (int q = 0; q < 27; ++q)
          ok_parts = amr::flags_balance_slot(v, in->data(), o, q, [&](long long g) { parts.push_back(g); }) && ok_parts;
        ASSERT_EQ(ok_parts, ok) << "balance, oct " << o;
        ASSERT_EQ(sorted_unique(parts), sorted_unique(whole)) << "balance, oct " << o;
        balance_sets += static_cast<std::int64_t>(whole.size());
      }
    }
  }
  // Not vacuous: octs whose buffer sets cells, balance stores.
  EXPECT_GT(octs_setting, 0);
  EXPECT_GT(balance_sets, 0);
  std::cerr << octs_setting << " octs whose buffer sets cells, " << balance_sets
            << " balance stores: slot parts = whole-oct bodies\n";
}

TEST(Amr, amr_flags_slot_parts_report_an_unbalanced_tree) {
  // The hand-made three-level tree with every cell flagged: the whole-oct balance fails on some
  // level-2 oct, and so must the union of its slot parts (the device's error word).
  const OctMesh base = build_mesh({8, 8, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  const amr::Tree t = unbalanced_tree(base, 3);
  const amr::PlanView v = amr::plan_view(t);
  const std::vector<char> all(t.noct() * 8, 1);
  int broken = 0;
  for (std::int64_t o = t.level_begin[1]; o < t.noct(); ++o) {
    const bool ok = amr::flags_balance_oct(v, all.data(), o, [](long long) {});
    bool ok_parts = true;
    for (int q = 0; q < 27; ++q) ok_parts = amr::flags_balance_slot(v, all.data(), o, q, [](long long) {}) && ok_parts;
    EXPECT_EQ(ok_parts, ok) << "oct " << o;
    broken += !ok;
  }
  EXPECT_GT(broken, 0);
}
