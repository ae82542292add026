#include "copa/cli.hpp"

#include <sched.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <thread>

#include "copa/build_config.hpp"
#include "copa/errors.hpp"
#include "copa/machine.hpp"
#include "copa/mpi.hpp"
#include <nlohmann/json.hpp>
#if defined(COPA_HAVE_OPENMP)
#include <omp.h>
#endif
#include "copa/gpu_model.hpp"
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
  app.add_option("--reps", o.reps, "Timed repetitions (medians are reported)")->check(cli::count(1, 1000000))->capture_default_str();
  app.add_option("--warmup", o.warmup, "Untimed warm-up repetitions")->check(cli::count(0, 1000000))->capture_default_str();
  app.add_option("--json", o.json, "Write the copa-result/1 JSON document to FILE (FILE.<backend>.json with --backend all)");
  app.add_option("--threads", o.threads, "OpenMP threads (0 = OpenMP's default)")->check(cli::count(0, 4096))->capture_default_str();
  app.add_option("--device", o.device, "GPU ordinal (-1 = MPI local rank modulo the device count)")
      ->check(cli::count(-1, 1024))->capture_default_str();
  app.add_option("--size", o.size, "Problem size preset")->check(CLI::IsMember({"small", "medium", "large"}))->capture_default_str();
  // COPA_CEILINGS lets a driver (gpu-check) hand the ceilings it measured to every run without
  // editing each benchmark's command lines; --ceilings wins over it.
  app.add_option("--ceilings", o.ceilings, "copa-ceilings/1 JSON (from copa-probe) for the roofline fractions")
      ->envname("COPA_CEILINGS")
      ->check(CLI::ExistingFile);
  app.add_flag("--quiet", o.quiet, "Print only the verdict line (and errors on stderr); the JSON is unchanged");
  app.add_flag("--oversubscribe", o.oversubscribe,
               "Let --threads exceed the cores available to this process (otherwise it is capped at them)");
  app.set_config("--config", "", "Read options from a TOML/INI file (command-line options override it; "
                                 "an unknown key is an error)");
  app.allow_config_extras(CLI::config_extras_mode::error);
  // More OpenMP threads than cores only slows a run down (a 2-second run took over 60 s with 4096
  // threads on 2 cores): cap the team unless the user says they mean it.
  app.final_callback([&o] {
    const int cores = available_cores();
    if (o.threads > cores && !o.oversubscribe) {
      if (mpi::is_root())
        std::cerr << "note: --threads " << o.threads << " is more than the " << cores
                  << " cores available; running " << cores << " (--oversubscribe keeps " << o.threads << ")\n";
      o.threads = cores;
    }
  });
}

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

namespace {

// Levenshtein distance, for "did you mean" in config-file errors.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

// The value of --config on the command line ("" when absent; the last one wins, as in CLI11).
std::string config_argument(int argc, char** argv) {
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--config" && i + 1 < argc) path = argv[++i];
    else if (a.rfind("--config=", 0) == 0) path = a.substr(9);
  }
  return path;
}

constexpr std::size_t max_config_bytes = 1 << 20;

