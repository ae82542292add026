#include "distributed/panel_comm.hpp"
#include "distributed/host_messages.hpp"

#include <algorithm>
#include <exception>
#include <vector>

#include <cuda_runtime_api.h>

#include <mpi.h>
#if defined(COPA_HAVE_NCCL)
#include <nccl.h>
#endif

#include "copa/errors.hpp"
#include "copa/gpu.hpp"
#include "copa/halo.hpp"
#include "copa/mpi.hpp"

namespace efie::dist {
namespace {

// MPI_Bcast on host or (cuda-aware) device memory along the process row: MPI_COMM_WORLD on a
// 1 x Q grid (lines null), else the row's communicator, where the root's index is its column.
void bcast_along_row(const GridLines* lines, void* data, std::size_t bytes, int root) {
  if (lines)
    lines->row_bcast(data, bytes, root);
  else
    host_bcast(data, bytes, root);
}

class HostStaged final : public PanelBroadcast {
 public:
  HostStaged(std::size_t max_bytes, const BlockCyclic& layout, const GridLines* lines) : layout_(layout), lines_(lines) {
    for (int i = 0; i < 2; ++i) {
      pinned_[i] = copa::gpu::malloc_pinned(std::max<std::size_t>(max_bytes, 1));
      COPA_GPU_CHECK(cudaEventCreateWithFlags(&copied_[i], cudaEventDisableTiming));
    }
  }
  ~HostStaged() override {
    for (int i = 0; i < 2; ++i) {
      cudaEventSynchronize(copied_[i]);
      cudaEventDestroy(copied_[i]);
      copa::gpu::free_pinned(pinned_[i]);
    }
  }
  void stage(const void* data, std::size_t bytes, int slot) override {
    // the slot's last copy (an H2D of two panels ago) must be done before its buffer is refilled
    COPA_GPU_CHECK(cudaEventSynchronize(copied_[slot]));
    COPA_GPU_CHECK(cudaMemcpyAsync(pinned_[slot], data, bytes, cudaMemcpyDeviceToHost, nullptr));
    COPA_GPU_CHECK(cudaEventRecord(copied_[slot], nullptr));
    staged_[slot] = true;
  }
  void broadcast(void* data, std::size_t bytes, int root, int slot) override {
    const bool me = layout_.mycol == root;
    if (me && !staged_[slot]) stage(data, bytes, slot);
    COPA_GPU_CHECK(cudaEventSynchronize(copied_[slot]));  // root: the D2H copy; others: the slot's last H2D
    staged_[slot] = false;
    bcast_along_row(lines_, pinned_[slot], bytes, root);
    if (!me) {
      COPA_GPU_CHECK(cudaMemcpyAsync(data, pinned_[slot], bytes, cudaMemcpyHostToDevice, nullptr));
      COPA_GPU_CHECK(cudaEventRecord(copied_[slot], nullptr));
    }
  }

 private:
  BlockCyclic layout_;
  const GridLines* lines_;
  void* pinned_[2] = {nullptr, nullptr};
  cudaEvent_t copied_[2] = {};
  bool staged_[2] = {false, false};
};

class CudaAware final : public PanelBroadcast {
 public:
  explicit CudaAware(const GridLines* lines) : lines_(lines) {}
  void stage(const void*, std::size_t, int) override {}
  void broadcast(void* data, std::size_t bytes, int root, int) override {
    copa::gpu::synchronize();
    bcast_along_row(lines_, data, bytes, root);
  }

