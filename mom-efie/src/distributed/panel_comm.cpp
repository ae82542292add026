#include "distributed/panel_comm.hpp"
#include "distributed/host_messages.hpp"

#include <algorithm>

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

class HostStaged final : public PanelBroadcast {
 public:
  explicit HostStaged(std::size_t max_bytes) {
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
    const bool me = copa::mpi::rank() == root;
    if (me && !staged_[slot]) stage(data, bytes, slot);
    COPA_GPU_CHECK(cudaEventSynchronize(copied_[slot]));  // root: the D2H copy; others: the slot's last H2D
    staged_[slot] = false;
    host_bcast(pinned_[slot], bytes, root);
    if (!me) {
      COPA_GPU_CHECK(cudaMemcpyAsync(data, pinned_[slot], bytes, cudaMemcpyHostToDevice, nullptr));
      COPA_GPU_CHECK(cudaEventRecord(copied_[slot], nullptr));
    }
  }

 private:
  void* pinned_[2] = {nullptr, nullptr};
  cudaEvent_t copied_[2] = {};
  bool staged_[2] = {false, false};
};

class CudaAware final : public PanelBroadcast {
 public:
  void stage(const void*, std::size_t, int) override {}
  void broadcast(void* data, std::size_t bytes, int root, int) override {
    copa::gpu::synchronize();
    host_bcast(data, bytes, root);
  }
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

std::unique_ptr<PanelBroadcast> make_panel_broadcast(const std::string& transport, std::size_t max_bytes) {
  const auto t = copa::halo::parse_transport(transport);
  const std::string why = copa::halo::transport_unavailable(t);
  if (!why.empty()) throw copa::InputError("--transport " + transport + ": " + why);
  switch (t) {
    case copa::halo::Transport::host: return std::make_unique<HostStaged>(max_bytes);
    case copa::halo::Transport::cuda_aware: return std::make_unique<CudaAware>();
#if defined(COPA_HAVE_NCCL)
    case copa::halo::Transport::nccl: return std::make_unique<Nccl>();
#endif
    default: break;
  }
  throw copa::InputError("--transport " + transport + ": the distributed LU's panel broadcast has host, cuda-aware and nccl "
                         "(ipc is not written for it)");
}

}  // namespace efie::dist
