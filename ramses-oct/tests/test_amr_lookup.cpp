// The AMR tree's fast lookups (issue 13's regrid work) against plain searches on regridded trees:
// find_oct's coordinate hash against a scan of the level, same_level_neighbour against locate(),
// and the neighbour table that link() derives from the fathers against the mapped coordinates.
#include <set>
#include <tuple>

#include "amr/amr_driver.hpp"
#include "copa/testing.hpp"
#include "test_amr_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;

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
