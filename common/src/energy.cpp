#include "copa/energy.hpp"

#include <dirent.h>
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>

#include "copa/gpu_model.hpp"
#include "copa/mpi.hpp"
#if COPA_GPU
#include "copa/gpu.hpp"
#endif

namespace copa::energy {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A source of one kind: a cumulative counter (joules, monotonic) and/or power samples, and the state.
class Source {
 public:
  virtual ~Source() = default;
  virtual std::string name() const = 0;
  virtual bool read_counter(double& joules) = 0;
  virtual bool read_power(double& watts) = 0;
  virtual std::optional<DeviceState> state() { return std::nullopt; }
  virtual std::string clocks_reason() const { return "no clocks from " + name(); }
  // What one power sample is (an instantaneous reading or a library-side average).
  virtual std::string power_kind() const { return "instantaneous"; }
  int devices = 1;
};

// ---- NVML (documented API, nvml.h; the few types and prototypes copa calls) ----
using nvmlReturn_t = int;  // NVML_SUCCESS = 0
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
constexpr int NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0;
// nvmlDeviceGetPowerUsage returns the power averaged over the last second on Ampere (except GA100)
// and newer GPUs, so samples of it lag the energy counter at every change of load; the field
// NVML_FI_DEV_POWER_INSTANT (186) is the current power on every architecture. nvmlFieldValue_t:
constexpr unsigned NVML_FI_DEV_POWER_INSTANT = 186;
constexpr int NVML_VALUE_TYPE_UNSIGNED_INT = 1;
struct nvmlFieldValue_t {
  unsigned field_id, scope_id;
  long long timestamp_us, latency_us;
  int value_type;      // nvmlValueType_t
  nvmlReturn_t status; // this field's nvmlReturn_t
  union {
    double d;
    unsigned ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
    unsigned short us;
  } value;
};

struct Nvml {
  nvmlReturn_t (*init)();
  const char* (*error_string)(nvmlReturn_t);
  nvmlReturn_t (*by_index)(unsigned, nvmlDevice_t*);
  nvmlReturn_t (*by_pci)(const char*, nvmlDevice_t*);
  nvmlReturn_t (*total_energy)(nvmlDevice_t, unsigned long long*);  // mJ since the driver loaded
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned*);                    // mW
  nvmlReturn_t (*field_values)(nvmlDevice_t, int, nvmlFieldValue_t*);  // NVML_FI_DEV_POWER_INSTANT: mW
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned*);               // MHz
  nvmlReturn_t (*power_limit)(nvmlDevice_t, unsigned*);              // mW (enforced)
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*);         // degrees C
  nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long*);        // clocks event reasons
};

