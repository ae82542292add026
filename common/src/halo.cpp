// copa::halo::Exchange: pack (one gather), move (the transport), unpack (one scatter); the host
// transport (MPI on host buffers, or on pinned staging buffers for device fields).
#include "copa/halo.hpp"

#include <algorithm>
#include <string>

#include "copa/errors.hpp"
#include "copa/mpi.hpp"
#include "halo_combine.hpp"
#include "halo_impl.hpp"
#include "copa/gpu_model.hpp"
#if COPA_GPU
#include "copa/gpu.hpp"
#include "copa/gpu_side_stream.hpp"
#include "halo_kernels.hpp"
#define COPA_HALO_GPU 1
#endif

namespace copa::halo {

namespace {

const char* const transport_names[] = {"host", "cuda-aware", "nccl", "ipc"};

std::string built_list() {
  std::string s;
  for (const auto& t : transports_built()) s += (s.empty() ? "" : ", ") + t;
  return s;
}

bool is_built(Transport t) {
  const auto built = transports_built();
  return std::find(built.begin(), built.end(), to_string(t)) != built.end();
}

}  // namespace

std::string to_string(Transport t) { return transport_names[static_cast<int>(t)]; }

std::vector<std::string> transports_built() {
  std::vector<std::string> t{"host"};
#if defined(COPA_HAVE_MPI) && defined(COPA_HALO_GPU)
#if defined(COPA_HAVE_CUDA)
  t.push_back("cuda-aware");
#endif
#if defined(COPA_HAVE_NCCL)
  t.push_back("nccl");
#endif
  t.push_back("ipc");
#endif
  return t;
}

Transport parse_transport(const std::string& name) {
  for (int i = 0; i < 4; ++i) {
    if (name != transport_names[i]) continue;
    const auto t = static_cast<Transport>(i);
    if (!is_built(t))
      throw InputError("--transport: '" + name + "' is not built in this executable (built: " + built_list() + ")");
    return t;
  }
  throw InputError("--transport: unknown transport '" + name + "' (host, cuda-aware, nccl, ipc; built: " +
                   built_list() + ")");
}

#if !defined(COPA_HAVE_MPI) || !defined(COPA_HALO_GPU)
std::string transport_unavailable(Transport t) {
  return is_built(t) ? "" : "'" + to_string(t) + "' is not built in this executable";
}
#endif

namespace detail {

#if defined(COPA_HAVE_MPI)
void post_messages(const Plan& plan, const double* send, double* recv, MPI_Comm comm,
                   std::vector<MPI_Request>& requests) {
  const int c = plan.components;
  // Receives first, so that an eager send finds its receive posted.
  for (const Peer& p : plan.remote) {
    if (p.recv_count == 0) continue;
    requests.emplace_back();
    MPI_Irecv(recv + p.recv_offset, static_cast<int>(c * p.recv_count), MPI_DOUBLE, p.rank, message_tag, comm,
              &requests.back());
  }
  for (const Peer& p : plan.remote) {
    if (p.send_count == 0) continue;
    requests.emplace_back();
    MPI_Isend(send + p.send_offset, static_cast<int>(c * p.send_count), MPI_DOUBLE, p.rank, message_tag, comm,
              &requests.back());
  }
}

void wait_messages(std::vector<MPI_Request>& requests) {
  if (!requests.empty()) MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  requests.clear();
}

namespace {

// Host fields: MPI directly on the packed host buffers.
class HostMover : public Mover {
 public:
  void post(Buffers& b) override { post_messages(*b.plan, b.send, b.recv, b.comm, requests_); }
  void complete(Buffers&) override { wait_messages(requests_); }

