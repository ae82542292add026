// The index maps of the GPU AMR step's leaf block (amr_leaf_block.hpp) and its dt scan, checked
// on the host: the compact gather list is exactly the subgrid cells the predictor reads, the
// predictor index inverts predictor_cell, and the scan's per-cell body maximised as bits gives
// the oracle's per-level speeds (to an ulp of FMA contraction) and its bad cell.
#include <algorithm>
#include <set>

#include "amr/amr_driver.hpp"
#include "amr/amr_leaf_block.hpp"
#include "amr/amr_plan.hpp"
#include "copa/testing.hpp"
#include "test_amr_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;
namespace block = ro::amr::block;

namespace {

// For a unit of T^3 cells: every gathered cell once, its index its position in the list, never in
// a corner oct slot (those get no ghost), and the cells the predictor reads (each predictor cell
// and its six face neighbours) exactly the gathered ones.
template <int T>
void expect_gather_list_is_predictor_stencil() {
  using U = block::Unit<T>;
  std::set<int> gathered;
  const int S = T + 4;
  for (int m = 0; m < U::Q; ++m) {
    int tc[3];
    block::gather_cell<T>(m, tc);
    for (int d = 0; d < 3; ++d) ASSERT_TRUE(tc[d] >= 0 && tc[d] < S) << "T " << T << " m " << m;
    EXPECT_EQ(block::gather_index<T>(tc), m) << "T " << T;
    int outside = 0;
    for (int d = 0; d < 3; ++d) outside += tc[d] / 2 == 0 || tc[d] / 2 == U::S - 1;
    EXPECT_LT(outside, 3) << "T " << T << " m " << m;
    gathered.insert(tc[0] + S * (tc[1] + S * tc[2]));
  }
  EXPECT_EQ(gathered.size(), std::size_t(U::Q));
  std::set<int> read;
  ASSERT_EQ(predictor_cells(T), U::P);
  for (int m = 0; m < U::P; ++m) {
    int e[3];
    predictor_cell(m, T, e[0], e[1], e[2]);
    for (int n = 0; n < 7; ++n) {
      int tc[3] = {e[0] + 1, e[1] + 1, e[2] + 1};
      if (n > 0) tc[(n - 1) / 2] += (n - 1) % 2 ? 1 : -1;
      read.insert(tc[0] + S * (tc[1] + S * tc[2]));
    }
  }
  EXPECT_EQ(read, gathered);
}

}  // namespace

TEST(Amr, amr_gpu_leaf_block_index_maps) {
  for (const int T : {2, 4})
    for (int m = 0; m < predictor_cells(T); ++m) {
      int i, j, k;
      predictor_cell(m, T, i, j, k);
      EXPECT_EQ(predictor_index(i, j, k, T), m) << "T " << T << " m " << m;
    }
  expect_gather_list_is_predictor_stencil<2>();
  expect_gather_list_is_predictor_stencil<4>();
  // The oct unit's corner test is the plan's (amr::is_corner_slot).
  for (int m = 0; m < block::Q; ++m) {
    int tc[3];
    block::gather_cell<2>(m, tc);
    EXPECT_FALSE(amr::is_corner_slot(tc[0] / 2 + 3 * (tc[1] / 2) + 9 * (tc[2] / 2))) << m;
  }
  // The work per leaf cell the README quotes: per oct 80 gathered cells, 32 predictors and 36
  // faces; per sibling group 304, 160 and 240.
  EXPECT_EQ(block::Unit<2>::Q, 80);
  EXPECT_EQ(block::Unit<2>::P, 32);
  EXPECT_EQ(3 * block::Unit<2>::F, 36);
  EXPECT_EQ(block::Unit<4>::Q, 304);
  EXPECT_EQ(block::Unit<4>::P, 160);
  EXPECT_EQ(3 * block::Unit<4>::F, 240);
}

TEST(Amr, amr_gpu_group_slot_map) {
  // Group slot (4^3) -> member and its own slot (3^3): the member is the one nearest the slot, the
  // slot lies at the same place (member position + offset = group slot position), and exactly the
  // 8 corners have none.
  const std::int32_t members[8] = {10, 11, 12, 13, 14, 15, 16, 17};
  int corners = 0;
  for (int s = 0; s < 64; ++s) {
    std::int32_t member;
    int s27;
    const bool used = amr::group_slot_member(members, s, member, s27);
    const int gs[3] = {s % 4, (s / 4) % 4, s / 16};
    bool corner = true;
    for (int a = 0; a < 3; ++a) corner = corner && (gs[a] == 0 || gs[a] == 3);
    corners += corner;
    EXPECT_EQ(used, !corner) << s;
    if (!used) continue;
    const int m = member - 10, pos[3] = {m & 1, (m >> 1) & 1, m >> 2};
    const int off[3] = {s27 % 3 - 1, (s27 / 3) % 3 - 1, s27 / 9 - 1};
    for (int a = 0; a < 3; ++a) {
      EXPECT_EQ(1 + pos[a] + off[a], gs[a]) << "slot " << s << " axis " << a;
      // Inside the group the member is the slot itself (offset 0).
      if (gs[a] == 1 || gs[a] == 2) {
        EXPECT_EQ(off[a], 0) << s;
      }
    }
    EXPECT_FALSE(amr::is_corner_slot(s27)) << s;
  }
  EXPECT_EQ(corners, 8);
}

