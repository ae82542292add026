#include "copa/report.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "copa/errors.hpp"
#include "copa/machine.hpp"
#include "copa/memory.hpp"
#include "copa/mpi.hpp"
#include "copa/output.hpp"
#include "copa/gpu_model.hpp"
#if COPA_GPU
#include "copa/device_memory.hpp"
#endif

namespace copa {

namespace {

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::fp64_matrix: return "fp64_matrix";
    default: return "fp64";
  }
}

// Process peak resident set (what the host really held), from the kernel's accounting.
std::size_t host_peak_rss_bytes() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
  return static_cast<std::size_t>(u.ru_maxrss) * 1024;  // Linux reports kilobytes
}

// Samples kept in the document for the compare report's noise estimate (beyond this, stats suffice).
constexpr std::size_t max_samples_in_json = 1000;

// "energy: J over s (W, source); FOM per joule", or why there is none; a throttled GPU is said so.
void print_energy(std::ostream& os, const energy::Measurement& e, const Fom* fom) {
  if (!e.available()) {
    os << "energy: none (" << e.reason << ")\n";
  } else {
    os << "energy: " << format_number(e.joules) << " J over " << format_number(e.seconds) << " s ("
       << format_number(e.mean_power_w()) << " W mean, " << e.source << ")\n";
    if (fom && e.mean_power_w() > 0)
      os << "FOM per joule: " << format_number(fom->value / e.mean_power_w()) << " "
         << energy::per_joule_unit(fom->unit) << "\n";
  }
  if (e.throttled()) {
    std::string names;
    for (const std::string& n : energy::reason_names(e.reasons_seen & energy::throttle_mask))
      names += (names.empty() ? "" : ", ") + n;
    os << "THROTTLED: the GPU was power or thermally throttled during the timed run (" << names << ")\n";
  }
}

}  // namespace

Verification not_verified(std::string reason) {
  Verification v;
  v.verified = false;
  v.reason = std::move(reason);
  return v;
}

bool test_mutation(const char* mutation) {
  const char* env = std::getenv("COPA_TEST_MUTATION");
  return env && std::string(env) == mutation;
}

namespace {
// The verdict as the mutation check (test_mutation) alters it; unchanged in an ordinary run.
Verification mutated(Verification v) {
  if (test_mutation("skip-oracle") && v.verified) v = not_verified("COPA_TEST_MUTATION=skip-oracle");
  if (test_mutation("skip-one-rank")) v.one_rank_check.reset();
  return v;
}
}  // namespace

std::string verdict_line(const Verification& verdict) {
  const Verification v = mutated(verdict);
  if (!v.verified) return "NOT VERIFIED: " + v.reason;
  std::ostringstream os;
  os << "VERIFICATION " << (v.passed ? "PASSED" : "FAILED") << ": " << v.metric << " = "
     << format_number(v.value) << " (tolerance " << format_number(v.tolerance) << ", reference "
     << v.reference;
  if (v.one_rank_check) {
    os << "; one_rank_check: ";
    if (v.one_rank_check->bitwise_equal) os << "bitwise_equal true";
    else os << v.one_rank_check->quantity << " " << format_number(v.one_rank_check->difference);
  }
  os << ")";
  return os.str();
}

void Report::add_fallback(std::string kind, std::string from, std::string to, std::string reason) {
  fallbacks_.push_back({{"kind", std::move(kind)}, {"from", std::move(from)}, {"to", std::move(to)}, {"reason", std::move(reason)}});
}

std::string runs_line(int ran, const std::vector<std::string>& skipped) {
  std::string line = "runs: " + std::to_string(ran) + " ran; skipped " + std::to_string(skipped.size());
  for (std::size_t i = 0; i < skipped.size(); ++i) line += (i ? ", " : ": ") + skipped[i];
  return line;
}

std::string fallback_line(const nlohmann::json& f) {
  return "fallback: " + f["kind"].get<std::string>() + ": " + f["from"].get<std::string>() + " ran as " +
         f["to"].get<std::string>() + " (" + f["reason"].get<std::string>() + ")";
}

void Report::print_verdict(std::ostream& os) const {
  for (const auto& f : fallbacks_) os << fallback_line(f) << "\n";
  if (verification_) os << verdict_line(*verification_) << "\n";
}

void Report::set_verification(Verification v) { verification_ = mutated(std::move(v)); }

Report::Report(std::string app, std::string version) : app_(std::move(app)), version_(std::move(version)) {}

void Report::add_kernel(const std::string& name, const Stats& time, const KernelCost& cost) {
  kernels_.push_back({name, time.count, time, cost, time.samples, {}, {}});
}

void Report::add_kernel(const Profile& profile, const std::string& name, const KernelCost& cost) {
  const auto& samples = profile.samples(name);
  kernels_.push_back({name, samples.size(), summarize(samples), cost, samples, {}, {}});
}

nlohmann::json Report::make_decomposition(nlohmann::json ranks, double local_work, const std::string& unit) {
  return {{"ranks", std::move(ranks)}, {"local_work", mpi::gather_all(local_work)}, {"unit", unit}};
}

