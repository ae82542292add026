// Ranks on one node share its host memory: a per-rank memory check would let N ranks that each fit
// together exceed it. The node's ranks (MPI_COMM_TYPE_SHARED) add their estimates first.
#pragma once

namespace laghos {

struct NodeShare {
  double bytes = 0;  // the sum of the estimates of the ranks sharing this rank's node
  int ranks = 1;     // how many they are
};

// Collective over MPI_COMM_WORLD; one rank (or no MPI): {bytes, 1}.
NodeShare sum_over_node(double bytes);

}  // namespace laghos
