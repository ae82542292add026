// The options every copa app shares (docs/CONVENTIONS.md, "Command line") on a CLI11 app, config files
// through --config, and the exit-code rules: --help 0, any parse error 2 with the message.
#pragma once
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "copa/backend.hpp"
#include "copa/mpi.hpp"  // every app's main starts with copa::mpi::Session
#include "copa/roofline.hpp"

namespace copa {

// Declared ranges of numeric options, one declaration per option where it is registered:
//   app.add_option("--n", o.n, "...")->check(copa::cli::count(4, 16384));
// The validator refuses, at parse time and with exit 2, a value that is not a number (or not an
// integer for a count), not finite, or outside the range: "--n: '-8' is outside [4, 16384]". It
// sees the text before CLI11 converts it, so a negative count cannot wrap to 2^64 - 5. The range
// is carried in the validator's name, so `--list-options-json` (every option, its type and range)
// and the tests that read it use the same declaration as the check.
namespace cli {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

struct Bounds {
  double lo = -kInf, hi = kInf;  // +-infinity: unbounded on that side
  bool lo_open = false, hi_open = false;   // (lo or [lo, hi) or hi]
  bool integer = false;                    // a count: an integer written without a fraction
  std::string text() const;                // "[4, 16384]", "(0, inf)"
  bool contains(double v) const;
};

CLI::Validator bounded(const Bounds& b);
// Real values.
inline CLI::Validator range(double lo, double hi) { return bounded({lo, hi}); }                 // [lo, hi]
inline CLI::Validator range_open_low(double lo, double hi) { return bounded({lo, hi, true}); }  // (lo, hi]
inline CLI::Validator open_range(double lo, double hi) { return bounded({lo, hi, true, true}); }  // (lo, hi)
inline CLI::Validator positive() { return bounded({0, kInf, true}); }                    // (0, inf)
inline CLI::Validator non_negative() { return bounded({0, kInf}); }                      // [0, inf)
inline CLI::Validator at_least(double lo) { return bounded({lo, kInf}); }                // [lo, inf)
// Integers (counts, sizes, orders): [lo, hi], hi defaulting to the largest int.
inline CLI::Validator count(long long lo = 0, long long hi = 2147483647LL) {
  return bounded({static_cast<double>(lo), static_cast<double>(hi), false, false, true});
}

// The range declared on an option through the helpers above, if any.
std::optional<Bounds> declared_bounds(const CLI::Option& option);

// The JSON array of every option of `app`: name, type (INT, UINT, FLOAT, TEXT, ...), the values it
// takes (items_min, items_max; a flag takes none) and its declared range (a null bound: unbounded).
std::string options_json(const CLI::App& app);

}  // namespace cli

struct CommonOptions {
  std::string backend;     // serial|openmp|cuda|hip|all; default: default_backend()
  std::string variant;     // "" = the app's default for the backend
  std::vector<std::string> tunings;  // --tuning AXIS=VALUE, checked by VariantRegistry::select
  bool list = false;
  int reps = 5;
  int warmup = 1;
  std::string json;
  int threads = 0;         // 0 = OpenMP's default
  int device = -1;         // -1 = MPI local rank modulo the device count, else 0
  std::string config;
  std::string size = "small";
  std::string ceilings;    // copa-ceilings/1 file
  bool quiet = false;
  bool oversubscribe = false;  // --oversubscribe: keep a --threads above the cores available
};

// The cores this process may run on (its CPU affinity mask; else the hardware's count).
int available_cores();

void add_common_options(CLI::App& app, CommonOptions& options);

// Parses; returns -1 to go on, or the exit code to return (0 after --help or --version, 2 on bad input).
// Beyond CLI11's own checks: a --config file must be a regular text file of at most 1 MiB whose
// every key is an option (an error names the file, the line, the key and the nearest option);
// every value that reads as a number must be finite; and over MPI ranks, every rank must have the
// same effective configuration (options, config file contents, COPA_* variables; the GPU ordinal
// aside), else every rank returns 2 and rank 0 names the first option that differs.
// `--list-options-json` (not in --help: it is for the tests) prints cli::options_json and returns 0.
// Adds --version (the app name, "(copa)" and COPA_VERSION) unless the app defined it.
int parse_command_line(CLI::App& app, int argc, char** argv);

// The backends a run asks for, checked against the build ("all" = every built backend).
// Throws InputError (exit 2) naming --backend when one is unknown or not built.
std::vector<Backend> requested_backends(const CommonOptions& options);

// Sets the OpenMP thread count (--threads) and returns the count in effect.
int apply_threads(int threads);

// Picks and sets the GPU (--device, or MPI local rank), returns the ordinal; throws
// RuntimeError (exit 3) when a GPU backend is asked for and no device is present.
int select_device(int requested);

// The ceilings of a run: the backend's entry of --ceilings FILE when given, else the built-in
// ceilings of a known GPU (the H200 of docs/CONVENTIONS.md), else none. Give the result to Report::set_ceilings.
std::optional<Ceilings> run_ceilings(const CommonOptions& options, Backend backend, int device);

std::string command_line(int argc, char** argv);

}  // namespace copa
