// The split of the oct mesh over MPI ranks (RAMSES's domain decomposition along its space-filling
// curve): rank r owns the contiguous range [split[r], split[r+1]) of the global Morton order
// (for 2^k ranks on a power-of-two cube an aligned sub-brick), plus a ghost layer of every oct
// that an owned oct's tile reads: the 26 face, edge and corner neighbours, with the periodic wrap
// crossing ranks. Pure bookkeeping, no MPI: the halo exchange (copa::halo) moves the data.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "copa/halo.hpp"
#include "hydro/mesh.hpp"

namespace ro {

struct Partition {
  int ranks = 1;
  std::vector<std::int64_t> split;  // ranks + 1 boundaries in the global oct order
  int owner(std::int64_t global_oct) const;
  std::int64_t owned(int rank) const { return split[rank + 1] - split[rank]; }
  // "3 ranks, contiguous Morton ranges of 1728/1728/1719 octs" (for the JSON and the table).
  std::string describe() const;
};

// Near-equal contiguous ranges, cut on whole 2x2x2 groups when the mesh has them and there are
// at least as many groups as ranks (so that the tiles of the OpenMP and GPU variants stay inside a
// rank), else on single octs. Throws InputError (exit 2) only when a rank would get no cells
// (fewer octs than ranks).
Partition partition_mesh(const OctMesh& global, int ranks);

struct LocalDomain {
  OctMesh mesh;                          // owned octs first (global order), then the ghosts
  std::vector<std::int64_t> ghost_global;  // global index of local oct nowned + i
  std::vector<copa::halo::Link> links;   // cell indices (oct * 8 + cell) into one field
};

// Rank `rank`'s part of the global mesh: local tables (neighbours mapped to local indices, -1
// where the neighbour is not stored: no tile reads it) and the halo links, ordered by global
// oct index on both sides so that a peer's send list matches this rank's receive list.
LocalDomain build_local_domain(const OctMesh& global, const Partition& p, int rank);

// The 26 neighbours (and the oct itself) of a global oct, reached by the hops of the tiles
// (x, then y, then z; across a non-periodic face the oct itself): slot (dx+1, dy+1, dz+1).
void neighbourhood(const OctMesh& global, std::int64_t o, std::int64_t out[27]);

}  // namespace ro
