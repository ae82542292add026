// The time loop of an AMR run (--levels > 0): initial grid, then per step the leaf CFL dt, the
// leaf update of all levels, the reflux, the restriction (or with --subcycle the subcycled coarse
// step of amr_subcycle.hpp); a regrid every --regrid-every (coarse) steps.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "amr/amr_gpu.hpp"
#include "amr/amr_ranks.hpp"
#include "amr/amr_regrid.hpp"
#include "amr/amr_tree.hpp"
#include "copa/backend.hpp"
#include "copa/timing.hpp"
#include "hydro/run_config.hpp"

namespace ro::amr {

struct AmrConfig {
  int levels = 1;
  RefineCriterion criterion;
  int regrid_every = 2;       // steps between regrids (0: only the initial grid)
  bool reflux = true;         // test-only switch (--no-reflux): proves the conservation test sees the bug
  bool subcycle = false;      // --subcycle: RAMSES's level subcycling (amr_subcycle.hpp)
  // --phase-timing: GPU path, device events between the step's phases (time_phases). It waits per
  // phase, so the host computes each dt (scan(), advance()) instead of the device (queue_step()).
  bool phase_timing = false;
  int group_min = default_group_min;  // tuning group-min: GPU path, fewest leaf octs of a sibling group (amr_plan.hpp)
  std::int64_t max_octs = 0;
  // Tests: replaces the state after the initial grid (e.g. a random smooth field); restricted after.
  std::function<void(const Tree&, std::vector<double>&)> set_state;
  // Tests: a device step to drive as the GPU path does (e.g. one emulated on the host), so that the
  // GPU path's driver (device regrid, skipped unchanged trees) runs where there is no GPU.
  std::function<std::unique_ptr<DeviceStep>(const HydroParams&, bool reflux)> device;
  // Several MPI ranks (host backends): the partition, ghost and flux exchanges (amr_ranks.hpp).
  RankComm* comm = nullptr;
};

struct AmrResult {
  Tree tree;
  std::vector<double> u;      // final state over the tree
  Totals initial, final;      // leaf totals
  double t = 0;
  long steps = 0;
  long regrids = 0;
  // GPU path: regrids whose queued list/plan build overflowed a guessed capacity and was rebuilt
  // with exact sizes, and whether dt was computed on the device.
  long long regrid_fallbacks = 0;
  bool device_dt = false;
  double leaf_cell_updates = 0;  // sum over steps of the leaf cells updated (--subcycle: 2^l per level-l leaf)
  // GPU path: sums over steps of the leaf octs updated and of those updated in sibling groups
  // (a group's leaf members: 8 for a complete group, fewer for a partial one).
  double leaf_oct_updates = 0, grouped_oct_updates = 0;
  // Sums over steps of the coarse-fine faces refluxed and of the son octs restricted into their
  // father cells (--subcycle: level l's 2^l times per coarse step), the restriction into the
  // finest level that has sons apart (the GPU's phase rows time it with the reflux).
  double reflux_face_updates = 0, restricted_oct_updates = 0, finest_restricted_oct_updates = 0;
  std::int64_t max_leaf_cells = 0, max_octs_used = 0;
  copa::Profile profile;
  RankComm::LevelCounts level_counts;  // over ranks: this rank's share of the final tree
};

// Serial, OpenMP, or a GPU backend (device-resident step, host regrid). Exit 3 (RuntimeError) on a
// non-physical leaf cell.
AmrResult run_amr(copa::Backend b, const OctMesh& base, const RunConfig& cfg,
                  const AmrConfig& ac);

// The reflux and restriction work (README "FOM and the FLOP/byte model"). Reflux, per coarse-fine
// face and variable: the mean of the son oct's 4 face fluxes (3 add, 1 mul) and v -+ dt/dx mean
// (1 mul, 1 add); the 4 fluxes read, the coarse cell read and written (a cell on an edge or corner
// of a refined region has 2 or 3 such faces and is counted with each). Restriction, per son oct and
// variable: the father cell = the mean of its 8 son cells (7 add, 1 mul); 8 cells read, 1 written.
inline constexpr double reflux_flops_per_face = 6.0 * nvar;
inline constexpr double reflux_read_per_face = (4 + 1) * nvar * 8.0, reflux_written_per_face = nvar * 8.0;
inline constexpr double restrict_flops_per_son = 8.0 * nvar;
inline constexpr double restrict_read_per_son = 8 * nvar * 8.0, restrict_written_per_son = nvar * 8.0;

// Host bytes per oct of an AMR run: two states, the fine-face flux buffer, the tables, the
// coordinate index (16 B slots, fewer than 4 per oct), and the regrid's new state and flags.
inline constexpr double amr_bytes_per_oct =
    3 * 8 * 5 * 8.0 + fine_flux_per_oct * 8.0 + (8 + 1 + 12 + 4 + 24 + 32) + 4 * 16 + 8 * 2;

}  // namespace ro::amr
