// AMR specification, tree invariants: the oct tree is 2:1 balanced and linked, restriction undoes
// prolongation, and the fast lookups agree with plain searches.
#include <cmath>
#include <set>
#include <tuple>

#include "amr/amr_driver.hpp"
#include "amr/amr_interp.hpp"
#include "amr/amr_plan.hpp"
#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "hydro/verification.hpp"
#include "test_amr_helpers.hpp"
#include "test_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;

// Tree structure and prolongation/restriction.
TEST(Amr, amr_restriction_of_prolongation_is_parent) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> pos(0.5, 2.0), mom(-0.5, 0.5);
  for (int trial = 0; trial < 200; ++trial) {
    auto state = [&](double out[nvar]) {
      out[0] = pos(gen);
      for (int a = 1; a < 4; ++a) out[a] = mom(gen);
      out[4] = 5 * pos(gen);
    };
    double uc[nvar], um[3][nvar], up[3][nvar], sons[8][nvar];
    state(uc);
    for (int a = 0; a < 3; ++a) {
      state(um[a]);
      state(up[a]);
    }
    amr::prolong(uc, um, up, 1.4, sons);
    for (int f = 0; f < nvar; ++f) {
      double sum = 0;
      for (int c = 0; c < 8; ++c) sum += sons[c][f];
      COPA_EXPECT_NEAR_REL(sum * 0.125, uc[f], 1e-15);
    }
  }
  // A monotone neighbourhood gives non-zero slopes: sons differ from the parent.
  double uc[nvar] = {1, 0, 0, 0, 2.5}, um[3][nvar], up[3][nvar], sons[8][nvar];
  for (int a = 0; a < 3; ++a)
    for (int f = 0; f < nvar; ++f) {
      um[a][f] = uc[f] * 0.9;
      up[a][f] = uc[f] * 1.1;
    }
  amr::prolong(uc, um, up, 1.4, sons);
  EXPECT_TRUE(sons[0][0] < uc[0] && sons[7][0] > uc[0]);
  COPA_EXPECT_NEAR_REL((sons[0][0] + sons[1][0] + sons[2][0] + sons[3][0] + sons[4][0] + sons[5][0] + sons[6][0] + sons[7][0]) / 8,
                  uc[0], 1e-15);
}

TEST(Amr, amr_tree_is_balanced_and_linked) {
  // Sedov on two levels with regrids as the blast grows: after the run the tree must still be
  // 2:1 balanced (26 neighbours) with consistent father/son links and sorted keys.
  const OctMesh base = build_mesh({16, 16, 16}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  const auto r = amr::run_amr(copa::Backend::serial, base, amr_config("sedov", 0.02, 30), amr_levels(2, "gradient", 2));
  EXPECT_TRUE(r.regrids >= 5);
  EXPECT_TRUE(r.tree.octs_at(2) > 0);
  EXPECT_TRUE(amr::check_balance(r.tree).empty());
  EXPECT_TRUE(amr::check_father_son(r.tree).empty());
  std::cerr << amr::check_balance(r.tree) << amr::check_father_son(r.tree);
  // The checks can fail: break a link and the balance of a hand-made unbalanced tree.
  amr::Tree broken = r.tree;
  const std::int64_t fine = broken.level_begin[2];
  broken.son[broken.father[fine]] = -1;
  EXPECT_TRUE(!amr::check_father_son(broken).empty());
  const OctMesh small = build_mesh({8, 8, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  amr::Tree t = amr::base_tree(small, 2);
  // Refine cell 0 of oct 0 and then a level-1 corner cell next to unrefined level-0 cells.
  t.key.push_back(t.key[0] * 8);
  t.level.push_back(1);
  for (int a = 0; a < 3; ++a) t.coord[a].push_back(0);
  t.level_begin = {0, small.noct, small.noct + 1, small.noct + 1};
  amr::link(t);
  EXPECT_TRUE(amr::check_father_son(t).empty());
  EXPECT_TRUE(amr::check_balance(t).empty());  // level-0 cells: all exist
  t.key.push_back(t.key.back() * 8);
  t.level.push_back(2);
  for (int a = 0; a < 3; ++a) t.coord[a].push_back(0);
  t.level_begin = {0, small.noct, small.noct + 1, small.noct + 2};
  amr::link(t);
  EXPECT_TRUE(amr::check_father_son(t).empty());
  EXPECT_TRUE(!amr::check_balance(t).empty());  // the refined level-1 cell at the corner lacks neighbours
}

// The AMR tree's fast lookups against plain searches on regridded trees:
// find_oct's coordinate hash against a scan of the level, same_level_neighbour against locate(),
// and the neighbour table that link() derives from the fathers against the mapped coordinates.
TEST(Amr, amr_fast_lookups_agree_with_searches) {
  for (const Boundary bc : {Boundary::periodic, Boundary::reflecting, Boundary::outflow}) {
    const OctMesh base = build_mesh({12, 8, 10}, {bc, bc, bc});
    const auto r = amr::run_amr(copa::Backend::serial, base, amr_config("sedov", 1.0, 8), amr_levels(3, "gradient", 2));
    const amr::Tree& t = r.tree;
    ASSERT_GT(t.octs_at(3), 0);
    for (int l = 0; l <= t.max_level; ++l) {
      std::set<std::tuple<int, int, int>> present;
      for (std::int64_t o = t.level_begin[l]; o < t.level_begin[l + 1]; ++o) {
        present.insert({t.coord[0][o], t.coord[1][o], t.coord[2][o]});
        EXPECT_EQ(t.find_oct(l, t.coord[0][o], t.coord[1][o], t.coord[2][o]), o);
      }
      const int n[3] = {t.cells_at(l, 0) / 2, t.cells_at(l, 1) / 2, t.cells_at(l, 2) / 2};
      long absent = 0;
      for (int z = 0; z < n[2]; ++z)
        for (int y = 0; y < n[1]; ++y)
          for (int x = 0; x < n[0]; ++x)
            if (!present.count({x, y, z})) {
              EXPECT_EQ(t.find_oct(l, x, y, z), -1);
              ++absent;
            }
      if (l > 0) {
        EXPECT_GT(absent, 0);
      }
      for (std::int64_t o = t.level_begin[l]; o < t.level_begin[l + 1]; ++o)
        for (int a = 0; a < 3; ++a)
          for (int side = 0; side < 2; ++side) {
            std::array<int, 3> oc = {2 * t.coord[0][o], 2 * t.coord[1][o], 2 * t.coord[2][o]};
            oc[a] += side ? 2 : -1;
            bool flip;
            amr::map_cell_axis(t, l, a, oc[a], flip);
            EXPECT_EQ(t.nbor[face_index(a, side)][o], t.find_oct(l, oc[0] >> 1, oc[1] >> 1, oc[2] >> 1));
            for (int c = 0; c < 8; ++c) {
              std::array<int, 3> ic = t.cell_coords(o, c);
              ic[a] += side ? 1 : -1;
              const amr::Located s = amr::locate(t, l, ic);
              const std::int64_t fast = amr::same_level_neighbour(t, o, c, a, side);
              EXPECT_EQ(fast, s.level == l ? s.cell : -1);
            }
          }
    }
  }
}