void Report::reduce_over_ranks() {
  if (mpi::size() == 1) return;
  energy_ = energy::reduce_over_ranks(energy());
  for (KernelRow& k : kernels_) {
    const std::vector<double> medians = mpi::gather_all(k.time.median);
    double mean = 0, slowest = 0;
    for (double m : medians) {
      mean += m;
      slowest = std::max(slowest, m);
    }
    mean /= static_cast<double>(medians.size());
    k.time_mean_over_ranks = mean;
    k.imbalance = mean > 0 ? slowest / mean : 1.0;
    // The per-sample maximum needs the same number of samples on every rank (max_all is collective
    // over equal-length vectors); otherwise the ranks' statistics are reduced instead.
    const std::vector<double> counts = mpi::gather_all(static_cast<double>(k.samples.size()));
    const bool same_count = std::all_of(counts.begin(), counts.end(), [&](double c) { return c == counts[0]; });
    if (!same_count) k.samples.clear();
    if (!k.samples.empty()) {
      k.samples = mpi::max_all(k.samples);
      k.time = summarize(k.samples);
    } else {
      const std::vector<double> worst =
          mpi::max_all({k.time.min, k.time.median, k.time.max, k.time.mean, k.time.total, k.time.mad});
      k.time.min = worst[0];
      k.time.median = worst[1];
      k.time.max = worst[2];
      k.time.mean = worst[3];
      k.time.total = worst[4];
      k.time.mad = worst[5];
    }
  }
}

const energy::Measurement& Report::energy() const {
  if (!energy_) {
    energy_ = energy::measurement(is_gpu(backend_));
    energy::reset();
  }
  return *energy_;
}

void Report::set_memory(std::size_t device_peak, std::size_t host_peak) { memory_ = {device_peak, host_peak}; }

std::size_t Report::device_pool_peak() {
#if COPA_GPU
  return gpu::device_pool_counters().peak_bytes;
#else
  return 0;
#endif
}

std::optional<Ceilings> Report::ceilings() const {
  if (ceilings_) return ceilings_;
  return is_gpu(backend_) ? builtin_ceilings(backend_, gpu_name(device_)) : std::nullopt;
}

nlohmann::json Report::to_json() const {
  const std::optional<Ceilings> roofs = ceilings();
  nlohmann::json doc;
  doc["schema"] = "copa-result/1";
  doc["app"] = app_;
  doc["version"] = version_;
  doc["git_sha"] = git_sha();
  doc["build"] = build_info();
  doc["machine"] = machine_info(backend_, device_);
  doc["machine"]["ceilings"] = roofs ? copa::to_json(*roofs) : nlohmann::json(nullptr);
  doc["run"] = {{"backend", to_string(backend_)},
                {"variant", variant_},
                {"tunings", tunings_},
                {"variants_built", variants_built_},
                {"problem", problem_},
                {"mpi_ranks", mpi_ranks_ ? *mpi_ranks_ : mpi::size()},
                {"local_rank", mpi::local_rank()},
                {"transport", transport_.empty() ? nlohmann::json(nullptr) : nlohmann::json(transport_)},
                {"decomposition", decomposition_},
                {"fallbacks", fallbacks_},
                {"threads", threads_},
                {"device", device_},
                {"command_line", command_line_},
                {"date", iso_date_now()}};
  const energy::Measurement& e = energy();
  nlohmann::json ks = nlohmann::json::array();
  for (const KernelRow& k : kernels_) {
    const RooflinePoint p = evaluate(k.cost, k.time.median, roofs);
    ks.push_back({{"name", k.name},
                  {"calls", k.calls},
                  {"time_s",
                   {{"count", k.time.count},
                    {"min", k.time.min},
                    {"median", k.time.median},
                    {"max", k.time.max},
                    {"mean", k.time.mean},
                    {"total", k.time.total},
                    {"mad", k.time.mad}}},
                  {"samples_s", std::vector<double>(k.samples.begin(),
                                                    k.samples.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                            k.samples.size(), max_samples_in_json)))},
                  {"flops", k.cost.flops},
                  {"bytes_read", k.cost.bytes_read},
                  {"bytes_written", k.cost.bytes_written},
                  {"precision", precision_name(k.cost.precision)},
                  {"gflops", p.gflops},
                  {"gbs", p.gbs},
                  {"intensity", p.intensity},
                  {"frac_bandwidth", p.frac_bandwidth},
                  {"frac_flops", p.frac_flops},
                  {"frac_roofline", p.frac_roofline},
                  {"bound", p.bound}});
    ks.back()["joules_per_call"] =
        e.available() ? nlohmann::json(e.mean_power_w() * k.time.median) : nlohmann::json(nullptr);
    if (k.imbalance) {
      ks.back()["time_mean_over_ranks"] = *k.time_mean_over_ranks;
      ks.back()["imbalance"] = *k.imbalance;
    }
  }
  doc["kernels"] = ks;
  doc["fom"] = fom_ ? nlohmann::json{{"name", fom_->name}, {"value", fom_->value}, {"unit", fom_->unit}}
                    : nlohmann::json(nullptr);
  if (fom_) {
    doc["fom"]["per_joule"] = e.available() && e.mean_power_w() > 0 ? nlohmann::json(fom_->value / e.mean_power_w())
                                                                     : nlohmann::json(nullptr);
    doc["fom"]["per_joule_unit"] = energy::per_joule_unit(fom_->unit);
  }
  doc["energy"] = energy::energy_json(e);
  doc["clocks"] = energy::clocks_json(e);
  if (!verification_) {
    doc["verification"] = nullptr;
  } else if (!verification_->verified) {
    doc["verification"] = {{"reference", nullptr}, {"passed", nullptr}, {"reason", verification_->reason}};
  } else {
    doc["verification"] = {{"reference", verification_->reference}, {"metric", verification_->metric},
                           {"value", verification_->value},         {"tolerance", verification_->tolerance},
                           {"passed", verification_->passed}};
    if (const auto& c = verification_->one_rank_check)
      doc["verification"]["one_rank_check"] = {
          {"bitwise_equal", c->bitwise_equal}, {"quantity", c->quantity}, {"difference", c->difference}};
  }
  std::size_t device_peak = 0, host_peak = host_peak_rss_bytes();