// A config file is read only if it is a regular text file of at most 1 MiB whose every key is an
// option of this executable: a misspelt option in a file must not silently run the default.
void check_config_file(const CLI::App& app, const std::string& path) {
  const std::string where = "--config: '" + path + "'";
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw InputError(where + ": no such file");
  if (!S_ISREG(st.st_mode)) throw InputError(where + " is not a regular file");
  if (static_cast<std::size_t>(st.st_size) > max_config_bytes)
    throw InputError(where + " has " + std::to_string(st.st_size) + " bytes; a config file has at most " +
                     std::to_string(max_config_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(where + ": cannot be read");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.find('\0') != std::string::npos) throw InputError(where + " is not a text file (it holds NUL bytes)");
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options())
    for (const auto& n : opt->get_lnames()) names.push_back(n);
  std::istringstream lines(text);
  std::string line;
  bool in_array = false;  // a TOML array value continued over several lines
  for (int number = 1; std::getline(lines, line); ++number) {
    const std::string t = trim(line);
    if (in_array) {
      in_array = t.find(']') == std::string::npos;
      continue;
    }
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    const std::string at = where + ", line " + std::to_string(number) + ": ";
    if (t[0] == '[') throw InputError(at + "sections are not read ('" + t + "'); write every option at the top level");
    const auto eq = t.find('=');
    std::string key = trim(t.substr(0, eq));
    if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'') && key.back() == key.front())
      key = key.substr(1, key.size() - 2);
    if (eq != std::string::npos) {
      const std::string value = trim(t.substr(eq + 1));
      in_array = !value.empty() && value[0] == '[' && value.find(']') == std::string::npos;
    }
    const CLI::Option* opt = key.size() == 1 ? app.get_option_no_throw("-" + key) : app.get_option_no_throw("--" + key);
    if (opt != nullptr && opt->get_configurable()) continue;
    std::string nearest;
    std::size_t best = std::string::npos;
    for (const auto& n : names)
      if (const std::size_t d = edit_distance(key, n); d < best) best = d, nearest = n;
    throw InputError(at + (opt ? "option '" + key + "' cannot be set in a config file"
                               : "unknown option '" + key + "'" +
                                     (nearest.empty() ? "" : " (the nearest option is --" + nearest + ")")));
  }
}

// Every option value that reads as a number must be a finite one: NaN slips through range checks
// (every comparison with it is false) and infinity means "never stop" or "accept anything".
void check_finite_numbers(const CLI::App& app) {
  for (const CLI::Option* opt : app.get_options())
    for (const std::string& r : opt->results()) {
      const char* begin = r.c_str();
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(begin, &end);
      if (end != begin && *end == '\0' && !std::isfinite(v))
        throw InputError(opt->get_name() + ": '" + r + "' is not a finite number");
    }
}

// The effective configuration as "name=value" lines (defaults included), less what may differ
// between ranks: the GPU ordinal (each rank binds its own) and the config file's path (its
// contents are in the other lines).
std::vector<std::string> configuration_lines(const CLI::App& app) {
  std::vector<std::string> out;
  std::istringstream in(app.config_to_str(true, false));
  for (std::string line; std::getline(in, line);) {
    const std::string key = trim(line.substr(0, line.find('=')));
    if (key == "device" || key == "config") continue;
    out.push_back(line);
  }
  return out;
}

}  // namespace

