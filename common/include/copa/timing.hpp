// Named timing regions. A Profile keeps every sample of every region; a RegionTimer fills it.
// The host timer is for synchronous backends; the device-event timer (gpu_timing.hpp) records
// events on a stream and resolves them lazily, so timing adds no synchronisation inside a step.
// Every region is also an NVTX range of the same name, so Nsight shows the names of the report.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "copa/stats.hpp"

namespace copa {

class Profile {
 public:
  void add(const std::string& name, double seconds);
  bool has(const std::string& name) const;
  const std::vector<double>& samples(const std::string& name) const;
  Stats stats(const std::string& name) const;
  double total(const std::string& name) const;
  // Region names in the order they were first seen.
  const std::vector<std::string>& names() const { return order_; }
  void clear();

 private:
  std::map<std::string, std::vector<double>> samples_;
  std::vector<std::string> order_;
};

// NVTX range (push on construction, pop on destruction); no-op without NVTX.
class NvtxRange {
 public:
  explicit NvtxRange(const char* name);
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

class RegionTimer {
 public:
  explicit RegionTimer(Profile& profile) : profile_(profile) {}
  virtual ~RegionTimer() = default;
  virtual void begin(const std::string& name) = 0;
  virtual void end() = 0;
  // Makes every finished region visible in the profile (synchronises a device timer).
  virtual void flush() = 0;
  Profile& profile() { return profile_; }

 protected:
  Profile& profile_;
};

// Wall clock after the work completed: for serial and OpenMP backends.
class HostTimer final : public RegionTimer {
 public:
  using RegionTimer::RegionTimer;
  void begin(const std::string& name) override;
  void end() override;
  void flush() override {}

 private:
  struct Open {
    std::string name;
    std::chrono::steady_clock::time_point start;
    std::unique_ptr<NvtxRange> range;
  };
  std::vector<Open> open_;
};

// RAII region: Region r(timer, "force");
class Region {
 public:
  Region(RegionTimer& timer, const std::string& name) : timer_(timer) { timer_.begin(name); }
  ~Region() { timer_.end(); }
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

 private:
  RegionTimer& timer_;
};

// Runs body `warmup` times untimed, then `reps` times each inside region `name`; flushes.
void repeat_timed(RegionTimer& timer, const std::string& name, int warmup, int reps,
                  const std::function<void()>& body);

// Seconds on the host's monotonic clock.
double host_seconds();

}  // namespace copa
