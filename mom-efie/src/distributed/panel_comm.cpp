#include "distributed/panel_comm.hpp"
#include "distributed/host_messages.hpp"

#include <algorithm>

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
  explicit HostStaged(std::size_t max_bytes) : staging_(copa::gpu::malloc_pinned(std::max<std::size_t>(max_bytes, 1))) {}
  ~HostStaged() override { copa::gpu::free_pinned(staging_); }
  void broadcast(void* data, std::size_t bytes, int root) override {
    const bool me = copa::mpi::rank() == root;
    if (me) copa::gpu::copy_to_host(staging_, data, bytes);
    host_bcast(staging_, bytes, root);
    if (!me) {
      copa::gpu::copy_to_device(data, staging_, bytes);
      copa::gpu::synchronize();
    }
  }

 private:
  void* staging_;
};

class CudaAware final : public PanelBroadcast {
 public:
  void broadcast(void* data, std::size_t bytes, int root) override {
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
  void broadcast(void* data, std::size_t bytes, int root) override {
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