 private:
  std::vector<MPI_Request> requests_;
};

#if defined(COPA_HALO_GPU)
// Device fields over the host: D2H of the packed remote messages into pinned memory, MPI, H2D.
class StagedMover : public Mover {
 public:
  explicit StagedMover(const Plan& plan)
      : send_bytes_(static_cast<std::size_t>(plan.remote_send) * sizeof(double)),
        recv_bytes_(static_cast<std::size_t>(plan.remote_recv) * sizeof(double)),
        send_(static_cast<double*>(gpu::malloc_pinned(std::max<std::size_t>(send_bytes_, 8)))),
        recv_(static_cast<double*>(gpu::malloc_pinned(std::max<std::size_t>(recv_bytes_, 8)))) {}
  ~StagedMover() override {
    gpu::free_pinned(send_);
    gpu::free_pinned(recv_);
  }
  void post(Buffers& b) override {
    const auto stream = static_cast<gpu::stream_t>(b.pack_stream);
    // Waits for the pack, and for the previous step's H2D out of recv_ before MPI refills it (on
    // the caller's stream, which a forked pack stream follows).
    gpu::synchronize(stream);
    if (send_bytes_ > 0) gpu::copy_to_host(send_, b.send, send_bytes_, stream);
    post_messages(*b.plan, send_, recv_, b.comm, requests_);
  }
  void complete(Buffers& b) override {
    wait_messages(requests_);
    if (recv_bytes_ > 0) gpu::copy_to_device(b.recv, recv_, recv_bytes_, static_cast<gpu::stream_t>(b.stream));
  }

 private:
  std::size_t send_bytes_, recv_bytes_;
  double* send_;
  double* recv_;
  std::vector<MPI_Request> requests_;
};
#endif

// Every rank checks that what it expects from each peer is what that peer sends (one all-to-all
// of the counts at construction), so a wrong decomposition fails here and not with garbage.
void check_counts(const Plan& plan, MPI_Comm comm) {
  std::vector<long long> sends(static_cast<std::size_t>(plan.ranks), 0), incoming(sends.size(), 0);
  for (const Peer& p : plan.remote) sends[static_cast<std::size_t>(p.rank)] = p.send_count;
  MPI_Alltoall(sends.data(), 1, MPI_LONG_LONG, incoming.data(), 1, MPI_LONG_LONG, comm);
  std::vector<long long> expected(sends.size(), 0);
  for (const Peer& p : plan.remote) expected[static_cast<std::size_t>(p.rank)] = p.recv_count;
  for (int r = 0; r < plan.ranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    if (r != plan.rank && expected[i] != incoming[i])
      throw RuntimeError("halo: rank " + std::to_string(plan.rank) + " expects " + std::to_string(expected[i]) +
                         " elements from rank " + std::to_string(r) + ", which sends " +
                         std::to_string(incoming[i]));
  }
}

}  // namespace
#endif

}  // namespace detail

class Exchange::Impl {
 public:
  Impl(std::vector<Link> links, FieldLayout layout, Transport transport, Memory memory, Combine combine, void* stream)
      : transport_(transport), memory_(memory), combine_(combine) {
    if (!is_built(transport))
      throw InputError("--transport: '" + to_string(transport) + "' is not built in this executable (built: " +
                       built_list() + ")");
    if (memory == Memory::host && transport != Transport::host)
      throw InputError("--transport: '" + to_string(transport) + "' moves device memory; host fields use 'host'");
#if !defined(COPA_HALO_GPU)
    if (memory == Memory::device) throw InputError("halo: a device field needs a GPU build (cuda or hip preset)");
#endif
    plan_ = detail::make_plan(std::move(links), layout, mpi::rank(), mpi::size());
    buffers_.plan = &plan_;
    buffers_.stream = stream;
    buffers_.pack_stream = stream;
#if defined(COPA_HAVE_MPI)
    if (mpi::enabled()) {
      MPI_Comm_dup(MPI_COMM_WORLD, &buffers_.comm);
      detail::check_counts(plan_, buffers_.comm);
    }
#endif
    if (memory == Memory::host) {
      send_host_.resize(static_cast<std::size_t>(plan_.send_total));
      recv_host_.resize(static_cast<std::size_t>(plan_.recv_total));
      buffers_.send = send_host_.data();
      buffers_.recv = recv_host_.data();
    } else {
      allocate_device();
    }
#if defined(COPA_HAVE_MPI)
    if (mpi::enabled()) {
      if (transport == Transport::host) {
#if defined(COPA_HALO_GPU)
        if (memory == Memory::device) mover_ = std::make_unique<detail::StagedMover>(plan_);
#endif
        if (!mover_) mover_ = std::make_unique<detail::HostMover>();
      } else {
#if defined(COPA_HALO_GPU)
        mover_ = detail::make_gpu_mover(transport, buffers_);
#endif
      }
    }
#endif
  }

