#include "copa/timing.hpp"

#include "copa/energy.hpp"

#include <stdexcept>

#if defined(COPA_HAVE_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

namespace copa {

void Profile::add(const std::string& name, double seconds) {
  auto it = samples_.find(name);
  if (it == samples_.end()) {
    order_.push_back(name);
    it = samples_.emplace(name, std::vector<double>{}).first;
  }
  it->second.push_back(seconds);
}

bool Profile::has(const std::string& name) const { return samples_.count(name) != 0; }

const std::vector<double>& Profile::samples(const std::string& name) const {
  auto it = samples_.find(name);
  if (it == samples_.end()) throw std::out_of_range("no timing region named '" + name + "'");
  return it->second;
}

Stats Profile::stats(const std::string& name) const { return summarize(samples(name)); }

double Profile::total(const std::string& name) const { return has(name) ? stats(name).total : 0.0; }

void Profile::clear() {
  samples_.clear();
  order_.clear();
}

NvtxRange::NvtxRange([[maybe_unused]] const char* name) {
#if defined(COPA_HAVE_NVTX)
  nvtxRangePushA(name);
#endif
}

NvtxRange::~NvtxRange() {
#if defined(COPA_HAVE_NVTX)
  nvtxRangePop();
#endif
}

void HostTimer::begin(const std::string& name) {
  energy::begin();
  auto range = std::make_unique<NvtxRange>(name.c_str());
  open_.push_back({name, std::chrono::steady_clock::now(), std::move(range)});
}

void HostTimer::end() {
  if (open_.empty()) throw std::logic_error("HostTimer::end without begin");
  const auto stop = std::chrono::steady_clock::now();
  Open& o = open_.back();
  profile_.add(o.name, std::chrono::duration<double>(stop - o.start).count());
  open_.pop_back();
  if (open_.empty()) energy::mark();  // after the stop time: the meter never costs a timed region
}

void repeat_timed(RegionTimer& timer, const std::string& name, int warmup, int reps,
                  const std::function<void()>& body) {
  for (int i = 0; i < warmup; ++i) body();
  for (int i = 0; i < reps; ++i) {
    Region r(timer, name);
    body();
  }
  timer.flush();
}

double host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace copa
