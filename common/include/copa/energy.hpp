// Energy, power, clocks and throttle state of the timed run, read (never set) through the vendor's
// management library loaded at run time: NVML (libnvidia-ml.so.1) on NVIDIA GPUs, ROCm SMI
// (librocm_smi64.so) on AMD GPUs, the powercap/RAPL package counters
// (/sys/class/powercap/intel-rapl:N/energy_uj) for CPU backends. No build needs any of them: a
// machine without one reports no energy, with the reason.
//
// The timed run is metered from the first timed region (RegionTimer::begin) to the last region that
// finished (HostTimer::end, EventTimer::flush): the timers call begin() and mark(); an app that times
// without them calls begin() and end() around its timed run.
// Energy comes from the source's cumulative counter where it has one (NVML
// nvmlDeviceGetTotalEnergyConsumption, ROCm SMI rsmi_dev_energy_count_get, RAPL energy_uj with its
// wraparound at max_energy_range_uj), otherwise from power samples every 20 ms integrated by the
// trapezoidal rule; the samples are taken beside a counter too, as its cross-check.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace copa::energy {

// One device's clocks and limits at one instant (fields the library does not give stay empty).
struct DeviceState {
  std::optional<double> sm_mhz, mem_mhz, power_limit_w, temperature_c;
  std::optional<std::uint64_t> reasons;  // NVML clocks event (throttle) reasons bitmask
};

// NVML clocks event reasons that mean power or thermal throttling: SW power cap 0x4, HW slowdown
// 0x8, SW thermal 0x20, HW thermal 0x40, HW power brake 0x80 (nvml.h, nvmlClocksEventReason*).
constexpr std::uint64_t throttle_mask = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;
std::vector<std::string> reason_names(std::uint64_t reasons);

struct Measurement {
  std::string source;  // "nvml energy counter", "nvml power samples", "rocm-smi ...", "rapl"; empty: none
  std::string reason;  // why there is no energy (source empty)
  double joules = 0, seconds = 0;
  int devices = 0;  // GPUs or CPU packages summed
  int power_samples = 0;
  double sampled_power_w = 0;  // mean of the power samples (0 without samples)
  std::string power_kind;      // what one sample is (empty without samples)
  std::string clocks_reason;   // why there are no clocks (empty when start/end were read)
  std::optional<DeviceState> start, end;
  std::uint64_t reasons_seen = 0;  // OR of the reasons read at start, at every mark and at the end
  bool any_reasons = false;
  bool available() const { return !source.empty(); }
  double mean_power_w() const { return seconds > 0 ? joules / seconds : 0; }
  bool throttled() const { return any_reasons && (reasons_seen & throttle_mask) != 0; }
};

// The process-wide meter of the timed run. begin() starts it once (later calls do nothing): the host
// meter (RAPL) and, in a GPU build with a device, the meter of the current device.
void begin();
// The latest end of the timed run: reads the counters (at most once a millisecond); end() always reads.
void mark();
void end();
// The GPU measurement for GPU backends, the host (RAPL) one otherwise; "no timed region" when the
// meter never started.
Measurement measurement(bool gpu);
// Collective over MPI ranks: joules summed (GPUs: every rank its own device; RAPL: node-local rank 0
// only, the packages are the node's), seconds the maximum, throttled if any rank was. Null energy
// when a rank has none. Without MPI or on one rank it returns m.
Measurement reduce_over_ranks(const Measurement& m);

// JSON of the report: {"energy": {...}} and {"clocks": {...}} (docs/CONVENTIONS.md).
nlohmann::json energy_json(const Measurement& m);
nlohmann::json clocks_json(const Measurement& m);
// "cell-updates/s" -> "cell-updates/J", "... / second" -> "... / joule": the unit of FOM / mean power.
std::string per_joule_unit(const std::string& fom_unit);

// RAPL counter difference with one wraparound at max_range (energy_uj counts up to
// max_energy_range_uj, then restarts at 0).
std::uint64_t counter_delta(std::uint64_t before, std::uint64_t after, std::uint64_t max_range);
// Forgets the meter (tests).
void reset();

}  // namespace copa::energy
