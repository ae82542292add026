// The GPU transports of the halo layer (GPU + MPI builds): cuda-aware MPI, NCCL and CUDA IPC.
// Each moves the remote part of the packed device send buffer into the peers' device receive
// buffers; the pack and unpack kernels are the same for every transport (halo.cpp).
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "copa/errors.hpp"
#include "copa/gpu.hpp"
#include "copa/halo.hpp"
#include "copa/gpu_side_stream.hpp"
#include "halo_impl.hpp"
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // OpenMPI: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif
#if defined(COPA_HAVE_NCCL)
#include <nccl.h>
#endif

namespace copa::halo {

namespace {

// "host:PCI bus id" of this rank's current device.
std::string device_key() {
  std::array<char, 64> bus{};
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(DeviceGetPCIBusId)(bus.data(), static_cast<int>(bus.size()), gpu::current_device()));
  std::array<char, 128> host{};
  gethostname(host.data(), host.size() - 1);
  return std::string(host.data()) + ":" + bus.data();
}

// Every rank's device key, in rank order (collective over comm).
std::vector<std::string> device_keys(MPI_Comm comm) {
  constexpr int width = 200;
  std::array<char, width> mine{};
  const std::string key = device_key();
  std::strncpy(mine.data(), key.c_str(), width - 1);
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  std::vector<char> all(static_cast<std::size_t>(ranks) * width);
  MPI_Allgather(mine.data(), width, MPI_CHAR, all.data(), width, MPI_CHAR, comm);
  std::vector<std::string> keys;
  for (int r = 0; r < ranks; ++r) keys.emplace_back(all.data() + static_cast<std::size_t>(r) * width);
  return keys;
}

// "ranks 0 and 1 share GPU host:0000:1a:00.0", or "" when every rank has its own device.
std::string shared_device(MPI_Comm comm) {
  const auto keys = device_keys(comm);
  for (std::size_t a = 0; a < keys.size(); ++a)
    for (std::size_t b = a + 1; b < keys.size(); ++b)
      if (keys[a] == keys[b])
        return "ranks " + std::to_string(a) + " and " + std::to_string(b) + " share GPU " + keys[a];
  return "";
}

bool mpi_reports_cuda_support() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

}  // namespace

std::string transport_unavailable(Transport t) {
  if (t == Transport::host) return "";
  const auto built = transports_built();
  if (std::find(built.begin(), built.end(), to_string(t)) == built.end())
    return "'" + to_string(t) + "' is not built in this executable";
  if (gpu::device_count() == 0) return "no GPU device is present";
  if (t == Transport::cuda_aware && !mpi_reports_cuda_support())
    return "this MPI library does not report CUDA support (MPIX_Query_cuda_support); use host, ipc or nccl";
  if (t == Transport::nccl) {
    // Before the binding every rank is on device 0, and NCCL would be refused as 'duplicate GPU' on
    // a node with a GPU per rank (mps-density and laghos-like did this on two H200s).
    if (!gpu::device_was_set())
      throw RuntimeError("internal error: the nccl check ran before this rank's GPU was selected "
                         "(copa::select_device must come first)");
    const std::string shared = shared_device(MPI_COMM_WORLD);
    if (!shared.empty())
      return "NCCL refuses two ranks on one GPU ('duplicate GPU'): " + shared + "; use ipc or host";
  }
  return "";
}

namespace detail {

namespace {

// Device pointers handed to MPI. The pack runs on the stream and MPI does not know the stream,
// so the stream is synchronised before the sends are posted.
class CudaAwareMover : public Mover {
 public:
  void post(Buffers& b) override {
    gpu::synchronize(static_cast<gpu::stream_t>(b.pack_stream));
    post_messages(*b.plan, b.send, b.recv, b.comm, requests_);
  }
  void complete(Buffers&) override { wait_messages(requests_); }

