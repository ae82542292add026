// Inside of copa::halo::Exchange: the pattern (where each element goes) and the transports (how
// the packed messages move), shared by halo.cpp and the GPU transports.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "copa/halo.hpp"
#if defined(COPA_HAVE_MPI)
#include <mpi.h>
#endif

namespace copa::halo::detail {

// One message partner. Counts are elements per component; offsets are positions (doubles) in the
// packed send and receive buffers, where a link's message is its components one after the other.
struct Peer {
  int rank = 0;
  std::int64_t send_count = 0, recv_count = 0;
  std::int64_t send_offset = 0, recv_offset = 0;
};

// The buffers hold the messages of the other ranks first (ascending rank, so that the host-staged
// transport copies one contiguous range each way), then the self link (periodic wrap on one rank).
struct Plan {
  int rank = 0, ranks = 1, components = 1;
  std::vector<Peer> remote;                 // ascending rank
  bool has_self = false;
  Peer self;
  std::int64_t remote_send = 0, remote_recv = 0;  // doubles in the remote part of each buffer
  std::int64_t send_total = 0, recv_total = 0;    // doubles in each buffer
  std::vector<std::int64_t> gather_source;        // field index of every send-buffer position
  // Scatter in CSR form: destination d (field index target[d]) receives the receive-buffer positions
  // position[begin[d]] .. position[begin[d+1]-1], listed in ascending peer rank (the self link at
  // this rank's place), which fixes the order of the additions of Combine::add; the first below[d]
  // of them come from lower ranks (Combine::add_in_rank_order adds the own value after them).
  std::vector<std::int64_t> target, begin, position, below;
};

// Validates the links (peers in range, one link per peer, indices in the layout) and builds the plan.
Plan make_plan(std::vector<Link> links, const FieldLayout& layout, int rank, int ranks);

// The buffers a transport moves: packed sends, receives (host or device memory, as the field).
struct Buffers {
  const Plan* plan = nullptr;
  double* send = nullptr;
  double* recv = nullptr;
  void* stream = nullptr;       // the caller's: the unpack runs there
  void* pack_stream = nullptr;  // where the pack ran: the caller's, or the stream fork() handed out
#if defined(COPA_HAVE_MPI)
  MPI_Comm comm = MPI_COMM_NULL;  // the exchange's own duplicate of MPI_COMM_WORLD
#endif
};

// A transport moves the remote part of the send buffer into the peers' receive buffers.
// post() runs after the pack (and the self copy) are enqueued on pack_stream; complete() before
// the unpack is enqueued on stream.
class Mover {
 public:
  virtual ~Mover() = default;
  virtual void post(Buffers& b) = 0;
  virtual void complete(Buffers& b) = 0;
};

#if defined(COPA_HAVE_MPI)
// One message per peer, fixed tag: MPI keeps the order of messages between two ranks on one
// communicator, and each exchange has its own communicator, so one tag is enough.
inline constexpr int message_tag = 7100;
// Posts MPI_Irecv/MPI_Isend of every non-empty remote message between the given buffers (host or,
// for a CUDA-aware MPI, device pointers); the requests are appended to `requests`.
void post_messages(const Plan& plan, const double* send, double* recv, MPI_Comm comm,
                   std::vector<MPI_Request>& requests);
void wait_messages(std::vector<MPI_Request>& requests);
#endif

// The transports of GPU + MPI builds (halo_gpu_transports.cpp): cuda-aware, nccl, ipc. Collective.
std::unique_ptr<Mover> make_gpu_mover(Transport transport, Buffers& buffers);

}  // namespace copa::halo::detail
