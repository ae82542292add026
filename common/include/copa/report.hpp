// One run's result: the copa-result/1 JSON document of docs/CONVENTIONS.md, the human table and the
// verification verdict line.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "copa/backend.hpp"
#include "copa/energy.hpp"
#include "copa/roofline.hpp"
#include "copa/stats.hpp"
#include "copa/timing.hpp"
#include "copa/variants.hpp"

namespace copa {

struct Verification {
  Verification() = default;
  Verification(std::string reference_, std::string metric_, double value_, double tolerance_, bool passed_)
      : reference(std::move(reference_)), metric(std::move(metric_)), value(value_), tolerance(tolerance_),
        passed(passed_) {}
  std::string reference;  // e.g. "Mie series", "serial oracle"
  std::string metric;     // e.g. "rms_db_error"
  double value = 0;
  double tolerance = 0;
  bool passed = false;
  // false when the run has no reference it could fail against: the verdict is NOT VERIFIED (JSON
  // "passed": null with "reason"), never PASSED. A check that cannot fail is not a pass.
  bool verified = true;
  std::string reason;  // why it was not verified (empty when verified)
  // --compare-one-rank: the run on ranks against the same run on one rank (verification.one_rank_check
  // in the JSON, "one_rank_check: ..." in the verdict line).
  struct OneRankCheck {
    bool bitwise_equal = false;
    std::string quantity;   // what `difference` measures, e.g. "max_abs_difference"
    double difference = 0;  // the measured difference (0 when bitwise equal)
  };
  std::optional<OneRankCheck> one_rank_check;
};
// A verdict for a run without a reference: NOT VERIFIED, with the reason.
Verification not_verified(std::string reason);
// The test suite's mutation check (docs/CONVENTIONS.md "Tests"): true when the environment variable
// COPA_TEST_MUTATION names `mutation`. Under "skip-oracle" every verdict reads NOT VERIFIED (as if
// the comparison had been skipped), under "skip-one-rank" the one-rank result is dropped; the
// tests that read verdicts must then fail. Unset in every ordinary run.
bool test_mutation(const char* mutation);
// "VERIFICATION PASSED: <metric> = <value> (tolerance <tol>, reference <name>)", or
// "NOT VERIFIED: <reason>".
std::string verdict_line(const Verification& v);
// `--backend all`'s summary: "runs: <n> ran; skipped <m>: <what> (<why>), ..." (one verdict line
// per run; cmake/check_verdict.cmake counts them against n).
std::string runs_line(int ran, const std::vector<std::string>& skipped);
// "fallback: <kind>: <from> ran as <to> (<reason>)" for an entry of run.fallbacks (Report::add_fallback).
std::string fallback_line(const nlohmann::json& fallback);

struct Fom {
  std::string name;
  double value = 0;
  std::string unit;
};

struct KernelRow {
  std::string name;
  std::size_t calls = 0;  // calls whose times are in `time` (the samples)
  Stats time;             // seconds per call
  KernelCost cost;        // per call (of this rank in an MPI run)
  std::vector<double> samples;  // seconds, in the order measured (may be empty)
  // Set by Report::reduce_over_ranks: the mean over ranks of each rank's median, and
  // imbalance = (max over ranks of the medians) / that mean.
  std::optional<double> time_mean_over_ranks, imbalance;
};

class Report {
 public:
  Report(std::string app, std::string version);

  // run section
  void set_backend(Backend b) { backend_ = b; }
  void set_variant(std::string v) { variant_ = std::move(v); }
  // run.variant (the name) and run.tunings (every axis of the variant with its value).
  void set_selection(const Selection& s) {
    variant_ = s.name();
    tunings_ = s.tunings_json();
  }
  void set_threads(int t) { threads_ = t; }
  void set_command_line(std::string c) { command_line_ = std::move(c); }
  void set_device(int d) { device_ = d; }
  void set_variants_built(nlohmann::json v) { variants_built_ = std::move(v); }
  // Distributed runs (DISTRIBUTED.md). run.mpi_ranks is copa::mpi::size() unless set.
  void set_mpi(int ranks) { mpi_ranks_ = ranks; }
  void set_transport(std::string name) { transport_ = std::move(name); }  // run.transport
  // run.decomposition: at least "ranks" (the process grid or partition) and "local_work" (one entry
  // per rank); make_decomposition builds it.
  void set_decomposition(nlohmann::json d) { decomposition_ = std::move(d); }
  // Collective: {"ranks": ranks, "local_work": [every rank's local_work in rank order], "unit": unit}.
  static nlohmann::json make_decomposition(nlohmann::json ranks, double local_work, const std::string& unit);
  nlohmann::json& problem() { return problem_; }