template <class F>
bool sym(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

class NvmlSource final : public Source {
 public:
  // Empty `reason` on success.
  NvmlSource(const std::string& pci_bus_id, int ordinal, std::string& reason) {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);  // never closed: cheap, and safe at exit
    if (!lib) {
      reason = std::string("libnvidia-ml.so.1 not loadable (") + dlerror() + ")";
      return;
    }
    if (!sym(lib, "nvmlInit_v2", n_.init) || !sym(lib, "nvmlErrorString", n_.error_string) ||
        !sym(lib, "nvmlDeviceGetHandleByIndex_v2", n_.by_index)) {
      reason = "libnvidia-ml.so.1 lacks nvmlInit_v2 or nvmlDeviceGetHandleByIndex_v2";
      return;
    }
    sym(lib, "nvmlDeviceGetHandleByPciBusId_v2", n_.by_pci);
    sym(lib, "nvmlDeviceGetTotalEnergyConsumption", n_.total_energy);
    sym(lib, "nvmlDeviceGetPowerUsage", n_.power);
    sym(lib, "nvmlDeviceGetFieldValues", n_.field_values);
    sym(lib, "nvmlDeviceGetClockInfo", n_.clock);
    sym(lib, "nvmlDeviceGetEnforcedPowerLimit", n_.power_limit);
    sym(lib, "nvmlDeviceGetTemperature", n_.temperature);
    if (!sym(lib, "nvmlDeviceGetCurrentClocksEventReasons", n_.reasons))
      sym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", n_.reasons);
    if (nvmlReturn_t rc = n_.init(); rc != 0) {
      reason = std::string("nvmlInit_v2: ") + n_.error_string(rc);
      return;
    }
    // The runtime's ordinal differs from NVML's index under CUDA_VISIBLE_DEVICES: the PCI bus id does not.
    nvmlReturn_t rc = 1;
    if (n_.by_pci && !pci_bus_id.empty()) rc = n_.by_pci(pci_bus_id.c_str(), &dev_);
    if (rc != 0) rc = n_.by_index(static_cast<unsigned>(ordinal), &dev_);
    if (rc != 0) {
      reason = std::string("NVML has no handle for device ") + std::to_string(ordinal) + ": " + n_.error_string(rc);
      return;
    }
    unsigned long long mj = 0;
    counter_ = n_.total_energy && n_.total_energy(dev_, &mj) == 0;
    unsigned mw = 0;
    instant_ = read_instant(mw);
    power_ = instant_ || (n_.power && n_.power(dev_, &mw) == 0);
    if (!counter_ && !power_) reason = "NVML gives neither the total-energy counter nor power on this GPU";
  }
  std::string name() const override { return "nvml"; }
  bool read_counter(double& joules) override {
    unsigned long long mj = 0;
    if (!counter_ || n_.total_energy(dev_, &mj) != 0) return false;
    joules = 1e-3 * static_cast<double>(mj);
    return true;
  }
  bool read_power(double& watts) override {
    unsigned mw = 0;
    if (!power_ || !(instant_ ? read_instant(mw) : n_.power(dev_, &mw) == 0)) return false;
    watts = 1e-3 * mw;
    return true;
  }
  std::string power_kind() const override {
    return instant_ ? "instantaneous (NVML_FI_DEV_POWER_INSTANT)"
                    : "nvmlDeviceGetPowerUsage (a 1 s average on Ampere and newer GPUs)";
  }
  std::optional<DeviceState> state() override {
    DeviceState s;
    unsigned v = 0;
    if (n_.clock && n_.clock(dev_, NVML_CLOCK_SM, &v) == 0) s.sm_mhz = v;
    if (n_.clock && n_.clock(dev_, NVML_CLOCK_MEM, &v) == 0) s.mem_mhz = v;
    if (n_.power_limit && n_.power_limit(dev_, &v) == 0) s.power_limit_w = 1e-3 * v;
    if (n_.temperature && n_.temperature(dev_, NVML_TEMPERATURE_GPU, &v) == 0) s.temperature_c = v;
    unsigned long long r = 0;
    if (n_.reasons && n_.reasons(dev_, &r) == 0) s.reasons = r;
    return s;
  }

 private:
  bool read_instant(unsigned& mw) {
    if (!n_.field_values) return false;
    nvmlFieldValue_t f{};
    f.field_id = NVML_FI_DEV_POWER_INSTANT;
    if (n_.field_values(dev_, 1, &f) != 0 || f.status != 0 || f.value_type != NVML_VALUE_TYPE_UNSIGNED_INT) return false;
    mw = f.value.ui;
    return true;
  }
  Nvml n_{};
  nvmlDevice_t dev_ = nullptr;
  bool counter_ = false, power_ = false, instant_ = false;
};

// ---- ROCm SMI (rocm_smi.h; status 0 = RSMI_STATUS_SUCCESS) ----
class RocmSmiSource final : public Source {
 public:
  RocmSmiSource(int ordinal, std::string& reason) : index_(static_cast<std::uint32_t>(ordinal)) {
    void* lib = dlopen("librocm_smi64.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("librocm_smi64.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      reason = std::string("librocm_smi64.so not loadable (") + dlerror() + ")";
      return;
    }
    int (*init)(std::uint64_t) = nullptr;
    if (!sym(lib, "rsmi_init", init) || init(0) != 0) {
      reason = "rsmi_init failed";
      return;
    }
    sym(lib, "rsmi_dev_energy_count_get", energy_);
    sym(lib, "rsmi_dev_power_ave_get", power_);
    sym(lib, "rsmi_dev_temp_metric_get", temp_);
    sym(lib, "rsmi_dev_power_cap_get", cap_);
    double j = 0, w = 0;
    has_counter_ = read_counter(j);
    has_power_ = read_power(w);
    if (!has_counter_ && !has_power_) reason = "ROCm SMI gives neither the energy counter nor power on this GPU";
  }
  std::string name() const override { return "rocm-smi"; }
  std::string power_kind() const override { return "rsmi_dev_power_ave_get (the SMU's running average)"; }
  bool read_counter(double& joules) override {
    std::uint64_t count = 0, ts = 0;
    float resolution = 0;  // microjoules per count
    if (!energy_ || energy_(index_, &count, &resolution, &ts) != 0) return false;
    joules = 1e-6 * static_cast<double>(count) * resolution;
    return true;
  }
  bool read_power(double& watts) override {
    std::uint64_t uw = 0;
    if (!power_ || power_(index_, 0, &uw) != 0) return false;
    watts = 1e-6 * static_cast<double>(uw);
    return true;
  }
  std::optional<DeviceState> state() override {
    DeviceState s;
    std::int64_t milli = 0;
    std::uint64_t uw = 0;
    if (temp_ && temp_(index_, 0 /*edge*/, 0 /*current*/, &milli) == 0) s.temperature_c = 1e-3 * milli;
    if (cap_ && cap_(index_, 0, &uw) == 0) s.power_limit_w = 1e-6 * static_cast<double>(uw);
    return s;
  }
  std::string clocks_reason() const override { return ""; }

