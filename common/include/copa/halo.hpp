// Halo exchange between MPI ranks with selectable transports (DISTRIBUTED.md, "A transport layer").
//
// A pattern is persistent: the links (peer, elements to send, elements that receive) are given once,
// the buffers (host, pinned or device) and the transport's resources (IPC handles, NCCL communicator)
// are set up once, and every step calls start() then finish(). All of a rank's outgoing messages are
// packed by one gather (one kernel launch on the GPU) into one send buffer, and unpacked by one
// scatter from one receive buffer.
//
// Transports:
//   host        MPI on host memory; for device fields through pinned staging buffers (D2H, MPI, H2D).
//               The only transport of CPU builds, available in every MPI build: the portable baseline.
//   cuda-aware  device pointers handed to MPI; refused (InputError, exit 2) where the MPI library does
//               not report CUDA support.
//   nccl        grouped ncclSend/ncclRecv on the stream; built only with CUDA, MPI and NCCL found.
//   ipc         CUDA IPC: each rank maps its peers' receive buffers and copies into them peer to peer;
//               ranks of one node only.
// Without MPI (or on one rank) an exchange with no links does nothing; links to oneself (periodic
// wrap on one rank) are copied locally by every transport.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace copa::halo {

enum class Transport { host, cuda_aware, nccl, ipc };
// Throws InputError naming --transport for an unknown name or one this build does not have.
Transport parse_transport(const std::string& name);
std::string to_string(Transport t);
// Transports this build can use ("host" always; the GPU ones in GPU + MPI builds).
std::vector<std::string> transports_built();
// "" when transport t can run here, else why not: not built, an MPI without CUDA support
// (cuda-aware), ranks that share one GPU (nccl). Collective over MPI_COMM_WORLD in GPU + MPI builds
// (the device of every rank is gathered), so that every rank gets the same answer. The nccl answer
// compares each rank's current device: call copa::select_device first (otherwise every rank would
// still be on the runtime's default device 0 and NCCL refused as 'duplicate GPU' on a node with a GPU
// per rank; the check throws RuntimeError, exit 3, when no device was selected yet).
std::string transport_unavailable(Transport t);

enum class Memory { host, device };
// replace: received values overwrite the ghost elements (forward halo fill).
// add: received values are added to the elements, links in ascending peer order, so that every
//      rank adds the same operands in the same order (reverse exchange: partial sums to owners).
// add_in_rank_order: the element's own value and the received ones added in ascending rank order,
//      the own value at this rank's place (before a self link's values). Where every sharer of an
//      element sends its partial to every other sharer, all of them compute the same sum, bit for
//      bit, in one exchange: the sum the owner (lowest sharer) forms with add, without the second
//      exchange that returns it (laghos-like's shared H1 dofs).
enum class Combine { replace, add, add_in_rank_order };

// One neighbour of this rank: the elements it sends to `peer`, and the elements that receive what
// `peer` sends, in the order `peer` lists them in its own `send` for this rank.
struct Link {
  int peer = 0;
  std::vector<std::int64_t> send;
  std::vector<std::int64_t> recv;
};

// Element i of component c of an exchanged field is at data[c * component_stride + i].
struct FieldLayout {
  int components = 1;
  std::int64_t component_stride = 0;
};

class Exchange {
 public:
  // Collective over MPI_COMM_WORLD (every rank constructs its pattern at the same point).
  // `stream` is the GPU stream (cudaStream_t / hipStream_t) for device fields, ignored for host ones.
  Exchange(std::vector<Link> links, FieldLayout layout, Transport transport, Memory memory,
           Combine combine = Combine::replace, void* stream = nullptr);
  // Collective too for the ipc transport (a barrier, so that no rank frees a receive buffer a peer
  // still has mapped).
  ~Exchange();
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  // Overlap of the sent values' computation with other work (laghos-like --overlap). For a device
  // field, fork() returns the exchange's own stream (cudaStream_t / hipStream_t), ordered after what
  // the caller's stream holds now; start() then packs there, after whatever the caller enqueued
  // there (the work that produces the sent values, or nothing), and finish() joins it back into the
  // caller's stream before the unpack. Until finish() the two streams run side by side: work on the
  // caller's stream must not write what this rank sends, nor touch what the unpack writes. For a
  // host field fork() returns null and changes nothing.
  void* fork();
  // Packs every outgoing message (one gather) and posts the transfers.
  void start(double* field);
  // Completes the transfers and unpacks (one scatter); the field is ready on the stream afterwards.
  void finish(double* field);
  void run(double* field) {
    start(field);
    finish(field);
  }

  Transport transport() const;
  std::size_t bytes_sent() const;      // per exchange, to other ranks (self links excluded)
  std::size_t bytes_received() const;  // per exchange, from other ranks
  int peers() const;                   // other ranks this rank exchanges with

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace copa::halo
