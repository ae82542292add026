// H1 dofs shared by the boxes of neighbouring ranks, and their assembly across ranks (MFEM's
// ConformingProlongation transpose, then prolongation). Every element scatter (mass action, its
// diagonal, F 1) leaves each sharer with a partial sum; sum() makes them the full sum, with the
// same bits on every sharer, in ONE exchange: every sharer sends its partial to every other sharer
// and adds all of them in ascending rank order, its own at its place (copa::halo
// Combine::add_in_rank_order). MFEM (and this class before) reduce to the node's owner, the lowest
// sharer, and send the total back: two exchanges in series whose total is the same sum in the same
// order, so the single pass gives the same bits with half the exchange latency (the CG's H1 mass
// action runs one per iteration), at the price of m (m - 1) instead of 2 (m - 1) messages per node
// shared by m ranks (the same for the m = 2 of a face; more on the few edge and corner nodes).
// Each shared node is owned by one rank, the lowest sharer, so dots over owned nodes count it once.
#pragma once
#include <memory>
#include <vector>

#include "copa/halo.hpp"
#include "partition.hpp"

namespace laghos {

class SharedDofs {
 public:
  // Collective over MPI_COMM_WORLD. `order_k`: the H1 order (nodes per cell edge). Device fields
  // (GPU backends) are exchanged on the default stream, where the GPU kernels run.
  SharedDofs(const Partition& partition, int order_k, int rank, copa::halo::Transport transport,
             copa::halo::Memory memory);

  // field[c * nh1 + dof], c < components (1 or dim): partials -> the sum over all sharers.
  void sum(double* field, int components);
  // sum() in two halves, for --overlap: start_sum packs the partials and posts the exchange;
  // finish_sum completes it and adds. The whole exchange can overlap with other work between the
  // two calls, which may write every dof except the shared ones (on a GPU: work enqueued on the
  // default stream after start_sum).
  void start_sum(double* field, int components);
  void finish_sum(double* field, int components);
  // Before start_sum, on a GPU: the exchange's own stream, ordered after the default stream's work
  // so far; the pack runs there, beside the default stream's later work (copa::halo::Exchange::fork).
  // Null for host fields.
  void* fork(int components);

  // 1 at the nodes this rank owns, 0 at those a lower rank owns.
  const std::vector<double>& owned_mask() const { return owned_; }
  // 1 at the nodes this rank shares with at least one other rank.
  const std::vector<char>& shared_mask() const { return shared_; }
  long long owned_count() const { return owned_count_; }
  long long shared_nodes() const { return shared_nodes_; }  // nodes this rank shares with others
  int peers() const { return peers_; }
  // Bytes one sum() of `components` components sends to / receives from other ranks.
  std::size_t bytes_sent(int components) const;
  std::size_t bytes_received(int components) const;

 private:
  std::vector<double> owned_;
  std::vector<char> shared_;
  long long owned_count_ = 0, shared_nodes_ = 0;
  int peers_ = 0;
  std::unique_ptr<copa::halo::Exchange> exchange_[2];  // [0]: 1 component, [1]: dim
};

}  // namespace laghos
