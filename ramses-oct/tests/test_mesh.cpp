#include <set>

#include "copa/errors.hpp"
#include "copa/testing.hpp"
#include "hydro/mesh.hpp"
#include "hydro/tile_geometry.hpp"

using namespace ro;

TEST(Mesh, morton_brick_is_dense_bijection) {
  const OctMesh m = build_mesh({32, 8, 4}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  EXPECT_TRUE(m.noct == 16 * 4 * 2);
  std::set<std::uint64_t> seen;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 16; ++x) {
        const auto code = m.order.encode(x, y, z);
        EXPECT_TRUE(code < std::uint64_t(m.noct));
        seen.insert(code);
        const auto back = m.order.decode(code);
        EXPECT_TRUE(back[0] == x && back[1] == y && back[2] == z);
      }
  EXPECT_TRUE(seen.size() == std::size_t(m.noct));
  // Aligned 2x2x2 oct groups are 8 consecutive ranks (the tiles of the OpenMP and GPU variants).
  for (std::int64_t g = 0; g < m.noct / 8; ++g)
    for (int k = 0; k < 8; ++k) {
      const std::int64_t o = g * 8 + k;
      EXPECT_TRUE(m.coord[0][o] == m.coord[0][g * 8] + (k & 1));
      EXPECT_TRUE(m.coord[1][o] == m.coord[1][g * 8] + ((k >> 1) & 1));
      EXPECT_TRUE(m.coord[2][o] == m.coord[2][g * 8] + (k >> 2));
    }
}

TEST(Mesh, neighbour_table_wraps_and_reflects) {
  const OctMesh p = build_mesh({8, 8, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  const auto o = p.oct_at(0, 1, 3);
  EXPECT_TRUE(p.nbor[0][o] == p.oct_at(3, 1, 3));
  EXPECT_TRUE(p.nbor[1][o] == p.oct_at(1, 1, 3));
  EXPECT_TRUE(p.nbor[5][o] == p.oct_at(0, 1, 0));
  const OctMesh r = build_mesh({8, 8, 8}, {Boundary::reflecting, Boundary::outflow, Boundary::periodic});
  const auto q = r.oct_at(0, 3, 2);
  EXPECT_TRUE(r.nbor[0][q] == q);   // across a reflecting face: itself, mirrored by index mapping
  EXPECT_TRUE(r.nbor[3][q] == q);   // across an outflow face: itself
  EXPECT_TRUE(r.nbor[2][q] == r.oct_at(0, 2, 2));
  EXPECT_THROW(build_mesh({13, 8, 8}, {}), copa::InputError);  // odd: not whole octs
  EXPECT_THROW(build_mesh({2, 8, 8}, {}), copa::InputError);
}

TEST(Mesh, predictor_region_is_interior_plus_faces) {
  for (int T : {2, 4, 8}) {
    const int E = T + 2;
    std::set<int> seen;
    for (int m = 0; m < predictor_cells(T); ++m) {
      int i, j, k;
      predictor_cell(m, T, i, j, k);
      EXPECT_TRUE(i >= 0 && i < E && j >= 0 && j < E && k >= 0 && k < E);
      const int outer = (i == 0 || i == E - 1) + (j == 0 || j == E - 1) + (k == 0 || k == E - 1);
      EXPECT_TRUE(outer <= 1);
      seen.insert(i + E * (j + E * k));
    }
    EXPECT_TRUE(int(seen.size()) == T * T * T + 6 * T * T);
  }
}

TEST(Mesh, even_extents_are_sorted_morton_with_holes_skipped) {
  // 10 x 6 x 12 cells = 5 x 3 x 6 octs: codes of the enclosing 8 x 4 x 8 brick, sorted.
  const OctMesh m = build_mesh({10, 6, 12}, {Boundary::periodic, Boundary::reflecting, Boundary::outflow});
  EXPECT_TRUE(!m.dense && m.noct == 5 * 3 * 6);
  std::set<std::array<int, 3>> seen;
  for (std::int64_t o = 0; o < m.noct; ++o) {
    const int x = m.coord[0][o], y = m.coord[1][o], z = m.coord[2][o];
    seen.insert({x, y, z});
    EXPECT_TRUE(m.oct_at(x, y, z) == o);
    if (o > 0) { EXPECT_TRUE(m.order.encode(x, y, z) > m.order.encode(m.coord[0][o - 1], m.coord[1][o - 1], m.coord[2][o - 1])); }
    EXPECT_TRUE(m.nbor[0][o] == m.oct_at(x - 1, y, z));                  // periodic wrap
    EXPECT_TRUE(m.nbor[3][o] == (y == 2 ? o : m.oct_at(x, y + 1, z)));   // reflecting: itself
  }
  EXPECT_TRUE(seen.size() == std::size_t(m.noct));
  // A power-of-two brick keeps the dense code (index = code, no key table).
  const OctMesh d = build_mesh({32, 8, 4}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  EXPECT_TRUE(d.dense && d.keys.empty());
}