 private:
  std::uint32_t index_;
  int (*energy_)(std::uint32_t, std::uint64_t*, float*, std::uint64_t*) = nullptr;
  int (*power_)(std::uint32_t, std::uint32_t, std::uint64_t*) = nullptr;
  int (*temp_)(std::uint32_t, std::uint32_t, int, std::int64_t*) = nullptr;
  int (*cap_)(std::uint32_t, std::uint32_t, std::uint64_t*) = nullptr;
  bool has_counter_ = false, has_power_ = false;
};

// ---- RAPL through powercap: one intel-rapl:N zone per CPU package (subzones are inside it) ----
bool read_u64(const std::string& path, std::uint64_t& v) {
  std::ifstream f(path);
  return static_cast<bool>(f >> v);
}

class RaplSource final : public Source {
 public:
  explicit RaplSource(std::string& reason) {
    const char* env = std::getenv("COPA_POWERCAP_ROOT");  // tests point it at a fake tree
    const std::string root = env && *env ? env : "/sys/class/powercap";
    DIR* d = opendir(root.c_str());
    if (!d) {
      reason = root + " absent (no powercap/RAPL on this machine)";
      return;
    }
    int found = 0;
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n.rfind("intel-rapl:", 0) != 0 || n.find(':', 11) != std::string::npos) continue;
      ++found;
      Zone z{root + "/" + n, 0, 0, 0};
      if (read_u64(z.dir + "/energy_uj", z.last) && read_u64(z.dir + "/max_energy_range_uj", z.max_range))
        zones_.push_back(z);
    }
    closedir(d);
    if (zones_.empty())
      reason = found ? "RAPL energy_uj not readable (root only on recent kernels)" : "no RAPL package zone under " + root;
    devices = static_cast<int>(zones_.size());
  }
  std::string name() const override { return "rapl"; }
  bool read_counter(double& joules) override {
    for (Zone& z : zones_) {
      std::uint64_t v = 0;
      if (!read_u64(z.dir + "/energy_uj", v)) return false;
      z.total_uj += counter_delta(z.last, v, z.max_range);
      z.last = v;
    }
    double uj = 0;
    for (const Zone& z : zones_) uj += static_cast<double>(z.total_uj);
    joules = 1e-6 * uj;
    return true;
  }
  bool read_power(double&) override { return false; }
  std::string clocks_reason() const override { return "no clock or throttle state from RAPL"; }

 private:
  struct Zone {
    std::string dir;
    std::uint64_t last, max_range, total_uj;
  };
  std::vector<Zone> zones_;
};

