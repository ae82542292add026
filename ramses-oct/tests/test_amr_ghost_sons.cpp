// The GPU step's ghost prolongation per (ghost slot, son) (block::ghost_son, the eight sons'
// physical flags combined, block::put_ghost_son) against prolong_stencil, which computes the eight
// sons of a slot together (the regrid's move and the oracle's prolongation): the same bits, the
// fallback to the coarse value included.
#include <cstring>
#include <iostream>

#include "amr/amr_driver.hpp"
#include "amr/amr_interp.hpp"
#include "amr/amr_leaf_block.hpp"
#include "amr/amr_plan.hpp"
#include "copa/testing.hpp"
#include "test_amr_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;
namespace block = ro::amr::block;

namespace {

// Ghost slot g by sons, then the fallback decided over the eight: the values written, and whether
// any son was unphysical.
bool ghost_by_sons(const std::vector<double>& u, long long stride, long long g, const std::int64_t* src,
                   const std::uint8_t* flip, double* out) {
  double uc[8][nvar], son[8][nvar];
  bool all = true;
  for (int c = 0; c < 8; ++c) all = block::ghost_son(u.data(), stride, g, c, src, flip, 1.4, uc[c], son[c]) && all;
  for (int c = 0; c < 8; ++c) block::put_ghost_son(g, c, all, uc[c], son[c], out);
  return !all;
}

}  // namespace

TEST(Amr, amr_gpu_ghost_sons_equal_prolong_stencil) {
  const OctMesh base = build_mesh({8, 8, 8}, {Boundary::reflecting, Boundary::reflecting, Boundary::reflecting});
  const auto r = amr::run_amr(copa::Backend::serial, base, amr_config("sedov", 1.0, 6), amr_levels(3, "gradient", 2));
  const amr::Tree& t = r.tree;
  const amr::StepLists lists = amr::build_step_lists(t);
  const amr::StepPlan p = amr::build_step_plan(t, lists, true);
  const long long stride = t.noct() * 8, nghost = static_cast<long long>(p.ghost_flip.size() / 7);
  ASSERT_GT(nghost, 0);
  std::vector<double> got(nghost * 8 * nvar), want(nghost * 8 * nvar);
  for (long long g = 0; g < nghost; ++g) {
    ghost_by_sons(r.u, stride, g, p.ghost_src.data(), p.ghost_flip.data(), got.data());
    double sons[8][nvar];
    amr::prolong_stencil(r.u.data(), stride, &p.ghost_src[7 * g], &p.ghost_flip[7 * g], 1.4, sons);
    std::memcpy(&want[g * 8 * nvar], sons, sizeof sons);
  }
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(double)), 0) << nghost << " ghost slots";

  // A coarse cell whose slopes would give a son negative energy: every son takes the coarse value,
  // in both. Seven cells in a row of a small state: the coarse cell, then -x, +x, -y, +y, -z, +z.
  const long long n = 7;
  std::vector<double> u(nvar * n, 0.0);
  // Density 1 and x-momentum 1.3 everywhere (kinetic energy 0.845); the coarse energy 1, its -x
  // neighbour 5, its +x neighbour 0: the limited slope -1 leaves the +x sons 0.75 < 0.845.
  const double e[7] = {1.0, 5.0, 0.0, 1.0, 1.0, 1.0, 1.0};
  for (int k = 0; k < 7; ++k) {
    u[0 * n + k] = 1.0;
    u[1 * n + k] = 1.3;
    u[4 * n + k] = e[k];
  }
  const std::int64_t src[7] = {0, 1, 2, 3, 4, 5, 6};
  const std::uint8_t flip[7] = {0, 0, 0, 0, 0, 0, 0};
  std::vector<double> out(8 * nvar);
  EXPECT_TRUE(ghost_by_sons(u, n, 0, src, flip, out.data())) << "the test stencil must trigger the fallback";
  double sons[8][nvar];
  amr::prolong_stencil(u.data(), n, src, flip, 1.4, sons);
  EXPECT_EQ(std::memcmp(out.data(), sons, sizeof sons), 0);
  for (int c = 0; c < 8; ++c)
    for (int f = 0; f < nvar; ++f) EXPECT_EQ(out[c * nvar + f], u[f * n]) << "son " << c << " field " << f;
  std::cerr << nghost << " ghost slots by sons equal prolong_stencil\n";
}
