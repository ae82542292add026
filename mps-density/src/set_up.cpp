// The set-up of a run from the command line: the problem's parameters, its memory estimate, the
// kernel options and the timer of a backend.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "app.hpp"
#include "copa/errors.hpp"
#include "copa/gpu_model.hpp"
#include "copa/memory.hpp"
#include "copa/mpi.hpp"
#if COPA_GPU
#include "copa/device_memory.hpp"
#include "copa/gpu_timing.hpp"
#endif

namespace mps::app {
namespace {

std::size_t to_bytes(double b) {
  return b >= static_cast<double>(std::numeric_limits<std::size_t>::max()) ? std::numeric_limits<std::size_t>::max()
                                                                            : static_cast<std::size_t>(b);
}

}  // namespace

std::unique_ptr<copa::RegionTimer> make_timer(copa::Backend b, copa::Profile& profile) {
#if COPA_GPU
  if (copa::is_gpu(b)) return std::make_unique<copa::gpu::EventTimer>(profile);
#endif
  (void)b;
  return std::make_unique<copa::HostTimer>(profile);
}

SetUp resolve_set_up(const AppOptions& o, const std::string& size) {
  const std::size_t target = size == "small" ? 224910 : size == "medium" ? 10000000 : size == "large" ? 100000000 : 0;
  if (target == 0) throw copa::InputError("--size must be small, medium or large");
  SetUp s;
  if (o.case_name == "pflow") {
    s.pflow_target = o.particles ? o.particles : target;
  } else if (o.case_name == "lattice") {
    if (!(o.re > 1.0 && o.re <= 6.0)) throw copa::InputError("--re must be in (1, 6] (r_e / l0)");
    s.lattice_m = o.lattice_m != 0 ? o.lattice_m : (o.dim == 2 ? 40 : 16);
    // Interior particles (r_e from every face) must exist, or the n0 check has nothing to test.
    const int min_m = 2 * static_cast<int>(std::ceil(o.re)) + 1;
    if (s.lattice_m < min_m) throw copa::InputError("--lattice-m must be at least " + std::to_string(min_m) + " for --re " + std::to_string(o.re) + " (interior particles)");
  } else if (o.case_name == "random") {
    if (!(o.re > 1.0 && o.re <= 6.0)) throw copa::InputError("--re must be in (1, 6] (r_e / l0)");
    s.random_n = o.particles ? o.particles : 20000;
    s.random_box = std::pow(static_cast<double>(s.random_n), 1.0 / o.dim);  // about one particle per l0^dim
  } else if (o.case_name == "dambreak") {
    if (!(o.a > 0) || !std::isfinite(o.a)) throw copa::InputError("--a must be a positive column width in m");
    s.dambreak_l0 = o.l0 > 0 ? o.l0 : o.a / 20.0;
    if (o.dim == 3 && o.depth_layers != 0 && o.depth_layers < 4) throw copa::InputError("--depth-layers must be at least 4");
    s.depth_layers = o.dim == 3 ? std::max(o.depth_layers, 4) : 0;
  } else {
    throw copa::InputError("--case must be pflow, lattice, random or dambreak");
  }
  return s;
}

mps::ProblemSize problem_size(const AppOptions& o, const SetUp& s) {
  if (o.case_name == "pflow") return mps::pflow_size(s.pflow_target);
  if (o.case_name == "lattice") return mps::lattice_size(o.dim, o.re, s.lattice_m);
  if (o.case_name == "random") return mps::random_cloud_size(o.dim, s.random_n, s.random_box, o.re);
  return mps::dambreak_size(o.dim, o.a, s.dambreak_l0, s.depth_layers);
}

mps::Problem make_problem(const AppOptions& o, const SetUp& s) {
  if (o.case_name == "pflow") return mps::pflow_problem(s.pflow_target);
  if (o.case_name == "lattice") return mps::lattice_problem(o.dim, o.re, s.lattice_m);
  if (o.case_name == "random") return mps::random_cloud_problem(o.dim, s.random_n, s.random_box, o.re, 12345u);
  return mps::dambreak_problem(o.dim, o.a, s.dambreak_l0, s.depth_layers);
}

// Refuses a run that does not fit before anything is allocated (exit 3 with the estimate). Host:
// the set-up (x,y,z,u,v,w,p,type), the oracle's and the statistics' bucket arrays (3 ints each)
// and result copies (2 doubles), a snapshot in simulation mode, plus the largest host backend's own
// storage. Device: the largest GPU variant's storage (bytes_needed). Runs go one after another.
void require_memory(const AppOptions& o, const ProblemSize& size, const std::vector<std::pair<copa::Backend, Strategy>>& runs,
                    int device_ordinal, bool simulation) {
  const double N = size.particles;
  const double neighbours = o.dim == 2 ? 20.0 : 60.0;
  const bool indexable = N <= std::numeric_limits<int>::max() && size.buckets <= 2.0e9;
  // The largest storage of any requested variant on a host backend and on a GPU backend.
  auto backend_bytes = [&](bool gpu) {
    double most = 0;
    for (const auto& [b, strategy] : runs) {
      if (copa::is_gpu(b) != gpu || !indexable) continue;
      mps::KernelOptions ko;
      ko.strategy = strategy;
      if (gpu && o.precision == "fp32") ko.precision = copa::Precision::fp32;
      ko.cub_rebucket = o.rebucket == "cub";
      ko.fused_rebucket = o.rebucket == "fused";
      most = std::max(most, static_cast<double>(mps::make_kernels(b, ko)->bytes_needed(
                                static_cast<std::size_t>(N), static_cast<long long>(size.buckets), neighbours)));
    }
    return most;
  };
  const double host = N * (mps::host_bytes_per_particle + 2 * 3 * sizeof(int) + 2 * sizeof(double)) +
                      (simulation ? N * mps::host_bytes_per_particle : 0.0) + backend_bytes(false);
  const double device = backend_bytes(true);
  auto count = [](double c) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.0f", c);
    return std::string(text);
  };
  const std::string what = count(N) + " particles, " + count(size.buckets) + " buckets; estimate: host " +
                           copa::format_bytes(host) + ", device " + (device > 0 ? copa::format_bytes(device) : std::string("none"));
  copa::require_host_memory(to_bytes(host), "set-up, oracle and host backend storage (" + what + ")");
  if (!indexable)
    throw copa::InputError("the set-up (" + what + ") has more particles or buckets than 32-bit indices address (2^31)");
#if COPA_GPU
  for (const auto& run : runs)
    if (copa::is_gpu(run.first)) {
      copa::select_device(device_ordinal);
      copa::gpu::require_device_memory(to_bytes(device), "particles, buckets and lists on the device (" + what + ")");
      break;
    }
#else
  (void)device_ordinal;
#endif
}

KernelOptions kernel_options(const AppOptions& o, Strategy s, bool density) {
  KernelOptions ko;
  ko.strategy = s;
  ko.reorder = o.reorder == "on";
  ko.skin = o.skin;
  ko.stable_buckets = o.rebucket == "stable";
  ko.cub_rebucket = o.rebucket == "cub";
  ko.fused_rebucket = o.rebucket == "fused";
  ko.step_graph = o.step_graph;
  if (density) ko.precision = o.precision == "fp32" ? copa::Precision::fp32 : copa::Precision::fp64;
  return ko;
}

}  // namespace mps::app