  ~Impl() {
    mover_.reset();
#if defined(COPA_HALO_GPU)
    for (void* p : device_allocations_) gpu::free_device(p);
#endif
#if defined(COPA_HAVE_MPI)
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (buffers_.comm != MPI_COMM_NULL && !finalised) MPI_Comm_free(&buffers_.comm);
#endif
  }

  void* fork() {
    if (started_ || forked_) throw RuntimeError("halo: fork() inside an exchange (after start() or fork())");
#if defined(COPA_HALO_GPU)
    if (memory_ == Memory::device) {
      if (!fork_) fork_ = std::make_unique<gpu::SideStream>();
      buffers_.pack_stream = fork_->fork(stream());
      forked_ = true;
      return buffers_.pack_stream;
    }
#endif
    return nullptr;
  }

  void start(double* field) {
    if (started_) throw RuntimeError("halo: start() called twice without finish()");
    started_ = true;
    pack(field);
    copy_self();
    if (mover_) mover_->post(buffers_);
  }

  void finish(double* field) {
    if (!started_) throw RuntimeError("halo: finish() without start()");
    started_ = false;
    if (mover_) mover_->complete(buffers_);
#if defined(COPA_HALO_GPU)
    if (forked_) {
      fork_->mark_end();
      fork_->join(stream());
      buffers_.pack_stream = buffers_.stream;
      forked_ = false;
    }
#endif
    unpack(field);
  }

  const detail::Plan& plan() const { return plan_; }
  Transport transport() const { return transport_; }

 private:
  void pack(const double* field) {
    if (memory_ == Memory::host) {
      for (std::size_t k = 0; k < plan_.gather_source.size(); ++k)
        send_host_[k] = field[plan_.gather_source[k]];
      return;
    }
#if defined(COPA_HALO_GPU)
    detail::gather_on_device(field, gather_source_, buffers_.send, plan_.send_total, pack_stream());
#endif
  }

  // The self link's message goes straight from the send to the receive buffer.
  void copy_self() {
    if (!plan_.has_self || plan_.self.send_count == 0) return;
    const std::int64_t n = plan_.components * plan_.self.send_count;
    const double* from = buffers_.send + plan_.self.send_offset;
    double* to = buffers_.recv + plan_.self.recv_offset;
    if (memory_ == Memory::host) {
      std::copy(from, from + n, to);
      return;
    }
#if defined(COPA_HALO_GPU)
    gpu::copy_on_device(to, from, static_cast<std::size_t>(n) * sizeof(double), pack_stream());
#endif
  }

  void unpack(double* field) {
    if (memory_ == Memory::host) {
      for (std::size_t d = 0; d < plan_.target.size(); ++d)
        field[plan_.target[d]] = detail::combined_value(combine_, field[plan_.target[d]], recv_host_.data(),
                                                        plan_.position.data(), plan_.begin[d], plan_.begin[d + 1],
                                                        plan_.below[d]);
      return;
    }
#if defined(COPA_HALO_GPU)
    detail::scatter_on_device(field, target_, begin_, position_, below_, buffers_.recv,
                              static_cast<std::int64_t>(plan_.target.size()), combine_, stream());
#endif
  }

#if defined(COPA_HALO_GPU)
  gpu::stream_t stream() const { return static_cast<gpu::stream_t>(buffers_.stream); }
  gpu::stream_t pack_stream() const { return static_cast<gpu::stream_t>(buffers_.pack_stream); }

