// The refinement flags computed on the device (issue 13, regrid on the GPU): the device passes
// run on the host in launch order through the same bodies (emulate_device_flags: the criterion
// kernel, the son pass per level, the buffer storing 1 into a copy of the flags it reads, the
// balance storing 1 into the coarser level) must give the host regrid's criterion bytes and flags
// (criterion_flags, refinement_flags) byte for byte, for every criterion kind on the device plan
// tests' trees; an unbalanced tree must be reported by the device's error word with the host's
// messages.
#include <array>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "amr/amr_flags_body.hpp"
#include "amr/amr_plan.hpp"
#include "amr/amr_regrid_body.hpp"
#include "copa/testing.hpp"
#include "test_amr_flags_cases.hpp"

using namespace ro;
using namespace ro::amr_test;

// The criterion's division-free jump test (jump_exceeds) decides as RAMSES's quotient
// 2|a - b| / (|a| + |b|) > threshold wherever the quotient is not within rounding of the
// threshold, and leaves 0/0 and non-finite pairs unflagged as the quotient's test did.
TEST(Amr, amr_jump_exceeds_decides_as_the_relative_jump) {
  EXPECT_TRUE(amr::jump_exceeds(1.1, 1.0, 0.09));   // 0.0952...
  EXPECT_FALSE(amr::jump_exceeds(1.1, 1.0, 0.1));
  EXPECT_FALSE(amr::jump_exceeds(1.0, 1.1, 0.1));
  EXPECT_TRUE(amr::jump_exceeds(-1.0, 1.0, 1.9));   // 2
  EXPECT_FALSE(amr::jump_exceeds(-1.0, 1.0, 2.0));
  EXPECT_FALSE(amr::jump_exceeds(0.0, 0.0, 0.1));
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(amr::jump_exceeds(nan, 1.0, 0.1));
  EXPECT_FALSE(amr::jump_exceeds(inf, 1.0, 0.1));
  EXPECT_FALSE(amr::jump_exceeds(inf, inf, 0.1));
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> value(-2.0, 2.0), threshold(1e-3, 2.0);
  long decided = 0;
  for (int k = 0; k < 200000; ++k) {
    const double a = value(rng), b = k % 3 ? a * (1 + 0.3 * value(rng)) : value(rng), th = threshold(rng);
    const double s = std::fabs(a) + std::fabs(b);
    const double quotient = s > 0 ? 2 * std::fabs(a - b) / s : 0.0;
    if (std::fabs(quotient - th) <= 1e-12 * th) continue;
    ++decided;
    ASSERT_EQ(amr::jump_exceeds(a, b, th), quotient > th) << a << " " << b << " " << th;
  }
  EXPECT_GT(decided, 199000);
}

TEST(Amr, amr_device_flags_emulated_equal_host_flags) {
  std::int64_t added_gradient = 0, added_band = 0;
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::AmrResult r = case_run(c, base);
    const amr::Tree& t = r.tree;
    const double gamma = HydroParams{}.gamma;
    const std::int64_t ncoarse_cells = t.level_begin[t.max_level] * 8;
    for (const char* kind : criterion_kinds) {
      SCOPED_TRACE(std::string(c.problem) + " bc " + std::to_string(int(c.bc)) + " " + kind);
      const amr::RefineCriterion rc = criterion_of(kind);
      std::vector<char> crit_host, crit_dev, flag_dev;
      const std::vector<char> flag_host = host_flags(t, r.u, rc, gamma, crit_host);
      const unsigned error = amr::emulate_device_flags(t, r.u, amr::criterion_params(rc, gamma, base.dx), crit_dev, flag_dev);
      EXPECT_EQ(error, 0u);
      EXPECT_EQ(crit_dev, crit_host);
      ASSERT_EQ(flag_dev, flag_host);
      // Not a trivial comparison: flags below the finest level, none on it; for the gradient and
      // the band, some leaves flagged by the buffer and balance, not by the criterion (counted
      // over the cases: where the tree already follows the criterion, they fall on refined cells).
      std::int64_t flagged = 0, added = 0;
      for (std::int64_t g = 0; g < t.noct() * 8; ++g) {
        flagged += flag_host[g];
        added += flag_host[g] && !crit_host[g] && t.son[g] < 0;
        if (g >= ncoarse_cells) {
          EXPECT_EQ(flag_host[g], 0);
        }
      }
      if (std::string(kind) == "everywhere") {
        EXPECT_EQ(flagged, ncoarse_cells);
      } else {
        EXPECT_GT(flagged, 0);
        EXPECT_LT(flagged, ncoarse_cells);
        (std::string(kind) == "band" ? added_band : added_gradient) += added;
      }
      std::cerr << c.problem << " bc " << int(c.bc) << " " << kind << ": " << flagged << " of " << ncoarse_cells
                << " cells flagged (" << added << " leaves by the buffer and balance): device flags = host flags\n";
    }
  }
  EXPECT_GT(added_gradient, 0);
  EXPECT_GT(added_band, 0);
}