#if COPA_GPU
  device_peak = gpu::device_pool_counters().peak_bytes;
#endif
  if (memory_) std::tie(device_peak, host_peak) = *memory_;
  doc["memory"] = {{"device_peak_bytes", device_peak},
                   {"host_peak_bytes", host_peak},
                   {"device_pool_peak_bytes", device_pool_peak()},
                   {"host_pool_peak_bytes", host_pool().counters().peak_bytes}};
  for (auto it = extra_.begin(); it != extra_.end(); ++it) doc[it.key()] = it.value();
  return doc;
}

void Report::write_json(const std::string& path) const {
  // copa-result/1 requires a finite positive FOM: a run that has none is not written as a result.
  if (fom_ && !(std::isfinite(fom_->value) && fom_->value > 0))
    throw RuntimeError("--json: the figure of merit " + fom_->name + " is " + std::to_string(fom_->value) +
                       ", not a finite positive number; '" + path + "' was not written");
  const nlohmann::json doc = to_json();
  write_output(path, "--json", [&](std::ostream& out) { out << std::setw(2) << doc << "\n"; });
}

void Report::print(std::ostream& os) const {
  const std::optional<Ceilings> roofs = ceilings();
  os << app_ << " " << version_ << "  backend " << to_string(backend_) << "  variant " << variant_ << "\n";
  if (!kernels_.empty()) {
    // Joules per call (mean power of the timed run x median) as a last column where energy was read.
    const energy::Measurement& e = energy();
    char line[256];
    std::snprintf(line, sizeof line, "%-28s %7s %12s %12s %10s %10s %8s %8s%s\n", "kernel", "calls",
                  "median (ms)", "min (ms)", "GFLOP/s", "GB/s", "AI", "% roof", e.available() ? "   J/call" : "");
    os << line;
    for (const KernelRow& k : kernels_) {
      const RooflinePoint p = evaluate(k.cost, k.time.median, roofs);
      char roof[16] = "-", joules[24] = "";
      if (roofs && roofs->valid()) std::snprintf(roof, sizeof roof, "%.1f", 100 * p.frac_roofline);
      if (e.available()) std::snprintf(joules, sizeof joules, " %9.3g", e.mean_power_w() * k.time.median);
      std::snprintf(line, sizeof line, "%-28s %7zu %12.4f %12.4f %10.2f %10.2f %8.3f %8s%s\n", k.name.c_str(),
                    k.calls, 1e3 * k.time.median, 1e3 * k.time.min, p.gflops, p.gbs, p.intensity, roof, joules);
      os << line;
    }
    os << "(roofline: " << (roofs ? roofs->source : std::string("no ceilings; pass --ceilings FILE"))
       << ")\n";
    // No kernel runs above its roofline: a fraction past 100% means a ceiling or a count is wrong.
    for (const KernelRow& k : kernels_) {
      const RooflinePoint p = evaluate(k.cost, k.time.median, roofs);
      if (roofs && roofs->valid() && p.frac_roofline > 1)
        os << "WARNING: " << k.name << " at " << format_number(100 * p.frac_roofline)
           << "% of its roofline: a ceiling, a FLOP or byte count, or the region's time is wrong\n";
    }
    if (kernels_.front().imbalance)
      os << "(times: per-sample max over " << mpi::size() << " ranks; FLOPs and bytes per rank)\n";
  }
  if (fom_) os << "FOM: " << fom_->name << " = " << format_number(fom_->value) << " " << fom_->unit << "\n";
  print_energy(os, energy(), fom_ ? &*fom_ : nullptr);
  print_verdict(os);
}

std::string json_path_for(const std::string& path, Backend backend, bool several_backends) {
  if (!several_backends || path.empty()) return path;
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return path + "." + to_string(backend);
  return path.substr(0, dot) + "." + to_string(backend) + path.substr(dot);
}

}  // namespace copa
