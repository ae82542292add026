// interchange_sources (panel_2d.hpp): the net permutation of a panel's row interchanges, which the
// P x Q Pliris-style LU exchanges between process rows in one go, must equal LAPACK's laswp order
// (k0 + j <-> pivots[j], j = 0..w-1, one after the other) applied to the rows.
#include <numeric>
#include <random>

#include "copa/testing.hpp"
#include "distributed/panel_2d.hpp"

using namespace efie::dist;

namespace {
// laswp on the row labels 0..n-1: the label each row holds afterwards.
std::vector<long> sequential_swaps(long n, long k0, const std::vector<long>& pivots) {
  std::vector<long> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), 0L);
  for (std::size_t j = 0; j < pivots.size(); ++j) std::swap(rows[std::size_t(k0) + j], rows[std::size_t(pivots[j])]);
  return rows;
}
}  // namespace

TEST(Interchanges, net_permutation_equals_sequential_swaps) {
  std::mt19937 gen(7);
  const long n = 90;
  for (long k0 : {0L, 16L, 80L})
    for (int trial = 0; trial < 50; ++trial) {
      const long w = std::min(16L, n - k0);
      std::vector<long> pivots(static_cast<std::size_t>(w));
      for (long j = 0; j < w; ++j) pivots[std::size_t(j)] = std::uniform_int_distribution<long>(k0 + j, n - 1)(gen);
      const std::vector<long> expected = sequential_swaps(n, k0, pivots);
      const auto source = interchange_sources(k0, w, pivots.data());
      for (long r = 0; r < n; ++r) {
        const auto it = source.find(r);
        const long got = it == source.end() ? r : it->second;
        EXPECT_TRUE(got == expected[std::size_t(r)]);
      }
      for (const auto& [r, s] : source) EXPECT_TRUE(r != s);  // only the rows that move
    }
}

TEST(Interchanges, no_pivoting_moves_nothing) {
  const std::vector<long> pivots{4, 5, 6, 7};
  EXPECT_TRUE(interchange_sources(4, 4, pivots.data()).empty());
}

TEST(Interchanges, a_cycle_through_one_row) {
  // rows 0 <-> 5, then 1 <-> 5: row 0 gets old 5, row 1 old 0, row 5 old 1
  const std::vector<long> pivots{5, 5};
  const auto source = interchange_sources(0, 2, pivots.data());
  EXPECT_TRUE(source.size() == 3);
  EXPECT_TRUE(source.at(0) == 5 && source.at(1) == 0 && source.at(5) == 1);
}
