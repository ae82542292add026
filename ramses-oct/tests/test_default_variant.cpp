// The default variant per backend and mesh: the z-marching default on a one-rank brick (CUDA
// zmarch-col, HIP zmarch), the tile variants where a rank owns only part of the mesh (zmarch*
// marches whole columns and cannot run there).
#include <gtest/gtest.h>

#include "decomposition.hpp"
#include "kernels.hpp"
#include "mesh.hpp"

using namespace ro;

namespace {

OctMesh brick(int n) {
  return build_mesh({n, n, n}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
}

}  // namespace

TEST(DefaultVariant, one_rank_brick_takes_the_zmarch_default) {
  const OctMesh m = brick(32);
  EXPECT_EQ(default_variant(copa::Backend::cuda, m), "zmarch-col");
  EXPECT_EQ(default_variant(copa::Backend::hip, m), "zmarch");
  EXPECT_EQ(default_variant(copa::Backend::serial, m), "oracle");
  EXPECT_EQ(default_variant(copa::Backend::openmp, m), "tiled");
}

TEST(DefaultVariant, several_ranks_fall_back_to_a_tile_variant) {
  const OctMesh g = brick(32);
  const Partition part = partition_mesh(g, 2);
  for (int r = 0; r < 2; ++r) {
    const LocalDomain d = build_local_domain(g, part, r);
    EXPECT_FALSE(variant_applies(copa::Backend::cuda, "zmarch-col", d.mesh));
    EXPECT_EQ(default_variant(copa::Backend::cuda, d.mesh), "balanced");
    EXPECT_EQ(default_variant(copa::Backend::hip, d.mesh), "balanced");
  }
}
