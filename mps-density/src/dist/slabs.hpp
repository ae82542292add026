// Slab decomposition of an mps-density set-up over MPI ranks (DISTRIBUTED.md: DualSPHysics and
// GPUSPH cut spatial slabs by particle count and append ghost particles after the owned ones).
//
// The domain is cut into slabs of whole bucket columns along the longest horizontal axis (x or z;
// y is up in every case), so that each rank owns about the same number of particles. A rank's
// local arrays hold its owned particles (in global id order) followed by its ghosts: the particles
// of other ranks within `ghost_width` of its slab along the axis (grouped by owner, ascending, and
// in global id order inside a group). No case is periodic, so slabs have no wrap-around neighbour.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "copa/halo.hpp"
#include "particles.hpp"

namespace mps::dist {

// 0 (x) or 2 (z): the horizontal axis with the most bucket columns (x on a tie and in 2D).
int slab_axis(const Grid& g);
int column_count(const Grid& g, int axis);
int column_of(const Grid& g, int axis, double x, double z);

// Particles per bucket column along `axis`, over the particles [first, last) of the set-up: every
// rank counts its share of the ids, and the shares are added in rank order (copa::mpi::sum_ordered).
std::vector<double> column_histogram(const Particles& ps, const Grid& g, int axis, std::size_t first, std::size_t last);

struct Slabs {
  int axis = 0;
  std::vector<int> cuts;     // ranks + 1 column boundaries: rank r owns columns [cuts[r], cuts[r+1])
  std::vector<double> work;  // owned particles per rank
  int ranks() const { return static_cast<int>(cuts.size()) - 1; }
  int owner(int column) const;
  double imbalance() const;  // max / mean of work
};

// Cuts at the columns where the running particle count passes r N / ranks, then moved so that
// every rank keeps at least one column. Throws InputError (exit 2) when there are fewer columns
// than ranks.
Slabs cut_slabs(const std::vector<double>& histogram, int axis, int ranks);

// Rank r's slab along the axis, widened by `width` on both sides (plus a relative 1e-9 of the
// edge for the rounding of the column index: an extra ghost is harmless, a missing one is not).
void slab_bounds(const Grid& g, const Slabs& s, int r, double width, double& lo, double& hi);

// A rank's part of the set-up. Ghost positions are NaN until the halo exchange fills them (the
// set-up is built on every rank, but a ghost takes its values from its owner, not from that copy).
struct LocalDomain {
  Problem problem;                           // owned particles, then ghosts (problem.ghosts); the global grid
  std::vector<std::int64_t> global_id;       // of every local particle
  std::size_t owned = 0;
  std::vector<copa::halo::Link> links;       // ghost fill: send owned particles, receive ghosts
};
LocalDomain local_domain(const Problem& global, const Slabs& s, int rank, double ghost_width);

// The fields the ghost fill carries, one component each: x, y, z, type (as a double).
constexpr int halo_components = 4;
// Packs the local particles' fields into a halo field (component stride = local particle count),
// and copies the ghosts' part back after the exchange.
void pack_halo_field(const Particles& ps, std::vector<double>& field);
void unpack_ghosts(const std::vector<double>& field, std::size_t owned, Particles& ps);

}  // namespace mps::dist
