#include "copa/cli.hpp"
#include "copa/gpu_model.hpp"

#include <algorithm>
#include <iostream>
#include <sstream>

#include "copa/build_config.hpp"
#include "copa/errors.hpp"
#include "copa/machine.hpp"
#include "copa/mpi.hpp"
#if defined(COPA_HAVE_OPENMP)
#include <omp.h>
#endif
#if COPA_GPU
#include "copa/gpu.hpp"
#endif

namespace copa {

void add_common_options(CLI::App& app, CommonOptions& o) {
  if (o.backend.empty()) o.backend = to_string(default_backend());
  std::string built;
  for (Backend b : built_backends()) built += (built.empty() ? "" : "|") + to_string(b);
  app.add_option("--backend", o.backend,
                 "Programming model: " + built + "|all (all = every backend built, each checked against serial)")
      ->capture_default_str();
  app.add_option("--variant", o.variant, "Kernel strategy of the backend (see --list); default: the backend's best");
  app.add_option("--tuning", o.tunings, "AXIS=VALUE: a tuning of the variant (repeatable; --list names the axes)")
      ->delimiter(',');
  app.add_flag("--list", o.list, "List the variants (backends, default, summary, tunings), then exit");
  app.add_option("--reps", o.reps, "Timed repetitions (medians are reported)")->check(CLI::Range(1, 1000000))->capture_default_str();
  app.add_option("--warmup", o.warmup, "Untimed warm-up repetitions")->check(CLI::Range(0, 1000000))->capture_default_str();
  app.add_option("--json", o.json, "Write the copa-result/1 JSON document to FILE (FILE.<backend>.json with --backend all)");
  app.add_option("--threads", o.threads, "OpenMP threads (0 = OpenMP's default)")->check(CLI::Range(0, 4096))->capture_default_str();
  app.add_option("--device", o.device, "GPU ordinal (-1 = MPI local rank modulo the device count)")
      ->check(CLI::Range(-1, 1024))->capture_default_str();
  app.add_option("--size", o.size, "Problem size preset")->check(CLI::IsMember({"small", "medium", "large"}))->capture_default_str();
  // COPA_CEILINGS lets a driver (gpu-check) hand the ceilings it measured to every run without
  // editing each benchmark's command lines; --ceilings wins over it.
  app.add_option("--ceilings", o.ceilings, "copa-ceilings/1 JSON (from copa-probe) for the roofline fractions")
      ->envname("COPA_CEILINGS")
      ->check(CLI::ExistingFile);
  app.add_flag("--quiet", o.quiet, "Print only the verdict line (and errors on stderr); the JSON is unchanged");
  app.set_config("--config", "", "Read options from a TOML/INI file (command-line options override it)");
}

int parse_command_line(CLI::App& app, int argc, char** argv) {
  // Every executable answers --version with the one version of the suite (CMake's PROJECT_VERSION).
  if (app.get_option_no_throw("--version") == nullptr) {
    std::string name = app.get_name();
    if (name.empty() && argc > 0) {
      name = argv[0];
      name = name.substr(name.find_last_of('/') + 1);
    }
    app.set_version_flag("--version", name + " (copa) " + COPA_VERSION, "Print the version, then exit");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << e.what() << "\n";
    std::cerr << "Run with --help for the options.\n";
    return exit_bad_input;
  }
  return -1;
}

std::vector<Backend> requested_backends(const CommonOptions& o) {
  if (o.backend == "all") return built_backends();
  const auto b = parse_backend(o.backend);
  std::string built;
  for (Backend x : built_backends()) built += (built.empty() ? "" : ", ") + to_string(x);
  if (!b) throw InputError("--backend: unknown backend '" + o.backend + "' (built: " + built + ", all)");
  if (!is_built(*b))
    throw InputError("--backend: backend '" + o.backend + "' is not built in this executable (built: " + built +
                     "); configure with the matching preset");
  return {*b};
}

void check_variant(const std::string& variant, const std::vector<std::string>& offered, Backend b) {
  if (variant.empty() || std::find(offered.begin(), offered.end(), variant) != offered.end()) return;
  std::string list;
  for (const auto& v : offered) list += (list.empty() ? "" : ", ") + v;
  throw InputError("--variant: '" + variant + "' is not a variant of backend " + to_string(b) + " (offered: " + list + ")");
}

int apply_threads([[maybe_unused]] int threads) {
#if defined(COPA_HAVE_OPENMP)
  if (threads > 0) omp_set_num_threads(threads);
  return omp_get_max_threads();
#else
  return 1;
#endif
}

int select_device([[maybe_unused]] int requested) {
#if COPA_GPU
  const int count = gpu::device_count();
  if (count == 0) throw RuntimeError("a GPU backend was requested but no GPU device is present");
  const int device = requested >= 0 ? requested : mpi::local_rank() % count;
  if (device >= count)
    throw InputError("--device: ordinal " + std::to_string(device) + " out of range (" + std::to_string(count) +
                     " devices)");
  gpu::set_device(device);
  return device;
#else
  throw RuntimeError("a GPU backend was requested but this build has none");
#endif
}

std::optional<Ceilings> run_ceilings(const CommonOptions& options, Backend backend, int device) {
  if (!options.ceilings.empty()) return load_ceilings(options.ceilings, backend);
  return builtin_ceilings(backend, is_gpu(backend) ? gpu_name(device) : std::string());
}

void print_list(std::ostream& os, const std::string& app, const std::map<Backend, std::vector<std::string>>& variants) {
  os << app << ": backends and variants built\n";
  for (Backend b : built_backends()) {
    os << "  " << to_string(b) << ":";
    auto it = variants.find(b);
    if (it != variants.end())
      for (const auto& v : it->second) os << " " << v;
    os << "\n";
  }
}

std::string command_line(int argc, char** argv) {
  std::ostringstream os;
  for (int i = 0; i < argc; ++i) os << (i ? " " : "") << argv[i];
  return os.str();
}

}  // namespace copa