TEST(Amr, amr_device_flags_report_an_unbalanced_tree) {
  // The device's error word gives the host's RuntimeError: a missing face neighbour in the
  // gradient criterion (levels 2: the level-2 cells at the corner), a missing coarse cell in the
  // balance (levels 3, every cell flagged: the level-2 cells' neighbours lack level-1 holders).
  const OctMesh base = build_mesh({8, 8, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  const ProblemParams pp = amr_config("sedov", 1.0, 1).problem;
  struct Case {
    int levels;
    const char* kind;
    unsigned word;
  };
  for (const Case& k : {Case{2, "gradient", amr::flags_error_missing_neighbour},
                        Case{3, "everywhere", amr::flags_error_unbalanced}}) {
    SCOPED_TRACE(k.kind);
    const amr::Tree t = unbalanced_tree(base, k.levels);
    std::vector<double> u;
    amr::initial_state(t, pp, u);
    const amr::RefineCriterion rc = criterion_of(k.kind);
    std::vector<char> crit, flag;
    const std::string host = thrown_message([&] { host_flags(t, u, rc, pp.gamma, crit); });
    const unsigned word = amr::emulate_device_flags(t, u, amr::criterion_params(rc, pp.gamma, base.dx), crit, flag);
    EXPECT_EQ(word, k.word);
    EXPECT_FALSE(host.empty());
    EXPECT_EQ(thrown_message([&] { amr::check_flags_error(word); }), host);
    std::cerr << k.kind << " on the unbalanced tree of " << k.levels << " levels: error word " << word << ", \"" << host
              << "\"\n";
  }
  EXPECT_EQ(thrown_message([] { amr::check_flags_error(0); }), "");
}

// --refine-buffer (RAMSES's nexpand): b buffer passes. On a tree of one refined level the balance
// adds nothing, so the flags of level 0 after b + 1 passes are exactly those after b passes and
// their 26 neighbours (periodic wrap), checked cell by cell by coordinates; on the three-level
// trees of the plan cases the host and the emulated device agree for b = 0..3 and the flags grow
// with b (each pass keeps the flags before it and, summed over the cases, adds some).
TEST(Amr, amr_refine_buffer_passes_widen_the_flags) {
  {
    const OctMesh base = build_mesh({12, 8, 10}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
    const amr::AmrResult r = amr::run_amr(copa::Backend::serial, base, amr_config("sedov", 1.0, 6),
                                          amr_levels(1, "gradient", 2));
    const amr::Tree& t = r.tree;
    const int n[3] = {t.cells_at(0, 0), t.cells_at(0, 1), t.cells_at(0, 2)};
    // Level-0 cell index by cell coordinates.
    std::vector<std::int64_t> at(std::size_t(n[0]) * n[1] * n[2], -1);
    const auto index = [&](int i, int j, int k) {
      return ((std::size_t((k + n[2]) % n[2]) * n[1]) + (j + n[1]) % n[1]) * n[0] + (i + n[0]) % n[0];
    };
    std::vector<std::array<int, 3>> cell(t.octs_at(0) * 8);
    for (std::int64_t o = 0; o < t.octs_at(0); ++o)
      for (int c = 0; c < 8; ++c) {
        const std::array<int, 3> x = {2 * t.coord[0][o] + (c & 1), 2 * t.coord[1][o] + ((c >> 1) & 1),
                                      2 * t.coord[2][o] + ((c >> 2) & 1)};
        cell[o * 8 + c] = x;
        at[index(x[0], x[1], x[2])] = o * 8 + c;
      }
    amr::RefineCriterion rc = criterion_of("gradient");
    rc.buffer = 0;
    std::vector<char> crit;
    std::vector<char> before = host_flags(t, r.u, rc, HydroParams{}.gamma, crit);
    std::int64_t grown = 0;
    for (int b = 1; b <= 3; ++b) {
      rc.buffer = b;
      const std::vector<char> flag = host_flags(t, r.u, rc, HydroParams{}.gamma, crit);
      for (std::int64_t g = 0; g < t.octs_at(0) * 8; ++g) {
        bool near = false;
        for (int dk = -1; dk <= 1; ++dk)
          for (int dj = -1; dj <= 1; ++dj)
            for (int di = -1; di <= 1; ++di)
              near = near || before[at[index(cell[g][0] + di, cell[g][1] + dj, cell[g][2] + dk)]];
        ASSERT_EQ(bool(flag[g]), near) << "buffer " << b << ", level-0 cell " << g;
        grown += flag[g] && !before[g];
      }
      before = flag;
    }
    EXPECT_GT(grown, 0);
  }
  std::int64_t added[3] = {0, 0, 0};
  for (const PlanCase& c : plan_cases) {
    if (std::string(c.kind) != "gradient") continue;
    OctMesh base;
    const amr::AmrResult r = case_run(c, base);
    const double gamma = HydroParams{}.gamma;
    amr::RefineCriterion rc = criterion_of("gradient");
    std::vector<char> previous;
    for (int b = 0; b <= 3; ++b) {
      SCOPED_TRACE(std::string(c.problem) + " bc " + std::to_string(int(c.bc)) + " buffer " + std::to_string(b));
      rc.buffer = b;
      std::vector<char> crit_host, crit_dev, flag_dev;
      const std::vector<char> flag_host = host_flags(r.tree, r.u, rc, gamma, crit_host);
      EXPECT_EQ(amr::emulate_device_flags(r.tree, r.u, amr::criterion_params(rc, gamma, base.dx), crit_dev, flag_dev), 0u);
      ASSERT_EQ(flag_dev, flag_host);
      if (b > 0) {
        for (std::size_t g = 0; g < flag_host.size(); ++g) {
          ASSERT_TRUE(!previous[g] || flag_host[g]) << "cell " << g << " lost its flag";
          added[b - 1] += flag_host[g] && !previous[g];
        }
      }
      previous = flag_host;
    }
  }
  for (int b = 0; b < 3; ++b) EXPECT_GT(added[b], 0) << "pass " << b + 1 << " added no flag";
  std::cerr << "flags added by the buffer passes 1, 2, 3 over the gradient cases: " << added[0] << ", " << added[1]
            << ", " << added[2] << "\n";
}
