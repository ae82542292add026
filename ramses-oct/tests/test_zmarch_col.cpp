// The zmarch-col GPU body (zmarch_col.hpp) run on the host, one emulated thread per column, against
// the oracle: its phase schedule (four primitive planes, the column slots, the oct-layer
// buffers, x and y faces through run-time component offsets) on every boundary kind and Riemann
// solver, bricks, patches clamped to small meshes, several z segments per column. Phase A runs
// in both orders (columns then the load of plane e+2, and the reverse): the two must not touch
// the same shared data, as on the device they run at once.
#include <cstdio>
#include <vector>

#include "copa/testing.hpp"
#include "zmarch_case.hpp"
#include "uniform/zmarch_col.hpp"

using namespace ro;

namespace {

void zmarch_col_emulated_step(const OctMesh& m, const HydroParams& hp, const ZPatch& z, const std::vector<double>& u,
                              std::vector<double>& unew, double dtdx, bool load_first) {
  const MeshView v = host_view(m);
  std::vector<double> smem(zcol_shared_doubles(z) + (zcol_shared_ints(z) + 1) / 2);
  const int ncols = zcol_columns(z);
  for (std::int32_t base : zmarch_block_bases(m, z)) {
    ZColBlock b(v, hp, z, base, u.data(), unew.data(), dtdx, smem.data());
    zmarch_col_march(b, base, 0, 1, [&](int e) {
      const bool load = e + 2 < b.planes() + 2;
      if (load && load_first) b.load_plane(e + 2, 0, 1);
      for (int c = 0; c < ncols; ++c) b.column(e, c);
      if (load && !load_first) b.load_plane(e + 2, 0, 1);
    });
  }
}

}  // namespace

TEST(ZmarchCol, emulation_equals_serial) {
  const test::ZmarchCase cases[] = {{"sedov", {16, 16, 16}, Boundary::periodic, 1, riemann_hll, 4, 2, 2},
                                    {"sedov", {16, 8, 32}, Boundary::reflecting, 2, riemann_hllc, 4, 2, 4},
                                    {"sod", {64, 4, 8}, Boundary::outflow, 1, riemann_llf, 4, 2, 16},
                                    {"sound", {16, 8, 8}, Boundary::periodic, 2, riemann_hll, 2, 2, 1},
                                    {"sedov", {8, 16, 8}, Boundary::reflecting, 1, riemann_hll, 4, 4, 16},
                                    {"sod", {8, 8, 64}, Boundary::outflow, 2, riemann_hllc, 4, 2, 16}};
  for (const test::ZmarchCase& c : cases) {
    for (bool load_first : {false, true}) {
      const double err = test::zmarch_vs_serial(c, [&](const OctMesh& m, const HydroParams& hp, const ZPatch& z,
                                                       const std::vector<double>& u, std::vector<double>& unew, double dtdx) {
        zmarch_col_emulated_step(m, hp, z, u, unew, dtdx, load_first);
      });
      EXPECT_TRUE(err < 1e-12);
      if (!(err < 1e-12))
        std::printf("  case %s %dx%dx%d (load %s): relative L2 %.3e\n", c.problem, c.cells[0], c.cells[1], c.cells[2],
                    load_first ? "first" : "last", err);
    }
  }
}

// The shared memory of a 4x2 block (30 KB: 7 blocks per SM of the H200, against 6 of zmarch's 37 KB).
TEST(ZmarchCol, shared_memory_of_a_4x2_patch) {
  const int octs[3] = {64, 64, 64};
  const ZPatch z = make_zpatch(octs, 4, 2, 16);
  EXPECT_EQ(zcol_columns(z), 56);
  EXPECT_EQ(zcol_shared_doubles(z), 4 * 5 * 96 + 3 * 5 * 60 + 5 * 36 + 5 * 40 + 3 * 5 * 32);
  EXPECT_LT(zcol_shared_bytes(z), z.shared_bytes());
}