// One metered run of one source. The app's thread only takes time stamps (mark: a clock read
// under a lock): every library call (the counter, power, clocks) is made by the sampler thread,
// since one NVML query costs about a millisecond and, made at the end of every timed region, it
// stretched an AMR run of 1 s to 13 s and shortened its host-timed regions (the device caught up
// inside the meter's time). The energy at the last mark is interpolated between the counter
// readings on either side of it (0.1 s apart).
class Meter {
 public:
  Meter(std::unique_ptr<Source> src, std::string reason) : src_(std::move(src)), reason_(std::move(reason)) {
    if (!reason_.empty()) return;
    t0_ = t_end_ = now_s();
    counter_ = src_->read_counter(e0_);
    before_ = last_counter_ = {t0_, e0_};
    e_end_ = e0_;
    start_ = latest_ = src_->state();
    end_ = start_;
    note(start_);
    double w = 0;
    power_ = src_->read_power(w);
    last_w_ = w;
    last_t_ = t0_;
    if (counter_ || power_) sampler_ = std::thread([this] { sample(); });
  }
  ~Meter() {
    stop_ = true;
    if (sampler_.joinable()) sampler_.join();
  }
  // The latest end of the timed interval; force (energy::end) also reads the clocks now.
  void mark(bool force) {
    if (!reason_.empty()) return;
    std::optional<DeviceState> s;
    double e = 0;
    bool read = false;
    if (force) {  // once per run: read the counter and the clocks now
      std::lock_guard<std::mutex> src_lock(src_mu_);
      read = counter_ && src_->read_counter(e);
      s = src_->state();
    }
    std::lock_guard<std::mutex> lock(mu_);
    t_end_ = now_s();
    pending_ = counter_ && !read;
    if (read) {
      before_ = last_counter_ = {t_end_, e};
      e_end_ = e;
    } else if (pending_) {
      // The reading at or before t_end_ is before_ (the sampler's latest); the sampler finishes
      // the interpolation with its next reading.
      before_ = last_counter_;
      e_end_ = before_.e;
    }
    if (force) {
      end_ = s;
      note(s);
    } else {
      end_ = latest_;
    }
    sampled_j_end_ = sampled_j_ + last_w_ * (t_end_ - last_t_);
    samples_end_ = samples_;
    sum_w_end_ = sum_w_;
  }
  Measurement result() {
    Measurement m;
    if (!reason_.empty()) {
      m.reason = reason_;
      m.clocks_reason = reason_;
      return m;
    }
    bool pending = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      pending = pending_;
    }
    double e_now = 0;
    bool read_now = false;
    if (pending) {  // no reading after the last mark yet: one now closes the interpolation
      std::lock_guard<std::mutex> src_lock(src_mu_);
      read_now = src_->read_counter(e_now);
    }
    const double t_now = now_s();
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_ && read_now) finish_end({t_now, e_now});
    m.seconds = t_end_ - t0_;
    if (!(m.seconds > 0)) {
      m.reason = m.clocks_reason = "no timed region finished";
      return m;
    }
    m.devices = src_->devices;
    m.power_samples = samples_end_;
    if (samples_end_) m.power_kind = src_->power_kind();
    m.sampled_power_w = samples_end_ ? sum_w_end_ / samples_end_ : 0;
    if (counter_) {
      m.source = src_->name() + " energy counter";
      m.joules = e_end_ - e0_;
    } else if (power_) {
      m.source = src_->name() + " power samples";
      m.joules = sampled_j_end_;
    } else {
      m.reason = src_->name() + ": no reading";
    }
    m.start = start_;
    m.end = end_;
    m.clocks_reason = start_ ? "" : src_->clocks_reason();
    m.reasons_seen = reasons_;
    m.any_reasons = any_reasons_;
    return m;
  }

 private:
  struct Reading {
    double t = 0, e = 0;
  };
  void note(const std::optional<DeviceState>& s) {
    if (s && s->reasons) {
      reasons_ |= *s->reasons;
      any_reasons_ = true;
    }
  }
  // Linear in time between the reading before the last mark and the first one after it.
  void finish_end(const Reading& after) {
    const double span = after.t - before_.t;
    e_end_ = span > 0 ? before_.e + (after.e - before_.e) * (t_end_ - before_.t) / span : after.e;
    pending_ = false;
  }
  // Every 0.1 s the counter and the power (trapezoidal rule), every second the clocks and throttle
  // reasons: a few library calls a second, so that the sampler does not slow the run it meters.
  void sample() {
    double last_state = now_s();
    while (!stop_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      double e = 0, w = 0;
      std::optional<DeviceState> s;
      double t = 0;
      bool have_e = false, have_w = false;
      {
        std::lock_guard<std::mutex> src_lock(src_mu_);
        have_e = counter_ && src_->read_counter(e);
        have_w = power_ && src_->read_power(w);
        t = now_s();
        if (t - last_state > 1.0) {
          s = src_->state();
          last_state = t;
        }
      }
      std::lock_guard<std::mutex> lock(mu_);
      if (have_e) {
        if (pending_ && t > t_end_) finish_end({t, e});
        last_counter_ = {t, e};
      }
      if (have_w) {
        sampled_j_ += 0.5 * (w + last_w_) * (t - last_t_);
        last_w_ = w;
        last_t_ = t;
        sum_w_ += w;
        ++samples_;
      }
      if (s) {
        latest_ = s;
        note(s);
      }
    }
  }
  std::unique_ptr<Source> src_;
  std::string reason_;
  bool counter_ = false, power_ = false, pending_ = false;
  double t0_ = 0, t_end_ = 0, e0_ = 0, e_end_ = 0;
  Reading before_, last_counter_;
  std::optional<DeviceState> start_, end_, latest_;
  std::uint64_t reasons_ = 0;
  bool any_reasons_ = false;
  std::mutex mu_;      // the readings and marks
  std::mutex src_mu_;  // the source's library calls (RAPL's wrap tracking is state)
  std::thread sampler_;
  std::atomic<bool> stop_{false};
  double last_w_ = 0, last_t_ = 0, sampled_j_ = 0, sum_w_ = 0, sampled_j_end_ = 0, sum_w_end_ = 0;
  int samples_ = 0, samples_end_ = 0;
};