 private:
  std::vector<MPI_Request> requests_;
};

// CUDA IPC. At construction every rank exports the handle of its receive buffer (a plain
// cudaMalloc allocation) and tells each peer where in that buffer the peer's message lands; each
// rank opens the buffers of the peers it sends to. post() only marks the pack on the stream and
// returns, so that the caller can enqueue more work (laghos-like's interior elements under
// --overlap) before the host blocks in the handshakes; complete() moves the messages:
//   1. wait for the marked pack (which also means this rank's unpack of the previous step is done,
//      earlier on the same stream), then send a zero-byte "ready" to every peer that writes into
//      this rank's receive buffer;
//   2. after the "ready" of each destination, copy the message into the peer's buffer on the side
//      stream (cudaMemcpyAsync, peer to peer, or within the device when two ranks share one GPU);
//   3. wait for the copies and send a zero-byte "done" to each destination; unpack after all of
//      this rank's "done" messages arrived.
// Zero-byte MPI messages rather than IPC events: MPI already orders the ranks, it needs no
// interprocess event per peer and step, and it works unchanged when both ranks share one device;
// the cost is two host round trips per step (DISTRIBUTED.md measured 6.9 us for 8 B with one
// barrier), small next to the staged transport. Between start() and finish() the caller's stream
// runs its own work: the round trips and the copy overlap with it (results/h200-x2/20261129).
class IpcMover : public Mover {
 public:
  static constexpr int ready_tag = message_tag + 1, done_tag = message_tag + 2;
  using handle_t = COPA_GPU_SYMBOL(IpcMemHandle_t);

  explicit IpcMover(Buffers& b) {
    const Plan& plan = *b.plan;
    check_one_node(plan, b.comm);
    handle_t mine{};
    COPA_GPU_CHECK(COPA_GPU_SYMBOL(IpcGetMemHandle)(&mine, b.recv));
    std::vector<handle_t> handles(static_cast<std::size_t>(plan.ranks));
    MPI_Allgather(&mine, sizeof(handle_t), MPI_BYTE, handles.data(), sizeof(handle_t), MPI_BYTE, b.comm);
    // Where each peer's message lands in this rank's receive buffer, and where this rank's lands in theirs.
    std::vector<long long> offset_for(static_cast<std::size_t>(plan.ranks), 0), offset_at(offset_for.size(), 0);
    for (const Peer& p : plan.remote) offset_for[static_cast<std::size_t>(p.rank)] = p.recv_offset;
    MPI_Alltoall(offset_for.data(), 1, MPI_LONG_LONG, offset_at.data(), 1, MPI_LONG_LONG, b.comm);
    for (const Peer& p : plan.remote) {
      if (p.send_count == 0) continue;
      void* base = nullptr;
      COPA_GPU_CHECK(COPA_GPU_SYMBOL(IpcOpenMemHandle)(&base, handles[static_cast<std::size_t>(p.rank)],
                                                       COPA_GPU_SYMBOL(IpcMemLazyEnablePeerAccess)));
      opened_.push_back(base);
      destinations_.push_back({p, static_cast<double*>(base) + offset_at[static_cast<std::size_t>(p.rank)]});
    }
    comm_ = b.comm;
  }

  ~IpcMover() override {
    for (void* p : opened_) static_cast<void>(COPA_GPU_SYMBOL(IpcCloseMemHandle)(p));
    // No rank frees its receive buffer (after this) while a peer still has it open.
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (!finalised) MPI_Barrier(comm_);
  }

  void post(Buffers& b) override { side_.mark_start(static_cast<gpu::stream_t>(b.pack_stream)); }

  void complete(Buffers& b) override {
    const Plan& plan = *b.plan;
    side_.wait_start_on_host();
    std::vector<MPI_Request> ready;
    for (const Peer& p : plan.remote)
      if (p.recv_count > 0) post_empty(p.rank, ready_tag, false, pending_);
    for (const auto& d : destinations_) post_empty(d.peer.rank, ready_tag, true, ready);
    wait_messages(ready);
    for (const auto& d : destinations_)
      COPA_GPU_CHECK(COPA_GPU_SYMBOL(MemcpyAsync)(d.address, b.send + d.peer.send_offset,
                                                  static_cast<std::size_t>(plan.components * d.peer.send_count) *
                                                      sizeof(double),
                                                  COPA_GPU_SYMBOL(MemcpyDefault), side_.stream()));
    side_.mark_end();
    side_.wait_end_on_host();
    for (const auto& d : destinations_) post_empty(d.peer.rank, done_tag, false, pending_);
    for (const Peer& p : plan.remote)
      if (p.recv_count > 0) post_empty(p.rank, done_tag, true, pending_);
    wait_messages(pending_);
  }

 private:
  struct Destination {
    Peer peer;
    double* address;
  };

  void post_empty(int peer, int tag, bool receive, std::vector<MPI_Request>& requests) {
    requests.emplace_back();
    if (receive)
      MPI_Irecv(nullptr, 0, MPI_BYTE, peer, tag, comm_, &requests.back());
    else
      MPI_Isend(nullptr, 0, MPI_BYTE, peer, tag, comm_, &requests.back());
  }

