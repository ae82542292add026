// Device-event timing: begin/end record events on the timer's stream; flush() waits for the
// last stop event and turns every pair into a sample. No synchronisation happens between
// begin and flush, so a time step timed region by region runs as it would untimed.
#pragma once
#include <string>
#include <vector>

#include "copa/gpu.hpp"
#include "copa/timing.hpp"

namespace copa::gpu {

class EventTimer final : public RegionTimer {
 public:
  EventTimer(Profile& profile, stream_t stream = nullptr);
  ~EventTimer() override;
  void begin(const std::string& name) override;
  void end() override;
  void flush() override;
  void set_stream(stream_t stream) { stream_ = stream; }

 private:
  struct Pending {
    std::string name;
    event_t start, stop;
  };
  event_t take_event();
  stream_t stream_;
  std::vector<Pending> open_, done_;
  std::vector<event_t> free_;
  int nvtx_depth_ = 0;
};

}  // namespace copa::gpu
