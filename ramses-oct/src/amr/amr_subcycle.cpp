#include "amr/amr_subcycle.hpp"

#include <algorithm>
#include <cmath>

#include "amr/amr_interp.hpp"

namespace ro::amr {

namespace {

// The new leaf values of level l, unew -> u (covered cells keep the restriction in u).
void commit_level(const Tree& t, const StepLists& lists, int l, const std::vector<double>& unew, std::vector<double>& u,
                  const Loops& loops) {
  const std::int64_t stride = t.noct() * 8, first = lists.leaf_octs_begin[l];
  loops.run(lists.leaf_octs_begin[l + 1] - first, [&](std::int64_t i, int) {
    const std::int64_t o = lists.leaf_octs[first + i];
    for (int c = 0; c < 8; ++c) commit_cell(o * 8 + c, t.son.data(), stride, unew.data(), u.data());
  });
}

void amr_step(const Tree& t, const StepLists& lists, Stepper& stepper, const Loops& loops, std::vector<double>& u,
              std::vector<double>& unew, int l, double dt, RankComm* comm) {
  const bool finer = l < t.max_level && t.octs_at(l + 1) > 0;
  if (finer) {
    amr_step(t, lists, stepper, loops, u, unew, l + 1, 0.5 * dt, comm);
    amr_step(t, lists, stepper, loops, u, unew, l + 1, 0.5 * dt, comm);
  }
  // Over ranks: the ghosts level l's update reads, as their owners hold them now, and the fine
  // fluxes of other ranks' octs next to this rank's coarse cells.
  if (comm) comm->fill_ghosts(l, u.data());
  stepper.update_level(t, lists, l, u, unew, dt);
  if (finer && comm) comm->fluxes(l, stepper.fine_flux_sum());
  if (finer) stepper.reflux_level(t, lists, l, unew);
  commit_level(t, lists, l, unew, u, loops);
  if (finer) restrict_level(t, u, l, loops);
}

}  // namespace

double subcycle_dt(const Tree& t, const LeafScan& s, double courant) {
  double dt = INFINITY;
  for (int l = 0; l <= t.max_level; ++l)
    if (s.max_speed[l] > 0) dt = std::min(dt, double(level_substeps(l, true)) * courant * t.dx(l) / s.max_speed[l]);
  return dt;
}

double subcycled_leaf_updates(const Tree& t) { return subcycled_leaf_updates(t.leaf_cells_per_level()); }

double subcycled_leaf_updates(const std::vector<std::int64_t>& leaves_per_level) {
  double n = 0;
  for (std::size_t l = 0; l < leaves_per_level.size(); ++l) n += double(level_substeps(int(l), true)) * double(leaves_per_level[l]);
  return n;
}

void subcycled_step(const Tree& t, const StepLists& lists, Stepper& stepper, const Loops& loops,
                    std::vector<double>& u, std::vector<double>& unew, double dt0, RankComm* comm) {
  amr_step(t, lists, stepper, loops, u, unew, 0, dt0, comm);
}

}  // namespace ro::amr
