// The GPU backends' AMR over MPI ranks without a GPU: the device step emulated on the host
// (test_amr_emulated_step.hpp, the AmrConfig::device hook) driven over 2 and 3 ranks as the GPU
// path drives it (owned-oct lists, plan and scan; fine fluxes, criterion bytes and --subcycle's
// level ghosts through the DeviceRanks hooks; ghosts, re-cuts and migration on its state), against
// the one-rank serial run
// bit for bit: tree, state and end time. The emulated step fills the cells it does not write with
// NaN, so a read of another rank's stale cells shows in the state. The regrid stays on the device:
// the exchanges come from the device's request lists, the re-cut from its work per base oct, and
// the tree is copied back once, at the end; the reflux and restriction counts from the device's
// plan counts equal the host path's over the same ranks.
#include <cmath>
#include <memory>
#include <vector>

#include "amr/amr_ranks.hpp"
#include "copa/mpi.hpp"
#include "copa/testing.hpp"
#include "test_amr_emulated_step.hpp"
#include "test_amr_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

struct Outcome {
  amr::AmrResult ranks, alone, host_ranks;
  EmulatedCounts n;
  double ghost_bytes = 0, flux_bytes = 0;  // max over ranks
  long recuts = 0;
  std::int64_t migrated = 0;
};

// The emulated device over every rank against the serial run alone (every rank runs it: same bits).
Outcome run_both(const OctMesh& base, const RunConfig& cfg, amr::AmrConfig ac, double imbalance = 1.1) {
  Outcome o;
  o.alone = amr::run_amr(copa::Backend::serial, base, cfg, ac);
  const std::unique_ptr<amr::RankComm> comm = amr::make_rank_comm(ac.subcycle, imbalance);
  ac.comm = comm.get();
  ac.device = emulated_device(o.n);
  o.ranks = amr::run_amr(copa::Backend::serial, base, cfg, ac);
  o.ghost_bytes = copa::mpi::max_all(comm->ghost_bytes());
  o.flux_bytes = copa::mpi::max_all(comm->flux_bytes());
  o.recuts = comm->balance().recuts;
  o.migrated = comm->balance().octs_migrated;
  // The host path over the same ranks (its own lists, patterns and re-cuts from its tree).
  const std::unique_ptr<amr::RankComm> host_comm = amr::make_rank_comm(ac.subcycle, imbalance);
  ac.comm = host_comm.get();
  ac.device = nullptr;
  o.host_ranks = amr::run_amr(copa::Backend::serial, base, cfg, ac);
  return o;
}

void expect_same(const Outcome& o) {
  EXPECT_TRUE(o.ranks.tree.key == o.alone.tree.key);
  EXPECT_EQ(o.ranks.steps, o.alone.steps);
  EXPECT_TRUE(o.ranks.t == o.alone.t);
  ASSERT_EQ(o.ranks.u.size(), o.alone.u.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < o.ranks.u.size(); ++i) differ += !(o.ranks.u[i] == o.alone.u[i]);
  EXPECT_EQ(differ, 0u) << "state values that differ from the one-rank run (rank " << copa::mpi::rank() << " of "
                        << copa::mpi::size() << ")";
  EXPECT_GT(o.n.rank_lists, 0);
  EXPECT_EQ(o.n.tree_downloads, 1);
  EXPECT_EQ(o.ranks.reflux_face_updates, o.host_ranks.reflux_face_updates);
  EXPECT_EQ(o.ranks.restricted_oct_updates, o.host_ranks.restricted_oct_updates);
  EXPECT_EQ(o.ranks.finest_restricted_oct_updates, o.host_ranks.finest_restricted_oct_updates);
  EXPECT_EQ(o.ranks.regrids, o.host_ranks.regrids);
}

}  // namespace