TEST(Amr, amr_gpu_groups_in_the_plan) {
  // Sedov on three levels (periodic, reflecting, outflow): the groups' members are 8 leaf octs of
  // one level at the aligned 2 x 2 x 2 block's coordinates; singles and groups cover the leaf
  // list once; a group's slot equals its member's slot in the per-oct plan, and its ghost slot
  // the same coarse cell and neighbours (so the same prolongation).
  for (const Boundary bc : {Boundary::periodic, Boundary::reflecting, Boundary::outflow}) {
    const OctMesh base = build_mesh({8, 8, 8}, {bc, bc, bc});
    const auto r = amr::run_amr(copa::Backend::serial, base, amr_config("sedov", 1.0, 6), amr_levels(3, "gradient", 2));
    const amr::Tree& t = r.tree;
    const amr::StepLists lists = amr::build_step_lists(t);
    const amr::StepPlan p = amr::build_step_plan(t, lists, true, 8);  // complete groups only
    const amr::StepPlan q = amr::build_step_plan(t, lists, true, 0);
    ASSERT_GT(p.groups.size(), 0u);
    ASSERT_EQ(q.groups.size(), 0u);
    EXPECT_EQ(q.singles.size(), lists.leaf_octs.size());
    std::vector<int> covered(lists.leaf_octs.size(), 0);
    for (const std::int32_t i : p.singles) ++covered[i];
    int groups_above_0 = 0;
    for (std::size_t k = 0; k < p.groups.size(); ++k) {
      const std::int32_t i0 = p.groups[k], o0 = lists.leaf_octs[i0];
      const int l = t.level[o0];
      groups_above_0 += l > 0;
      for (int m = 0; m < 8; ++m) {
        ++covered[i0 + m];
        const std::int32_t o = lists.leaf_octs[i0 + m];
        ASSERT_EQ(t.level[o], l);
        EXPECT_EQ(t.coord[0][o], t.coord[0][o0] + (m & 1));
        EXPECT_EQ(t.coord[1][o], t.coord[1][o0] + ((m >> 1) & 1));
        EXPECT_EQ(t.coord[2][o], t.coord[2][o0] + (m >> 2));
        if (l > 0) {
          EXPECT_EQ(t.father[o], t.father[o0] + m);  // siblings: the 8 sons of one oct
        }
      }
      for (int s = 0; s < 64; ++s) {
        std::int32_t member;
        int s27;
        const std::int32_t got = p.group_slots[64 * k + s];
        if (!amr::group_slot_member(&lists.leaf_octs[i0], s, member, s27)) {
          EXPECT_EQ(got, amr::no_slot);
          continue;
        }
        const std::size_t mi = std::find(lists.leaf_octs.begin(), lists.leaf_octs.end(), member) - lists.leaf_octs.begin();
        const std::int32_t want = q.slots[27 * mi + s27];
        if (want >= 0) {
          EXPECT_EQ(got, want) << "group " << k << " slot " << s;
        } else {
          ASSERT_LT(got, 0) << "group " << k << " slot " << s;
          ASSERT_NE(got, amr::no_slot);
          for (int n = 0; n < 7; ++n) {
            EXPECT_EQ(p.ghost_src[7 * (-1 - got) + n], q.ghost_src[7 * (-1 - want) + n]);
            EXPECT_EQ(p.ghost_flip[7 * (-1 - got) + n], q.ghost_flip[7 * (-1 - want) + n]);
          }
        }
      }
    }
    for (const int c : covered) EXPECT_EQ(c, 1);
    EXPECT_GT(groups_above_0, 0);
    std::cerr << "bc " << int(bc) << ": " << p.groups.size() << " groups (" << groups_above_0 << " above level 0), "
              << p.singles.size() << " single octs of " << lists.leaf_octs.size() << "; ghost slots "
              << p.ghost_flip.size() / 7 << " (per oct alone: " << q.ghost_flip.size() / 7 << ")\n";
  }
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
