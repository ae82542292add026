// The GPU step's restriction in one pass (block::restricted_value: every covered cell averaged
// down to the leaves, all levels at once) against the level-by-level restriction (restrict_cell
// over the plan's pairs, finest level first): the same bits, whatever the order of the pairs, and
// without reading any covered cell's old value.
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>

#include "amr_driver.hpp"
#include "amr_leaf_block.hpp"
#include "amr_plan.hpp"
#include "copa/testing.hpp"
#include "test_amr_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;
namespace block = ro::amr::block;

TEST(Amr, amr_gpu_restriction_pass_equals_level_by_level) {
  for (const Boundary bc : {Boundary::periodic, Boundary::reflecting}) {
    const OctMesh base = build_mesh({8, 8, 8}, {bc, bc, bc});
    auto r = amr::run_amr(copa::Backend::serial, base, amr_config("sedov", 1.0, 6), amr_levels(3, "gradient", 2));
    const amr::Tree& t = r.tree;
    ASSERT_EQ(t.max_level, 3);
    const amr::StepLists lists = amr::build_step_lists(t);
    const amr::StepPlan p = amr::build_step_plan(t, lists, true);
    const long long stride = t.noct() * 8;
    ASSERT_FALSE(p.restrict_begin.empty());
    ASSERT_EQ(p.restrict_begin.front(), 0);
    const std::int64_t npairs = p.restrict_begin.back();
    ASSERT_GT(npairs, 0);
    // Leaf values made irregular (so the sums' order shows), some momenta -0.0 (the sign of a
    // zero sum depends on the first term).
    std::vector<double> u = r.u;
    for (long long g = 0; g < stride; ++g) {
      if (t.son[g] >= 0) continue;
      for (int f = 0; f < nvar; ++f) u[f * stride + g] *= 1.0 + 1e-3 * std::sin(double(g * nvar + f));
      if (g % 7 == 0) u[1 * stride + g] = -0.0;
    }
    std::vector<double> want = u;
    for (std::size_t k = 0; k + 1 < p.restrict_begin.size(); ++k)
      for (std::int64_t e = p.restrict_begin[k]; e < p.restrict_begin[k + 1]; ++e)
        amr::restrict_cell(want.data(), stride, p.restrict_cell[e], p.restrict_son[e]);
    // The pass reads no covered cell: they start as NaN; pairs taken coarsest first.
    std::vector<double> got = u;
    for (long long g = 0; g < stride; ++g)
      if (t.son[g] >= 0)
        for (int f = 0; f < nvar; ++f) got[f * stride + g] = std::numeric_limits<double>::quiet_NaN();
    long long deep = 0;  // pairs whose son oct has a covered cell (the pass recurses)
    for (std::int64_t e = npairs - 1; e >= 0; --e) {
      bool recurses = false;
      for (int c = 0; c < 8; ++c) recurses = recurses || t.son[p.restrict_son[e] * 8 + c] >= 0;
      deep += recurses;
      for (int f = 0; f < nvar; ++f)
        got[f * stride + p.restrict_cell[e]] = block::restricted_value(got.data(), stride, t.son.data(), p.restrict_son[e], f);
    }
    EXPECT_GT(deep, 0);
    long long covered = 0, differ = 0;
    for (long long g = 0; g < stride; ++g) {
      if (t.son[g] < 0) continue;
      ++covered;
      for (int f = 0; f < nvar; ++f)
        differ += std::memcmp(&got[f * stride + g], &want[f * stride + g], sizeof(double)) != 0;
    }
    EXPECT_EQ(covered, npairs);
    EXPECT_EQ(differ, 0) << "of " << covered * nvar << " covered values";
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(double)), 0);
    std::cerr << "bc " << int(bc) << ": " << npairs << " restriction pairs on " << p.restrict_begin.size() - 1
              << " levels, " << deep << " of them over a covered son cell; " << differ << " values differ\n";
  }
}