// Sedov 16^3 + 1 level, reflecting: the front crosses rank boundaries (reflux faces whose fine oct
// another rank owns: test_amr_ranks.cpp), regrids change the tree (state moves on the device).
TEST(AmrRanksDevice, sedov_one_level_equals_one_rank) {
  const OctMesh base = build_mesh({16, 16, 16}, {Boundary::reflecting, Boundary::reflecting, Boundary::reflecting});
  const Outcome o = run_both(base, amr_config("sedov", 0.03, 100000), amr_levels(1, "gradient", 2));
  expect_same(o);
  EXPECT_GT(o.n.moves, 0);
  EXPECT_GT(o.ghost_bytes, 0.0);
  // On 3 ranks fine fluxes cross a cut to the coarse owner up to the end (the flux exchange runs).
  if (copa::mpi::size() == 3) {
    EXPECT_GT(o.flux_bytes, 0.0);
  }
}

// Sedov 16^3 + 2 levels, periodic (a coarse-fine face on every level, wraps across ranks).
TEST(AmrRanksDevice, sedov_two_levels_equals_one_rank) {
  const OctMesh base = build_mesh({16, 16, 16}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  const Outcome o = run_both(base, amr_config("sedov", 0.02, 100000), amr_levels(2, "gradient", 2));
  expect_same(o);
  EXPECT_GT(o.n.moves, 0);
  EXPECT_GT(o.alone.tree.octs_at(2), 0);
}

// Sod 64x4x4 + 1 and + 2 levels (the fronts move the refinement along x, across the cuts), and
// with the default --amr-imbalance the regrids re-cut the ranges: octs migrate with their state
// between the emulated devices.
TEST(AmrRanksDevice, sod_levels_and_recuts_equal_one_rank) {
  const OctMesh base = build_mesh({64, 4, 4}, {Boundary::outflow, Boundary::outflow, Boundary::outflow});
  for (int levels : {1, 2}) {
    amr::AmrConfig ac = amr_levels(levels, "gradient", 2);
    ac.criterion.density = ac.criterion.pressure = 0.05;
    const Outcome o = run_both(base, amr_config("sod", 0.2, 100000), ac);
    expect_same(o);
    EXPECT_GT(o.n.moves, 0) << levels;
    EXPECT_GT(o.recuts, 0) << levels;
    EXPECT_GT(o.migrated, 0) << levels;
  }
}

// The same Sod with the initial cut kept (--amr-imbalance 100): no octs migrate, still one rank's bits.
TEST(AmrRanksDevice, sod_static_cut_equals_one_rank) {
  const OctMesh base = build_mesh({64, 4, 4}, {Boundary::outflow, Boundary::outflow, Boundary::outflow});
  amr::AmrConfig ac = amr_levels(1, "gradient", 2);
  ac.criterion.density = ac.criterion.pressure = 0.05;
  const Outcome o = run_both(base, amr_config("sod", 0.2, 100000), ac, 100.0);
  expect_same(o);
  EXPECT_EQ(o.recuts, 0);
}

// --subcycle: the device's subcycled coarse step with each level's ghosts before each of its
// substeps (the finest level's second one in the state its first wrote) and the fine-flux sums
// before each level's reflux: Sedov 16^3 + 1, Sedov 8^3 + 3 (a pingpong finest level under two
// subcycled ones) and Sod 32x4x4 + 2, as the host's mpi tests run them.
TEST(AmrRanksDevice, subcycle_equals_one_rank) {
  const OctMesh sedov16 = build_mesh({16, 16, 16}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  const OctMesh sedov8 = build_mesh({8, 8, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  const OctMesh sod = build_mesh({32, 4, 4}, {Boundary::outflow, Boundary::outflow, Boundary::outflow});
  const Outcome a = run_both(sedov16, amr_config("sedov", 0.03, 100000), subcycled(1, "gradient", 2));
  expect_same(a);
  EXPECT_GT(a.n.subcycled_steps, 0);
  EXPECT_GT(a.n.moves, 0);
  const Outcome b = run_both(sedov8, amr_config("sedov", 0.02, 100000), subcycled(3, "gradient", 2));
  expect_same(b);
  EXPECT_GT(b.alone.tree.octs_at(3), 0);
  const Outcome c = run_both(sod, amr_config("sod", 0.2, 100000), subcycled(2, "gradient", 2));
  expect_same(c);
  EXPECT_GT(c.alone.tree.octs_at(2), 0);
}

int main(int argc, char** argv) {
  copa::mpi::Session session(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new copa::testing::MpiRanksCheck);
  return RUN_ALL_TESTS();
}
