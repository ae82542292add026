// H1 dofs shared by the boxes of neighbouring ranks, and their assembly across ranks (MFEM's
// ConformingProlongation transpose, then prolongation). Every element scatter (mass action, its
// diagonal, F 1) leaves each sharer with a partial sum; sum() makes them the full sum, with the
// same bits on every sharer:
//   1. every sharer sends its partial to the node's owner, the lowest sharing rank, which adds them
//      (copa::halo Combine::add: its own partial, then the others in ascending rank order, so the
//      total is the partials added in rank order);
//   2. the owner sends the total back and it replaces the partials (Combine::replace).
// Each shared node is owned by one rank, so dots over owned nodes count it once.
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
  // sum() in two halves, for --overlap: start_sum packs the partials and posts pass 1 (sharers ->
  // owner); finish_sum completes it and runs pass 2 (owner -> sharers), which needs pass 1's totals,
  // so only pass 1 can overlap with other work. Between the two calls the caller may write every
  // dof except the shared ones (on a GPU: work enqueued on the default stream after start_sum).
  void start_sum(double* field, int components);
  void finish_sum(double* field, int components);

  // 1 at the nodes this rank owns, 0 at those a lower rank owns.
  const std::vector<double>& owned_mask() const { return owned_; }
  // 1 at the nodes this rank shares with at least one other rank.
  const std::vector<char>& shared_mask() const { return shared_; }
  long long owned_count() const { return owned_count_; }
  long long shared_nodes() const { return shared_nodes_; }  // nodes this rank shares with others
  int peers() const { return peers_; }
  // Bytes one sum() of `components` components sends to / receives from other ranks (both passes).
  std::size_t bytes_sent(int components) const;
  std::size_t bytes_received(int components) const;

 private:
  std::vector<double> owned_;
  std::vector<char> shared_;
  long long owned_count_ = 0, shared_nodes_ = 0;
  int peers_ = 0;
  std::unique_ptr<copa::halo::Exchange> to_owner_[2], from_owner_[2];  // [0]: 1 component, [1]: dim
};

}  // namespace laghos
