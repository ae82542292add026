// The communication of the distributed GPU LU (dist_lu_gpu.cu), host code so that MPI and NCCL
// stay out of the CUDA file: the panel broadcast through the selected transport. GPU + MPI builds only.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

namespace efie::dist {

class PanelBroadcast {
 public:
  virtual ~PanelBroadcast() = default;
  // `bytes` of device memory at `data` go from rank `root` to the same buffer on every rank.
  // Returns when the data is in place on this rank (the device is synchronised).
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
};
// host: D2H into pinned memory, MPI_Bcast, H2D (max_bytes of pinned staging); cuda-aware: MPI_Bcast
// of the device pointer; nccl: ncclBroadcast. ipc is refused (InputError naming --transport), as is
// a transport copa::halo::transport_unavailable rejects here (e.g. nccl with two ranks on one GPU).
std::unique_ptr<PanelBroadcast> make_panel_broadcast(const std::string& transport, std::size_t max_bytes);

}  // namespace efie::dist
