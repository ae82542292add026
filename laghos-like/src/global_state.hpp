// A distributed run's final state in the one-rank layout, so that its checksum
// (solution.state_checksum) is the run's and not one rank's: a one-rank and an N-rank run whose
// states are bitwise equal get the same checksum.
#pragma once
#include <vector>

#include "partition.hpp"

namespace laghos {

// Collective. Every rank sends its local (x, v, e) (H1 components [c][node] on its box's node
// grid, then L2 [zone][dof] on its box's zones) to rank 0, which places them by global node and zone
// index: H1 node (i, j, l) of the global grid of cells * k + 1 nodes per axis, zones lexicographic
// (the numbering of a one-rank discretisation). Shared nodes hold the same bits on every sharer
// (SharedDofs), so whichever rank writes one last writes that value. Returns the global state on
// rank 0 and an empty vector elsewhere. Rank 0 holds 8 (2 dim nh1 + nl2) bytes for it (global sizes).
std::vector<double> gather_global_state(const Partition& partition, int order_k, int l2_per_zone,
                                        const std::vector<double>& local_state);

}  // namespace laghos
