#include "copa/gpu_timing.hpp"

#include <stdexcept>

#include "copa/energy.hpp"

#if defined(COPA_HAVE_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

namespace copa::gpu {

EventTimer::EventTimer(Profile& profile, stream_t stream) : RegionTimer(profile), stream_(stream) {}

EventTimer::~EventTimer() {
  for (auto* list : {&open_, &done_})
    for (auto& p : *list) {
      (void)COPA_GPU_SYMBOL(EventDestroy)(p.start);
      (void)COPA_GPU_SYMBOL(EventDestroy)(p.stop);
    }
  for (event_t e : free_) (void)COPA_GPU_SYMBOL(EventDestroy)(e);
}

event_t EventTimer::take_event() {
  if (!free_.empty()) {
    event_t e = free_.back();
    free_.pop_back();
    return e;
  }
  event_t e{};
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventCreate)(&e));
  return e;
}

void EventTimer::begin(const std::string& name) {
#if defined(COPA_HAVE_NVTX)
  nvtxRangePushA(name.c_str());
#endif
  energy::begin();
  Pending p{name, take_event(), take_event()};
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventRecord)(p.start, stream_));
  open_.push_back(p);
}

void EventTimer::end() {
  if (open_.empty()) throw std::logic_error("EventTimer::end without begin");
  Pending p = open_.back();
  open_.pop_back();
  COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventRecord)(p.stop, stream_));
  done_.push_back(p);
#if defined(COPA_HAVE_NVTX)
  nvtxRangePop();
#endif
}

void EventTimer::flush() {
  for (Pending& p : done_) {
    COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventSynchronize)(p.stop));
    float ms = 0;
    COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventElapsedTime)(&ms, p.start, p.stop));
    profile_.add(p.name, 1e-3 * static_cast<double>(ms));
    free_.push_back(p.start);
    free_.push_back(p.stop);
  }
  done_.clear();
  energy::mark();
}

}  // namespace copa::gpu