  void add_kernel(KernelRow row) { kernels_.push_back(std::move(row)); }
  void add_kernel(const std::string& name, const Stats& time, const KernelCost& cost);
  // The row of a profiled region: its samples and statistics (region name = kernel name).
  void add_kernel(const Profile& profile, const std::string& name, const KernelCost& cost);
  const std::vector<KernelRow>& kernels() const { return kernels_; }
  // Collective, once every rank added the same kernels in the same order: each row's time becomes
  // the per-sample MAX over ranks (the slowest rank sets the pace; the FOM is global work over that
  // time), with time_mean_over_ranks and imbalance beside it. Rows without samples take the MAX of
  // each statistic. Without MPI or on one rank it changes nothing.
  void reduce_over_ranks();
  // Without a call, a GPU run on a known device (the H200) uses its built-in ceilings.
  void set_ceilings(std::optional<Ceilings> c) { ceilings_ = std::move(c); }
  std::optional<Ceilings> ceilings() const;

  // run.fallbacks: what ran in place of what was asked for (kind: "precision", "variant", "kernel",
  // "regrid"; from, to: the paths; reason), one entry each, printed as "fallback: ..." lines.
  void add_fallback(std::string kind, std::string from, std::string to, std::string reason);
  const nlohmann::json& fallbacks() const { return fallbacks_; }

  void set_fom(Fom f) { fom_ = std::move(f); }
  void set_verification(Verification v);
  const std::optional<Verification>& verification() const { return verification_; }
  // Extra top-level objects of an app (for example laghos-like's "solution").
  nlohmann::json& extra() { return extra_; }

  // Device and host peak bytes. By default: the device pool's peak and the process's peak resident
  // set (getrusage), set when the document is built; an app that allocates device memory outside
  // the pool states its own peak here. The pools' own peaks are reported beside them.
  void set_memory(std::size_t device_peak, std::size_t host_peak);

  // The energy and clocks of the timed run (copa/energy.hpp), taken from the process's meter the first
  // time the report needs them; the meter then restarts for the next run of the process (--backend all).
  const energy::Measurement& energy() const;

  nlohmann::json to_json() const;
  void write_json(const std::string& path) const;
  // Kernel table, FOM, fallback lines and verdict line.
  void print(std::ostream& os) const;
  // --quiet: the fallback lines (run.fallbacks), then the verdict line.
  void print_verdict(std::ostream& os) const;

 private:
  static std::size_t device_pool_peak();
  std::string app_, version_;
  Backend backend_ = Backend::serial;
  std::string variant_ = "default";
  int threads_ = 1, device_ = -1;
  std::string command_line_;
  std::optional<int> mpi_ranks_;
  std::string transport_;
  nlohmann::json decomposition_;
  nlohmann::json fallbacks_ = nlohmann::json::array();
  nlohmann::json problem_ = nlohmann::json::object();
  nlohmann::json variants_built_ = nlohmann::json::object();
  nlohmann::json tunings_ = nlohmann::json::object();
  nlohmann::json extra_ = nlohmann::json::object();
  std::vector<KernelRow> kernels_;
  std::optional<Ceilings> ceilings_;
  std::optional<Fom> fom_;
  std::optional<Verification> verification_;
  std::optional<std::pair<std::size_t, std::size_t>> memory_;
  mutable std::optional<energy::Measurement> energy_;
};

// With several backends in one run (--backend all), FILE.json becomes FILE.<backend>.json.
std::string json_path_for(const std::string& path, Backend backend, bool several_backends);

}  // namespace copa