  // IPC handles open only on the node that exported them.
  static void check_one_node(const Plan& plan, MPI_Comm comm) {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int leader = plan.rank;
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);
    MPI_Comm_free(&node);
    std::vector<int> leaders(static_cast<std::size_t>(plan.ranks));
    MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm);
    for (const Peer& p : plan.remote)
      if (leaders[static_cast<std::size_t>(p.rank)] != leader)
        throw InputError("--transport ipc: rank " + std::to_string(p.rank) + " is on another node than rank " +
                         std::to_string(plan.rank) + " (CUDA IPC works within one node); use host or nccl");
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<void*> opened_;
  std::vector<Destination> destinations_;
  std::vector<MPI_Request> pending_;
  // The transfer's own stream, ordered after the pack and before the unpack by events rather than
  // by the caller's stream: work enqueued on the caller's stream between start() and finish()
  // (laghos-like's interior elements under --overlap) then runs while the message moves, where on
  // the caller's stream it queued behind the transfer (ipc synchronised in start(), nccl's kernels
  // ran first) and --overlap gained nothing (results/h200-x2/20261129). Of the highest priority: on
  // a normal-priority stream laghos-like's boundary elements, enqueued just before the interior
  // kernel, got their multiprocessors only as that kernel drained, and the pack, the transfer and
  // the unpack waited 18 us per CG iteration behind it (copa-gputrace, 44^3 per H200).
  gpu::SideStream side_;
};

#if defined(COPA_HAVE_NCCL)
void nccl_check(ncclResult_t r, const char* call) {
  if (r != ncclSuccess) throw RuntimeError(std::string("NCCL: ") + call + ": " + ncclGetErrorString(r));
}

// Grouped ncclSend/ncclRecv on the side stream, after the pack by an event; complete() makes the
// caller's stream wait for them (no host wait). One communicator per exchange, from an
// ncclUniqueId that rank 0 broadcasts over MPI.
class NcclMover : public Mover {
 public:
  explicit NcclMover(Buffers& b) {
    const Plan& plan = *b.plan;
    ncclUniqueId id{};
    if (plan.rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, b.comm);
    nccl_check(ncclCommInitRank(&comm_, plan.ranks, id, plan.rank), "ncclCommInitRank");
    // NCCL connects two ranks at their first send/recv, not at ncclCommInitRank: on two H200s that
    // first exchange took 1.2 s (laghos-like's first halo sample, results/h200-x2/20261129), 30,000
    // times a steady exchange. One exchange of the (not yet packed) buffers here makes the connection
    // part of the set-up, where the other transports open their handles; every later exchange
    // overwrites what it moved.
    post(b);
    complete(b);
    COPA_GPU_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(b.stream)));
  }
  ~NcclMover() override { ncclCommDestroy(comm_); }

  void post(Buffers& b) override {
    const Plan& plan = *b.plan;
    const auto stream = static_cast<cudaStream_t>(side_.fork(static_cast<gpu::stream_t>(b.pack_stream)));
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    for (const Peer& p : plan.remote) {
      if (p.send_count > 0)
        nccl_check(ncclSend(b.send + p.send_offset, static_cast<std::size_t>(plan.components * p.send_count),
                            ncclDouble, p.rank, comm_, stream),
                   "ncclSend");
      if (p.recv_count > 0)
        nccl_check(ncclRecv(b.recv + p.recv_offset, static_cast<std::size_t>(plan.components * p.recv_count),
                            ncclDouble, p.rank, comm_, stream),
                   "ncclRecv");
    }
    nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    side_.mark_end();
  }
  void complete(Buffers& b) override { side_.join(static_cast<gpu::stream_t>(b.stream)); }

 private:
  gpu::SideStream side_;  // the transfer's own stream, as IpcMover's
  ncclComm_t comm_ = nullptr;
};
#endif

}  // namespace

std::unique_ptr<Mover> make_gpu_mover(Transport transport, Buffers& buffers) {
  // The same answer on every rank (one MPI library; the device keys are gathered), so every rank
  // refuses together and none waits in the collectives below.
  const std::string why = transport_unavailable(transport);
  if (!why.empty()) throw InputError("--transport " + to_string(transport) + ": " + why);
  switch (transport) {
    case Transport::cuda_aware:
      return std::make_unique<CudaAwareMover>();
    case Transport::ipc:
      return std::make_unique<IpcMover>(buffers);
#if defined(COPA_HAVE_NCCL)
    case Transport::nccl:
      return std::make_unique<NcclMover>(buffers);
#endif
    default:
      throw InputError("--transport " + to_string(transport) + ": not built in this executable");
  }
}

}  // namespace detail

}  // namespace copa::halo
