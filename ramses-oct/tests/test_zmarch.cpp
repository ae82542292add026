// The zmarch GPU body run sequentially on the host (one thread, block syncs no-ops) against the
// oracle: checks its plane rings, ghost mapping and segment/patch indexing on every boundary
// kind, bricks, patches clamped to small meshes and several z segments per column.
#include <cstdio>
#include <vector>

#include "copa/testing.hpp"
#include "zmarch_case.hpp"

using namespace ro;

namespace {

void zmarch_emulated_step(const OctMesh& m, const HydroParams& hp, const ZPatch& z, const std::vector<double>& u,
                          std::vector<double>& unew, double dtdx) {
  const MeshView v = host_view(m);
  std::vector<double> smem(z.shared_doubles() + (z.shared_ints() + 1) / 2);
  for (std::int32_t base : zmarch_block_bases(m, z))
    zmarch_block(v, hp, z, base, u.data(), unew.data(), dtdx, smem.data(), 0, 1);
}

}  // namespace

TEST(Zmarch, zmarch_emulation_equals_serial) {
  const test::ZmarchCase cases[] = {{"sedov", {16, 16, 16}, Boundary::periodic, 1, riemann_hll, 4, 2, 2},
                                    {"sedov", {16, 8, 32}, Boundary::reflecting, 2, riemann_hllc, 4, 2, 4},
                                    {"sod", {64, 4, 8}, Boundary::outflow, 1, riemann_llf, 4, 4, 16},
                                    {"sound", {16, 8, 8}, Boundary::periodic, 2, riemann_hll, 2, 2, 1},
                                    {"sedov", {8, 16, 8}, Boundary::reflecting, 1, riemann_hll, 4, 4, 16}};
  for (const test::ZmarchCase& c : cases) {
    const double err = test::zmarch_vs_serial(c, zmarch_emulated_step);
    EXPECT_TRUE(err < 1e-12);
    if (!(err < 1e-12)) std::printf("  case %s %dx%dx%d: relative L2 %.3e\n", c.problem, c.cells[0], c.cells[1], c.cells[2], err);
  }
}