struct Global {
  std::mutex mu;
  std::unique_ptr<Meter> host, gpu;
};
Global& global() {
  static Global g;
  return g;
}

nlohmann::json state_json(const std::optional<DeviceState>& s) {
  if (!s) return nullptr;
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json j = {{"sm_mhz", opt(s->sm_mhz)},
                      {"mem_mhz", opt(s->mem_mhz)},
                      {"power_limit_w", opt(s->power_limit_w)},
                      {"temperature_c", opt(s->temperature_c)},
                      {"reasons_mask", s->reasons ? nlohmann::json(*s->reasons) : nlohmann::json(nullptr)},
                      {"reasons", s->reasons ? nlohmann::json(reason_names(*s->reasons)) : nlohmann::json(nullptr)}};
  return j;
}

}  // namespace

std::vector<std::string> reason_names(std::uint64_t r) {
  static const std::pair<std::uint64_t, const char*> names[] = {
      {0x1, "gpu_idle"},           {0x2, "applications_clocks"},  {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},        {0x10, "sync_boost"},          {0x20, "sw_thermal"},
      {0x40, "hw_thermal"},        {0x80, "hw_power_brake"},      {0x100, "display_clocks"}};
  std::vector<std::string> out;
  for (const auto& [bit, name] : names)
    if (r & bit) out.push_back(name);
  return out;
}

std::uint64_t counter_delta(std::uint64_t before, std::uint64_t after, std::uint64_t max_range) {
  if (after >= before) return after - before;
  return max_range >= before ? max_range - before + after : after;  // wrapped once at max_range
}

void begin() {
  Global& g = global();
  std::lock_guard<std::mutex> lock(g.mu);
  if (g.host) return;
  // COPA_ENERGY=off: no meter and no sampler thread (to measure what the meter costs a run).
  if (const char* env = std::getenv("COPA_ENERGY"); env && std::string(env) == "off") {
    const std::string off = "the meter is off (COPA_ENERGY=off)";
    g.host = std::make_unique<Meter>(nullptr, off);
#if COPA_GPU
    g.gpu = std::make_unique<Meter>(nullptr, off);
#endif
    return;
  }
  std::string reason;
  auto rapl = std::make_unique<RaplSource>(reason);
  g.host = std::make_unique<Meter>(std::move(rapl), reason);
#if COPA_GPU
  if (gpu::device_count() == 0) return;
  reason.clear();
  const int ordinal = gpu::current_device();
#if defined(COPA_HAVE_HIP)
  std::unique_ptr<Source> src = std::make_unique<RocmSmiSource>(ordinal, reason);
#else
  char pci[32] = "";
  if (COPA_GPU_SYMBOL(DeviceGetPCIBusId)(pci, sizeof pci, ordinal) != COPA_GPU_SYMBOL(Success)) pci[0] = 0;
  std::unique_ptr<Source> src = std::make_unique<NvmlSource>(pci, ordinal, reason);
#endif
  g.gpu = std::make_unique<Meter>(std::move(src), reason);
#endif
}

void mark() {
  Global& g = global();
  std::lock_guard<std::mutex> lock(g.mu);
  if (g.host) g.host->mark(false);
  if (g.gpu) g.gpu->mark(false);
}