namespace cli {

namespace {

constexpr const char* kBoundsTag = "copa-bounds ";

std::string number_text(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

}  // namespace

std::string Bounds::text() const {
  return std::string(lo_open || std::isinf(lo) ? "(" : "[") + number_text(lo) + ", " + number_text(hi) +
         (hi_open || std::isinf(hi) ? ")" : "]");
}

bool Bounds::contains(double v) const {
  return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
}

CLI::Validator bounded(const Bounds& b) {
  // The name carries the range (read back by declared_bounds); the description is what --help shows.
  std::ostringstream name;
  name.precision(17);
  name << kBoundsTag << b.lo << ' ' << b.hi << ' ' << b.lo_open << ' ' << b.hi_open << ' ' << b.integer;
  const std::string what = b.integer ? "an integer" : "a number";
  return CLI::Validator(
      [b, what](std::string& value) -> std::string {
        const std::string t = trim(value);
        const char* begin = t.c_str();
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(begin, &end);
        if (t.empty() || end == begin || *end != '\0') return "'" + value + "' is not " + what + " in " + b.text();
        if (!std::isfinite(v)) return "'" + value + "' is not a finite number (the range is " + b.text() + ")";
        if (b.integer && (v != std::floor(v) || t.find_first_of(".eE") != std::string::npos))
          return "'" + value + "' is not an integer (the range is " + b.text() + ")";
        if (!b.contains(v)) return "'" + value + "' is outside " + b.text();
        return std::string();
      },
      b.text(), name.str());
}

std::optional<Bounds> declared_bounds(const CLI::Option& option) {
  auto& opt = const_cast<CLI::Option&>(option);  // CLI11 2.1 has no const accessor for validators
  for (int i = 0;; ++i) {
    const CLI::Validator* v = nullptr;
    try {
      v = opt.get_validator(i);
    } catch (const CLI::OptionNotFound&) {
      return std::nullopt;
    }
    const std::string& name = v->get_name();
    if (name.rfind(kBoundsTag, 0) != 0) continue;
    std::istringstream in(name.substr(std::char_traits<char>::length(kBoundsTag)));
    Bounds b;
    std::string lo, hi;
    in >> lo >> hi >> b.lo_open >> b.hi_open >> b.integer;
    b.lo = std::strtod(lo.c_str(), nullptr);
    b.hi = std::strtod(hi.c_str(), nullptr);
    return b;
  }
}

std::string options_json(const CLI::App& app) {
  // An infinite bound is written as null (JSON has no infinity).
  const auto bound = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const CLI::Option* opt : app.get_options()) {
    const std::string name = opt->get_name();
    if (name == "--help" || name == "--version" || name.empty()) continue;
    const std::string type = opt->get_type_name();  // "INT:[4, 16384]": the validators' text follows ':'
    nlohmann::ordered_json o = {{"name", name},
                                {"type", type.substr(0, type.find(':'))},
                                {"items_min", opt->get_items_expected_min()},
                                {"items_max", std::min(opt->get_items_expected_max(), 1 << 20)}};
    if (const auto b = declared_bounds(*opt))
      o["range"] = {{"lo", bound(b->lo)}, {"hi", bound(b->hi)}, {"lo_open", b->lo_open},
                    {"hi_open", b->hi_open}, {"integer", b->integer}};
    list.push_back(std::move(o));
  }
  return list.dump(2) + "\n";
}

}  // namespace cli

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
  // Each rank decides alone whether its command line is good (-1), asked for help or the version
  // (0) or is bad input (2); then the ranks agree: any bad input ends every rank with exit 2 (the
  // rank that found it says why), and ranks that were given different configurations never run.
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--list-options-json") {
      if (mpi::is_root()) std::cout << cli::options_json(app);
      return 0;
    }
  int status = -1;
  try {
    if (const std::string config = config_argument(argc, argv); !config.empty()) check_config_file(app, config);
    app.parse(argc, argv);
    check_finite_numbers(app);
  } catch (const CLI::CallForVersion& e) {
    status = app.exit(e);
  } catch (const CLI::CallForHelp& e) {
    status = app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    status = app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << e.what() << "\n";
    std::cerr << "Run with --help for the options.\n";
    status = exit_bad_input;
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    status = exit_bad_input;
  }
  if (mpi::size() > 1) {
    const int worst = mpi::max_all(status), best = mpi::min_all(status);
    if (worst == exit_bad_input) return exit_bad_input;
    if (worst != best) {
      if (mpi::is_root())
        std::cerr << "error: some ranks were asked for --help or --version and others were not; every rank must "
                     "be given the same options\n";
      return exit_bad_input;
    }
    if (status >= 0) return status;
    if (const auto d = mpi::first_difference_from_root(configuration_lines(app))) {
      if (mpi::is_root()) {
        const std::string key = trim(d->root_line.substr(0, d->root_line.find('=')));
        const std::string other_key = trim(d->rank_line.substr(0, d->rank_line.find('=')));
        std::cerr << "error: the ranks were given different configurations: "
                  << (key == other_key && !key.empty()
                          ? "--" + key + " is " + trim(d->root_line.substr(d->root_line.find('=') + 1)) +
                                " on rank 0 and " + trim(d->rank_line.substr(d->rank_line.find('=') + 1)) +
                                " on rank " + std::to_string(d->rank)
                          : "rank 0 has '" + d->root_line + "' where rank " + std::to_string(d->rank) + " has '" +
                                d->rank_line + "'")
                  << " (options, config files and COPA_* variables must be the same on every rank)\n";
      }
      return exit_bad_input;
    }
  }
  return status;
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

std::string command_line(int argc, char** argv) {
  std::ostringstream os;
  for (int i = 0; i < argc; ++i) os << (i ? " " : "") << argv[i];
  return os.str();
}

}  // namespace copa