  // Plain device allocations (gpu::malloc_device is cudaMalloc/hipMalloc, not the stream-ordered
  // pool): the IPC transport exports the receive buffer, which pool memory would not allow. At least
  // one element, so that a rank receiving nothing (one side of a ping-pong) still has a real
  // allocation to export: cudaMalloc(0) gives a null pointer, which cudaIpcGetMemHandle rejects.
  template <class T>
  T* device_copy_of(const std::vector<T>& host, std::size_t min_count = 1) {
    const std::size_t bytes = std::max({host.size(), min_count, std::size_t(1)}) * sizeof(T);
    void* p = gpu::malloc_device(bytes);
    device_allocations_.push_back(p);
    if (!host.empty()) gpu::copy_to_device(p, host.data(), host.size() * sizeof(T), stream());
    return static_cast<T*>(p);
  }

  void allocate_device() {
    const std::size_t send_bytes = static_cast<std::size_t>(plan_.send_total) * sizeof(double);
    const std::size_t recv_bytes = static_cast<std::size_t>(plan_.recv_total) * sizeof(double);
    const std::size_t index_bytes =
        (plan_.gather_source.size() + plan_.target.size() + plan_.begin.size() + plan_.position.size() +
         plan_.below.size()) *
        sizeof(std::int64_t);
    gpu::require_device_memory(send_bytes + recv_bytes + index_bytes, "the halo exchange's buffers");
    buffers_.send = device_copy_of(std::vector<double>(), static_cast<std::size_t>(plan_.send_total));
    buffers_.recv = device_copy_of(std::vector<double>(), static_cast<std::size_t>(plan_.recv_total));
    gather_source_ = device_copy_of(plan_.gather_source);
    target_ = device_copy_of(plan_.target);
    begin_ = device_copy_of(plan_.begin);
    position_ = device_copy_of(plan_.position);
    below_ = device_copy_of(plan_.below);
    gpu::synchronize(stream());
  }

  std::vector<void*> device_allocations_;
  std::unique_ptr<gpu::SideStream> fork_;  // the stream fork() hands out, made at the first fork()
  const std::int64_t* gather_source_ = nullptr;
  const std::int64_t* target_ = nullptr;
  const std::int64_t* begin_ = nullptr;
  const std::int64_t* position_ = nullptr;
  const std::int64_t* below_ = nullptr;
#else
  void allocate_device() {}
#endif

  Transport transport_;
  Memory memory_;
  Combine combine_;
  detail::Plan plan_;
  detail::Buffers buffers_;
  std::vector<double> send_host_, recv_host_;
  std::unique_ptr<detail::Mover> mover_;
  bool started_ = false, forked_ = false;
};

Exchange::Exchange(std::vector<Link> links, FieldLayout layout, Transport transport, Memory memory, Combine combine,
                   void* stream)
    : impl_(std::make_unique<Impl>(std::move(links), layout, transport, memory, combine, stream)) {}
Exchange::~Exchange() = default;
void* Exchange::fork() { return impl_->fork(); }
void Exchange::start(double* field) { impl_->start(field); }
void Exchange::finish(double* field) { impl_->finish(field); }
Transport Exchange::transport() const { return impl_->transport(); }

std::size_t Exchange::bytes_sent() const {
  return static_cast<std::size_t>(impl_->plan().remote_send) * sizeof(double);
}
std::size_t Exchange::bytes_received() const {
  return static_cast<std::size_t>(impl_->plan().remote_recv) * sizeof(double);
}
int Exchange::peers() const { return static_cast<int>(impl_->plan().remote.size()); }

}  // namespace copa::halo
