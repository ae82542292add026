// The side streams of the halo layer's device exchanges: a transport's own stream for the
// transfer (ipc, nccl), and the stream Exchange::fork() hands out. Each is ordered against the
// caller's stream by events, never by a host wait.
#pragma once
#include "copa/errors.hpp"
#include "copa/gpu.hpp"

namespace copa::halo::detail {

// The transfer's own stream, ordered after the pack and before the unpack by events rather than
// by the caller's stream: work enqueued on the caller's stream between start() and finish()
// (laghos-like's interior elements under --overlap) then runs while the message moves, where on
// the caller's stream it queued behind the transfer (ipc synchronised in start(), nccl's kernels
// ran first) and --overlap gained nothing (results/h200-x2/20261129). Non-blocking, so that it
// does not serialise with the legacy default stream either. Of the highest priority: what runs
// here is short and others wait for it, while the caller's stream may hold a long kernel. On a
// normal-priority fork stream laghos-like's boundary elements, enqueued just before the interior
// kernel, got their multiprocessors only as that kernel drained: the pack, the transfer and the
// unpack then waited 18 us per CG iteration behind it (copa-gputrace, 44^3 per H200).
class SideStream {
 public:
  SideStream() : stream_(gpu::create_priority_stream()) {
    for (gpu::event_t* e : {&entered_, &left_})
      COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventCreateWithFlags)(e, COPA_GPU_SYMBOL(EventDisableTiming)));
  }
  ~SideStream() {  // no throw from a destructor: errors here are ignored
    static_cast<void>(COPA_GPU_SYMBOL(EventDestroy)(entered_));
    static_cast<void>(COPA_GPU_SYMBOL(EventDestroy)(left_));
    static_cast<void>(COPA_GPU_SYMBOL(StreamDestroy)(stream_));
  }
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;

  // Marks what `main` holds so far (the pack).
  void mark_start(gpu::stream_t main) { COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventRecord)(entered_, main)); }
  // The side stream, after the mark on `main`.
  gpu::stream_t after_start() {
    COPA_GPU_CHECK(COPA_GPU_SYMBOL(StreamWaitEvent)(stream_, entered_, 0));
    return stream_;
  }
  void wait_start_on_host() { COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventSynchronize)(entered_)); }
  gpu::stream_t stream() const { return stream_; }
  // Marks the end of what the side stream holds so far.
  void mark_end() { COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventRecord)(left_, stream_)); }
  // `main` continues after that mark, without a host wait.
  void join(gpu::stream_t main) { COPA_GPU_CHECK(COPA_GPU_SYMBOL(StreamWaitEvent)(main, left_, 0)); }
  void wait_end_on_host() { COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventSynchronize)(left_)); }

 private:
  gpu::stream_t stream_;
  gpu::event_t entered_{}, left_{};
};

}  // namespace copa::halo::detail
