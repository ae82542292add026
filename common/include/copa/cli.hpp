// The options every copa app shares (docs/CONVENTIONS.md, "Command line") on a CLI11 app, config files
// through --config, and the exit-code rules: --help 0, any parse error 2 with the message.
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "copa/backend.hpp"
#include "copa/mpi.hpp"  // every app's main starts with copa::mpi::Session
#include "copa/roofline.hpp"

namespace copa {

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
