// The communication of the distributed GPU LU (dist_lu_gpu.cu), host code so that MPI and NCCL
// stay out of the CUDA file: the panel broadcast through the selected transport. GPU + MPI builds only.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "distributed/block_cyclic.hpp"
#include "distributed/host_messages.hpp"

namespace efie::dist {

// Two slots (the LU's two panel buffers, used in turn). Every device operation of the LU runs on
// the legacy default stream, in order; the broadcast's device copies join that stream.
class PanelBroadcast {
 public:
  virtual ~PanelBroadcast() = default;
  // On the root, as soon as the panel is packed (queued on the stream): start what can start
  // before the next kernels are queued (the host transport's D2H copy into the slot's pinned buffer).
  virtual void stage(const void* data, std::size_t bytes, int slot) = 0;
  // `bytes` of device memory at `data` go from process column `root` of this rank's process row
  // to the same buffer on every rank of the row (on a 1 x Q grid: from world rank `root` to every
  // rank); the data is in place for every kernel queued after the call. Every rank calls it for
  // every panel (the rows of a P x Q grid broadcast at the same time, each its own bytes).
  virtual void broadcast(void* data, std::size_t bytes, int root, int slot) = 0;
};
// host: D2H into pinned memory (staged early, an event per slot), MPI_Bcast, H2D queued on the
// stream, so MPI overlaps the kernels already queued; cuda-aware: device synchronise, MPI_Bcast of
// the device pointer; nccl: device synchronise, ncclBroadcast, synchronise; ipc: device copies
// from the root's exposed buffer between two barriers (these three do not overlap). A transport
// copa::halo::transport_unavailable rejects here (e.g. nccl with two ranks on one GPU) is refused
// (InputError naming --transport). max_bytes: one panel. lines: the grid's rows when P > 1 (host and
// cuda-aware broadcast on the row's communicator, ipc maps the root to its world rank; nccl is
// refused: its one communicator spans all ranks); null on a 1 x Q grid.
std::unique_ptr<PanelBroadcast> make_panel_broadcast(const std::string& transport, std::size_t max_bytes, const BlockCyclic& layout,
                                                     const GridLines* lines);

}  // namespace efie::dist
