// The index maps of the GPU AMR step's leaf block (amr_leaf_block.hpp) and its dt scan, checked
// on the host: the compact gather list is exactly the subgrid cells the predictor reads, the
// predictor index inverts predictor_cell, and the scan's per-cell body maximised as bits gives
// the oracle's per-level speeds (to an ulp of FMA contraction) and its bad cell.
#include <set>

#include "amr_driver.hpp"
#include "amr_leaf_block.hpp"
#include "amr_plan.hpp"
#include "copa/testing.hpp"
#include "test_amr_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;
namespace block = ro::amr::block;

TEST(Amr, amr_gpu_leaf_block_index_maps) {
  for (const int T : {2, 4})
    for (int m = 0; m < predictor_cells(T); ++m) {
      int i, j, k;
      predictor_cell(m, T, i, j, k);
      EXPECT_EQ(predictor_index(i, j, k, T), m) << "T " << T << " m " << m;
    }
  // Every gathered cell once, its index its position in the list.
  std::set<int> gathered;
  for (int m = 0; m < block::Q; ++m) {
    int tc[3];
    block::gather_cell(m, tc);
    for (int d = 0; d < 3; ++d) ASSERT_TRUE(tc[d] >= 0 && tc[d] < 6) << m;
    EXPECT_EQ(block::gather_index(tc), m);
    // Never in a corner slot (the plan gives those no ghost: amr::is_corner_slot).
    EXPECT_FALSE(amr::is_corner_slot(tc[0] / 2 + 3 * (tc[1] / 2) + 9 * (tc[2] / 2))) << m;
    gathered.insert(tc[0] + 6 * (tc[1] + 6 * tc[2]));
  }
  EXPECT_EQ(gathered.size(), std::size_t(block::Q));
  // The cells the predictor reads (each predictor cell and its six face neighbours) are exactly
  // the gathered ones.
  std::set<int> read;
  ASSERT_EQ(predictor_cells(block::T), block::P);
  for (int m = 0; m < block::P; ++m) {
    int e[3];
    predictor_cell(m, block::T, e[0], e[1], e[2]);
    for (int n = 0; n < 7; ++n) {
      int tc[3] = {e[0] + 1, e[1] + 1, e[2] + 1};
      if (n > 0) tc[(n - 1) / 2] += (n - 1) % 2 ? 1 : -1;
      read.insert(tc[0] + 6 * (tc[1] + 6 * tc[2]));
    }
  }
  EXPECT_EQ(read, gathered);
}

TEST(Amr, amr_gpu_scan_body_equals_oracle_scan) {
  // Sedov on three levels (reflecting) after some steps: per-level maxima and no bad cell; then a
  // leaf cell of each level made unphysical: the lowest of them is the bad cell in both.
  const OctMesh base = build_mesh({8, 8, 8}, {Boundary::reflecting, Boundary::reflecting, Boundary::reflecting});
  auto r = amr::run_amr(copa::Backend::serial, base, amr_config("sedov", 1.0, 6), amr_levels(3, "gradient", 2));
  const amr::Tree& t = r.tree;
  ASSERT_GT(t.octs_at(3), 0);
  const double gamma = 1.4;
  const auto loops = amr::make_serial_loops();
  for (int round = 0; round < 2; ++round) {
    const amr::LeafScan want = amr::scan_leaves(t, r.u, gamma, *loops);
    const amr::LeafScan got = amr::emulate_leaf_scan(t, r.u, gamma);
    ASSERT_EQ(got.max_speed.size(), want.max_speed.size());
    for (std::size_t l = 0; l < want.max_speed.size(); ++l) {
      EXPECT_GT(want.max_speed[l], 0.0);
      // The same formula; the oracle's loop is compiled elsewhere (vectorised), and FMA contraction
      // differs by an ulp there (seen: level 3, 2.8e-14 of 224.03), as between host and device.
      EXPECT_NEAR(got.max_speed[l], want.max_speed[l], 1e-14 * want.max_speed[l]) << "level " << l;
    }
    EXPECT_EQ(got.bad_cell, want.bad_cell);
    if (round == 0) {
      EXPECT_EQ(want.bad_cell, -1);
      // One leaf cell per level past the first made unphysical (negative density).
      for (int l = 1; l <= t.max_level; ++l)
        for (std::int64_t g = t.level_begin[l] * 8; g < t.level_begin[l + 1] * 8; ++g)
          if (t.son[g] < 0) {
            r.u[g] = -1.0;
            break;
          }
    } else {
      EXPECT_GE(want.bad_cell, t.level_begin[1] * 8);
    }
  }
}