void end() {
  Global& g = global();
  std::lock_guard<std::mutex> lock(g.mu);
  if (g.host) g.host->mark(true);
  if (g.gpu) g.gpu->mark(true);
}

Measurement measurement(bool gpu) {
  Global& g = global();
  std::lock_guard<std::mutex> lock(g.mu);
  Meter* m = gpu ? g.gpu.get() : g.host.get();
  if (m) return m->result();
  Measurement none;
  none.reason = gpu ? "no device-timed region in this run" : "no timed region in this run";
  none.clocks_reason = none.reason;
  return none;
}

Measurement reduce_over_ranks(const Measurement& m) {
  if (mpi::size() == 1) return m;
  const bool rapl = m.source.rfind("rapl", 0) == 0;
  const double counted = m.available() && !(rapl && mpi::local_rank() != 0) ? m.joules : 0;
  const std::vector<double> have = mpi::gather_all(m.available() ? 1.0 : 0.0);
  const double joules = mpi::sum(counted);
  const double seconds = mpi::max_all(m.seconds);
  const double devices = mpi::sum(m.available() && !(rapl && mpi::local_rank() != 0) ? m.devices : 0);
  const double samples = mpi::sum(static_cast<double>(m.power_samples));
  const double sampled_w = mpi::sum(m.sampled_power_w);  // GPUs run side by side: their powers add
  const int any = mpi::max_all(m.any_reasons ? 1 : 0);
  Measurement r = m;
  for (std::size_t i = 0; i < have.size(); ++i)
    if (have[i] == 0) {  // the first rank without energy names why (this rank's reason where it has one)
      r.source.clear();
      r.reason = "rank " + std::to_string(i) + " has no energy" + (m.reason.empty() ? "" : " (" + m.reason + ")");
      break;
    }
  if (r.available()) {
    r.joules = joules;
    r.seconds = seconds;
    r.devices = static_cast<int>(devices);
    r.power_samples = static_cast<int>(samples);
    r.sampled_power_w = sampled_w;
  }
  r.any_reasons = any != 0;
  for (double mask : mpi::gather_all(static_cast<double>(m.reasons_seen)))  // masks < 2^53: exact
    r.reasons_seen |= static_cast<std::uint64_t>(mask);
  return r;
}

nlohmann::json energy_json(const Measurement& m) {
  if (!m.available())
    return {{"joules", nullptr}, {"seconds", m.seconds}, {"mean_power_w", nullptr}, {"source", nullptr},
            {"reason", m.reason}};
  nlohmann::json j = {{"joules", m.joules},
                      {"seconds", m.seconds},
                      {"mean_power_w", m.mean_power_w()},
                      {"source", m.source},
                      {"reason", nullptr},
                      {"devices", m.devices},
                      {"interval", "first timed region to the last"},
                      {"power_samples", m.power_samples},
                      {"sampled_power_w", m.power_samples ? nlohmann::json(m.sampled_power_w) : nlohmann::json(nullptr)},
                      {"power_sample", m.power_kind.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.power_kind)},
                      {"kernel_joules", "mean power of the interval x the row's median time per call"}};
  return j;
}

nlohmann::json clocks_json(const Measurement& m) {
  nlohmann::json j = {{"start", state_json(m.start)},
                      {"end", state_json(m.end)},
                      {"reasons_seen", m.any_reasons ? nlohmann::json(reason_names(m.reasons_seen)) : nlohmann::json(nullptr)},
                      {"throttled", m.any_reasons ? nlohmann::json(m.throttled()) : nlohmann::json(nullptr)},
                      {"reason", m.clocks_reason.empty() && m.any_reasons ? nlohmann::json(nullptr)
                                 : nlohmann::json(m.clocks_reason.empty() ? "no throttle reasons read" : m.clocks_reason)}};
  return j;
}

std::string per_joule_unit(const std::string& u) {
  auto ends = [&](const std::string& s) { return u.size() >= s.size() && u.compare(u.size() - s.size(), s.size(), s) == 0; };
  if (ends("/s")) return u.substr(0, u.size() - 2) + "/J";
  if (ends(" / second")) return u.substr(0, u.size() - 9) + " / joule";
  if (ends(" per second")) return u.substr(0, u.size() - 11) + " per joule";
  return u + " per W";
}

void reset() {
  Global& g = global();
  std::lock_guard<std::mutex> lock(g.mu);
  g.host.reset();
  g.gpu.reset();
}

}  // namespace copa::energy
