// A side stream forked from a caller's stream and joined back to it by events, never by a host
// wait: work put on it runs beside what the caller's stream holds after the fork. Non-blocking, so
// that it does not serialise with the legacy default stream either, and of the highest priority:
// what runs on it is short and others wait for it, while the caller's stream may hold a long
// kernel (a normal-priority side stream's blocks get their multiprocessors only as that kernel
// drains). Users: the halo layer's device exchanges (a transport's transfer, Exchange::fork()) and
// ramses-oct's AMR leaf update (the single octs beside the sibling groups).
#pragma once
#include "copa/errors.hpp"
#include "copa/gpu.hpp"

namespace copa::gpu {

class SideStream {
 public:
  SideStream() : stream_(create_priority_stream()) {
    for (event_t* e : {&entered_, &left_})
      COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventCreateWithFlags)(e, COPA_GPU_SYMBOL(EventDisableTiming)));
  }
  ~SideStream() {  // no throw from a destructor: errors here are ignored
    static_cast<void>(COPA_GPU_SYMBOL(EventDestroy)(entered_));
    static_cast<void>(COPA_GPU_SYMBOL(EventDestroy)(left_));
    static_cast<void>(COPA_GPU_SYMBOL(StreamDestroy)(stream_));
  }
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;

  // Marks what `main` holds so far (wait_start_on_host() waits for it).
  void mark_start(stream_t main) { COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventRecord)(entered_, main)); }
  // The fork: the side stream, ordered after what `main` holds so far.
  stream_t fork(stream_t main) {
    mark_start(main);
    COPA_GPU_CHECK(COPA_GPU_SYMBOL(StreamWaitEvent)(stream_, entered_, 0));
    return stream_;
  }
  void wait_start_on_host() { COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventSynchronize)(entered_)); }
  stream_t stream() const { return stream_; }
  // Marks the end of what the side stream holds so far.
  void mark_end() { COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventRecord)(left_, stream_)); }
  // `main` continues after that mark, without a host wait.
  void join(stream_t main) { COPA_GPU_CHECK(COPA_GPU_SYMBOL(StreamWaitEvent)(main, left_, 0)); }
  void wait_end_on_host() { COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventSynchronize)(left_)); }

 private:
  stream_t stream_;
  event_t entered_{}, left_{};
};

}  // namespace copa::gpu
