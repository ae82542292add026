// RAMSES's level subcycling (--subcycle; Teyssier 2002, sec. 2.4, the recursive amr_step): one
// coarse step of dt_0 advances level l in 2^l substeps of dt_0 / 2^l, the fine levels first.
// The host oracle (serial and OpenMP loops); the GPU backends run the same recursion with per-level
// launches (DeviceStep::advance_subcycled).
#pragma once
#include <cstdint>
#include <vector>

#include "amr/amr_ranks.hpp"
#include "amr/amr_solver.hpp"
#include "amr/amr_tree.hpp"

namespace ro::amr {

// The substeps level l takes per coarse step: 2^l under --subcycle (dt_l = dt_0 / 2^l), 1 with
// the global dt. A level's leaf updates, reflux faces, restrictions and work weigh this much.
RO_HD std::int64_t level_substeps(int l, bool subcycle) { return subcycle ? std::int64_t(1) << l : 1; }

// dt_0 = min over levels l with leaves of 2^l C dx_l / s_l (s_l: level l's largest leaf signal
// speed), so that every level's substep dt_0 / 2^l meets its own CFL condition.
double subcycle_dt(const Tree& t, const LeafScan& s, double courant);

// Leaf-cell updates of one coarse step: a leaf of level l is updated 2^l times.
double subcycled_leaf_updates(const Tree& t);
// The same from the leaf cells per level (the device's counts where the host tree is stale).
double subcycled_leaf_updates(const std::vector<std::int64_t>& leaves_per_level);

// One coarse step of dt0 over all levels, in place on u (unew: a scratch state of the same size).
// amr_step(l, dt): if level l + 1 has octs, amr_step(l + 1, dt / 2) twice; then the leaves of
// level l from dt (their ghost cells prolonged from level l - 1 at its old time), the reflux of
// level l's coarse cells from level l + 1's fluxes summed over its two substeps, and the
// restriction of level l + 1 into level l's covered cells.
void subcycled_step(const Tree& t, const StepLists& lists, Stepper& stepper, const Loops& loops,
                    std::vector<double>& u, std::vector<double>& unew, double dt0, RankComm* comm = nullptr);

}  // namespace ro::amr
