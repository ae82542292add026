// The block-cyclic layout of the distributed matrix: ScaLAPACK's NUMROC counts, the local/global
// index maps (each global index has exactly one owner, and the maps are inverse), the default
// process grid (MPI_Dims_create's choice with P <= Q) and --proc-grid's parsing.
#include "copa/errors.hpp"
#include "copa/testing.hpp"
#include "distributed/block_cyclic.hpp"

using namespace efie::dist;

TEST(BlockCyclic, numroc_counts_sum_to_n) {
  for (long n : {1L, 7L, 64L, 270L, 1000L})
    for (long nb : {1L, 3L, 20L, 64L, 300L})
      for (int procs : {1, 2, 3, 4}) {
        long sum = 0;
        for (int p = 0; p < procs; ++p) sum += numroc(n, nb, p, procs);
        EXPECT_TRUE(sum == n);
      }
  // 270 rows in blocks of 20 over 3 processes: 14 blocks (the last of 10 rows) -> 5, 5, 4 blocks.
  EXPECT_TRUE(numroc(270, 20, 0, 3) == 100);
  EXPECT_TRUE(numroc(270, 20, 1, 3) == 90);
  EXPECT_TRUE(numroc(270, 20, 2, 3) == 80);
}

TEST(BlockCyclic, one_owner_and_inverse_maps) {
  const long n = 270, nb = 16;
  const ProcGrid grid{2, 3};
  std::vector<int> row_owners(n, 0), col_owners(n, 0);
  double entries = 0;
  for (int rank = 0; rank < 6; ++rank) {
    const BlockCyclic l(n, nb, grid, rank);
    EXPECT_TRUE(l.myrow == rank / 3 && l.mycol == rank % 3);
    entries += l.local_entries();
    for (long g = 0; g < n; ++g) {
      if (l.local_row(g) >= 0) {
        if (l.mycol == 0) ++row_owners[g];
        EXPECT_TRUE(l.global_row(l.local_row(g)) == g);
        EXPECT_TRUE(l.local_row(g) < l.local_rows);
      }
      if (l.local_col(g) >= 0) {
        if (l.myrow == 0) ++col_owners[g];
        EXPECT_TRUE(l.global_col(l.local_col(g)) == g);
        EXPECT_TRUE(l.local_col(g) < l.local_cols);
      }
    }
  }
  for (long g = 0; g < n; ++g) EXPECT_TRUE(row_owners[g] == 1 && col_owners[g] == 1);
  EXPECT_TRUE(entries == double(n) * double(n));
}

TEST(BlockCyclic, default_and_parsed_grids) {
  auto is = [](ProcGrid g, int p, int q) { return g.p == p && g.q == q; };
  EXPECT_TRUE(is(default_proc_grid(1), 1, 1));
  EXPECT_TRUE(is(default_proc_grid(2), 1, 2));
  EXPECT_TRUE(is(default_proc_grid(3), 1, 3));
  EXPECT_TRUE(is(default_proc_grid(4), 2, 2));
  EXPECT_TRUE(is(default_proc_grid(6), 2, 3));
  EXPECT_TRUE(is(default_proc_grid(7), 1, 7));
  EXPECT_TRUE(is(default_proc_grid(12), 3, 4));
  EXPECT_TRUE(is(parse_proc_grid("", 4), 2, 2));
  EXPECT_TRUE(is(parse_proc_grid("4x1", 4), 4, 1));
  for (const char* bad : {"2x2", "3", "0x1", "1x", "x1", "1x1x1", "1y1", "-1x-1"}) {
    bool refused = false;
    try {
      parse_proc_grid(bad, 1);
    } catch (const copa::InputError&) {
      refused = true;
    }
    EXPECT_TRUE(refused);
  }
}