 private:
  const GridLines* lines_;
};

// CUDA IPC (ranks of one node, a GPU each or sharing one): every rank exposes two device buffers
// (plain cudaMalloc, which IPC needs; one per slot) and maps everyone else's. The root copies the
// packed panel into its exposed buffer; after a barrier the others copy it from there into their
// panel buffer; a second barrier keeps the root from refilling the buffer before all have copied.
// On a P x Q grid every process row broadcasts at once (its root: world rank myrow Q + root), so
// the barriers over all ranks still pair up.
// Synchronous around the copies (no overlap with the queued GEMM).
class Ipc final : public PanelBroadcast {
 public:
  Ipc(std::size_t max_bytes, const BlockCyclic& layout) : row_start_(layout.myrow * layout.grid.q) {
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    std::vector<cudaIpcMemHandle_t> handles(std::size_t(ranks) * 2);
    for (int i = 0; i < 2; ++i) {
      COPA_GPU_CHECK(cudaMalloc(&exposed_[i], std::max<std::size_t>(max_bytes, 1)));
      cudaIpcMemHandle_t mine{};
      COPA_GPU_CHECK(cudaIpcGetMemHandle(&mine, exposed_[i]));
      std::vector<cudaIpcMemHandle_t> all(ranks);
      MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
      for (int r = 0; r < ranks; ++r) handles[std::size_t(r) * 2 + i] = all[r];
    }
    const int me = copa::mpi::rank();
    peers_.assign(std::size_t(ranks) * 2, nullptr);
    for (int r = 0; r < ranks; ++r)
      for (int i = 0; i < 2; ++i)
        if (r == me)
          peers_[std::size_t(r) * 2 + i] = exposed_[i];
        else
          COPA_GPU_CHECK(cudaIpcOpenMemHandle(&peers_[std::size_t(r) * 2 + i], handles[std::size_t(r) * 2 + i],
                                              cudaIpcMemLazyEnablePeerAccess));
  }
  ~Ipc() override {
    const int me = copa::mpi::rank();
    for (std::size_t j = 0; j < peers_.size(); ++j)
      if (int(j / 2) != me && peers_[j]) cudaIpcCloseMemHandle(peers_[j]);
    // No rank frees a buffer another still maps; a rank unwinding an error alone skips the barrier
    // (the others may wait in a broadcast; the abort that follows ends them all).
    if (std::uncaught_exceptions() == 0) MPI_Barrier(MPI_COMM_WORLD);
    for (void* p : exposed_) cudaFree(p);
  }
  void stage(const void*, std::size_t, int) override {}
  void broadcast(void* data, std::size_t bytes, int column, int slot) override {
    const int root = row_start_ + column;
    const bool me = copa::mpi::rank() == root;
    copa::gpu::synchronize();
    if (me) COPA_GPU_CHECK(cudaMemcpy(exposed_[slot], data, bytes, cudaMemcpyDeviceToDevice));
    MPI_Barrier(MPI_COMM_WORLD);
    if (!me) COPA_GPU_CHECK(cudaMemcpy(data, peers_[std::size_t(root) * 2 + slot], bytes, cudaMemcpyDeviceToDevice));
    copa::gpu::synchronize();
    MPI_Barrier(MPI_COMM_WORLD);
  }

 private:
  int row_start_;
  void* exposed_[2] = {nullptr, nullptr};
  std::vector<void*> peers_;
};

#if defined(COPA_HAVE_NCCL)
void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw copa::RuntimeError(std::string(what) + " failed: " + ncclGetErrorString(r));
}

class Nccl final : public PanelBroadcast {
 public:
  Nccl() {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    ncclUniqueId id{};
    if (rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    nccl_check(ncclCommInitRank(&comm_, ranks, id, rank), "ncclCommInitRank");
  }
  ~Nccl() override { ncclCommDestroy(comm_); }
  void stage(const void*, std::size_t, int) override {}
  void broadcast(void* data, std::size_t bytes, int root, int) override {
    copa::gpu::synchronize();
    nccl_check(ncclBroadcast(data, data, bytes, ncclChar, root, comm_, nullptr), "ncclBroadcast");
    copa::gpu::synchronize();
  }

 private:
  ncclComm_t comm_{};
};
#endif

}  // namespace

std::unique_ptr<PanelBroadcast> make_panel_broadcast(const std::string& transport, std::size_t max_bytes, const BlockCyclic& layout,
                                                     const GridLines* lines) {
  const auto t = copa::halo::parse_transport(transport);
  const std::string why = copa::halo::transport_unavailable(t);
  if (!why.empty()) throw copa::InputError("--transport " + transport + ": " + why);
  if (lines && t == copa::halo::Transport::nccl)
    throw copa::InputError("--transport nccl with --proc-grid " + std::to_string(layout.grid.p) + "x" + std::to_string(layout.grid.q) +
                           ": the P > 1 LU's row broadcasts are not written for NCCL (one communicator over all ranks); use host, "
                           "ipc or cuda-aware");
  switch (t) {
    case copa::halo::Transport::host: return std::make_unique<HostStaged>(max_bytes, layout, lines);
    case copa::halo::Transport::cuda_aware: return std::make_unique<CudaAware>(lines);
    case copa::halo::Transport::ipc: return std::make_unique<Ipc>(max_bytes, layout);
#if defined(COPA_HAVE_NCCL)
    case copa::halo::Transport::nccl: return std::make_unique<Nccl>();
#endif
    default: break;
  }
  throw copa::InputError("--transport " + transport + ": not built for the distributed LU's panel broadcast");
}

}  // namespace efie::dist
