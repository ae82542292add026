// mps-density: MPS particle proxy of JAXA's P-Flow (bucket neighbour search, particle number
// density, full semi-implicit MPS dam break). CLI and driver, backend-agnostic.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "copa/halo.hpp"
#include "copa/mpi.hpp"
#include "copa/progress.hpp"
#include "copa/report.hpp"
#include "copa/timing.hpp"
#include "copa/vtk.hpp"
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
#include "copa/device_memory.hpp"
#include "copa/gpu_timing.hpp"
#endif
#include "kernels.hpp"
#include "neighbour_loops.hpp"
#include "buckets.hpp"
#include "dist/gather.hpp"
#include "dist/rank_kernels.hpp"
#include "dist/slabs.hpp"
#include "reference.hpp"
#include "simulation.hpp"
#include "vtk_output.hpp"

namespace {

struct AppOptions {
  std::string case_name = "pflow";
  std::string mode;  // density | simulation ("" = density for pflow/lattice/random, simulation for dambreak)
  int dim = 3;
  double re = 2.1;
  int lattice_m = 0;
  std::size_t particles = 0;
  double a = 0.1, l0 = 0;
  int depth_layers = 0;
  double t_end = 3.0;  // dimensionless T = t sqrt(2g/a)
  int steps = 0;
  double dt = 0;
  std::string front;
  std::string reorder = "on";
  double skin = 0.3;
  std::string precision = "fp64";
  std::string rebucket = "atomic";
  std::vector<std::string> variants;  // --variants: several strategies on one set-up
  std::string transport = "host";     // ghost fill between MPI ranks
  copa::vtk::Options vtk;             // ParaView output (the first backend and variant of a run)
  double cg_tol = 1e-8;               // PPE conjugate gradients: relative residual
  double ghost_margin = 1.0;          // simulation over ranks: ghost width beyond r_max, in l0
  double rebalance = 0;               // re-cut the slabs when max/mean owned particles exceeds it (0: never)
  double position_tolerance = 1e-5;   // simulation over ranks: final positions vs one rank, in l0
};

std::unique_ptr<copa::RegionTimer> make_timer(copa::Backend b, copa::Profile& profile) {
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
  if (copa::is_gpu(b)) return std::make_unique<copa::gpu::EventTimer>(profile);
#endif
  (void)b;
  return std::make_unique<copa::HostTimer>(profile);
}

// The parameters of a set-up, resolved from the options (defaults filled in), so that its size can
// be estimated before it is built and then built from the same values.
struct SetUp {
  std::size_t pflow_target = 0;
  int lattice_m = 0;
  std::size_t random_n = 0;
  double random_box = 0;
  double dambreak_l0 = 0;
  int depth_layers = 0;
};

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

std::size_t to_bytes(double b) {
  return b >= static_cast<double>(std::numeric_limits<std::size_t>::max()) ? std::numeric_limits<std::size_t>::max()
                                                                            : static_cast<std::size_t>(b);
}

// Default strategy per backend: the fastest measured FP64 density. One CUDA rank:
// fine-lean-cellrows (H200, results/h200/20261124-4: 6-8% faster than fine-lean at 0.22M, 10M
// and 100M); HIP and several ranks keep fine-lean (cellrows not timed on an AMD GPU, and its
// gpu-mpi tests not yet run); host backends: sorted-particle (16 host cores, round 4).
std::string default_variant(copa::Backend b, int ranks) {
  if (b == copa::Backend::cuda && ranks == 1) return "fine-lean-cellrows";
  return copa::is_gpu(b) ? "fine-lean" : "sorted-particle";
}

// Refuses a run that does not fit before anything is allocated (exit 3 with the estimate). Host:
// the set-up (x,y,z,u,v,w,p,type), the oracle's and the statistics' bucket arrays (3 ints each)
// and result copies (2 doubles), a snapshot in simulation mode, plus the largest host backend's own
// storage. Device: the largest GPU variant's storage (bytes_needed). Backends run one after another.
void require_memory(const AppOptions& o, const mps::ProblemSize& size, const std::vector<copa::Backend>& backends,
                    const std::vector<std::string>& variants, int device_ordinal, bool simulation) {
  const double N = size.particles;
  const double neighbours = o.dim == 2 ? 20.0 : 60.0;
  const bool indexable = N <= std::numeric_limits<int>::max() && size.buckets <= 2.0e9;
  // The largest storage of any requested variant on a host backend and on a GPU backend.
  auto backend_bytes = [&](bool gpu) {
    double most = 0;
    for (auto b : backends) {
      if (copa::is_gpu(b) != gpu || !indexable) continue;
      for (const auto& v : variants) {
        mps::KernelOptions ko;
        ko.strategy = mps::parse_strategy(!v.empty() ? v : default_variant(b, copa::mpi::size()));
        if (gpu && o.precision == "fp32") ko.precision = copa::Precision::fp32;
        ko.cub_rebucket = o.rebucket == "cub";
        ko.fused_rebucket = o.rebucket == "fused";
        most = std::max(most, static_cast<double>(mps::make_kernels(b, ko)->bytes_needed(
                                  static_cast<std::size_t>(N), static_cast<long long>(size.buckets), neighbours)));
      }
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
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
  for (auto b : backends)
    if (copa::is_gpu(b)) {
      copa::select_device(device_ordinal);
      copa::gpu::require_device_memory(to_bytes(device), "particles, buckets and lists on the device (" + what + ")");
      break;
    }
#else
  (void)device_ordinal;
#endif
}

// An output file must be creatable before the run starts: its directory exists and is writable.
void require_writable(const std::string& option, const std::string& path) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  const fs::path p(path);
  if (fs::is_directory(p)) throw copa::InputError(option + ": " + path + " is a directory");
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir)) throw copa::InputError(option + ": directory " + dir.string() + " does not exist");
  if (access(dir.c_str(), W_OK) != 0) throw copa::InputError(option + ": directory " + dir.string() + " is not writable");
}

// FNV-1a over the bytes of the values (original particle order): two runs are bitwise identical
// exactly when their checksums are.
std::string checksum(const std::vector<const std::vector<double>*>& fields) {
  std::uint64_t h = 1469598103934665603ull;
  for (const auto* f : fields) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(f->data());
    for (std::size_t k = 0; k < f->size() * sizeof(double); ++k) h = (h ^ bytes[k]) * 1099511628211ull;
  }
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(h));
  return text;
}

// Host oracle for sampled targets: serial row traversal over host buckets (checked against the
// brute force in the tests), or the brute force itself for small problems.
std::vector<double> oracle_density(const mps::Problem& pr, const std::vector<int>& targets, bool brute) {
  const auto& ps = pr.particles;
  mps::View v;
  v.x = ps.x.data();
  v.y = ps.y.data();
  v.z = ps.z.data();
  v.n = static_cast<int>(ps.size());
  std::vector<double> out(ps.size(), 0.0);
  mps::DensityOp op{pr.re, pr.re * pr.re, out.data()};
  std::vector<int> start, order, cell;
  if (!brute) mps::build_buckets(pr.grid, v.x, v.y, v.z, v.n, true, start, order, cell);
  mps::BucketsView b{pr.grid, start.data(), order.data()};
#pragma omp parallel for schedule(dynamic, 256)
  for (std::size_t t = 0; t < targets.size(); ++t) {
    if (brute) mps::target_brute(v, op, targets[t]);
    else mps::target_rows(v, b, op, targets[t]);
  }
  return out;
}

// Evenly strided targets, at most `count` of them.
std::vector<int> sample_targets(int n, int count) {
  const int samples = std::min(n, count);
  std::vector<int> targets(samples);
  for (int s = 0; s < samples; ++s) targets[s] = static_cast<int>(static_cast<long long>(s) * n / samples);
  return targets;
}

// max |n - ref| / max |ref| over the targets.
double relative_error(const std::vector<double>& n, const std::vector<double>& ref, const std::vector<int>& targets) {
  double err = 0, scale = 0;
  for (int t : targets) {
    err = std::max(err, std::fabs(n[t] - ref[t]));
    scale = std::max(scale, std::fabs(ref[t]));
  }
  return scale > 0 ? err / scale : err;
}

// Two references, both independent of the backend's buckets and strategy: the brute-force sum over
// every particle (all targets up to 20000 particles; beyond, a strided sample of 5e8 / N targets,
// at least 64, so the check costs ~5e8 pair tests at any size) and the serial bucket sum (row
// traversal, itself checked against the brute force in the tests) on up to 200k strided targets.
copa::Verification verify_density(const mps::Problem& pr, const std::vector<double>& n, bool fp32) {
  const int N = static_cast<int>(pr.particles.size());
  const int brute_count = N <= 20000 ? N : std::max(64, static_cast<int>(5.0e8 / N));
  const auto brute_targets = sample_targets(N, brute_count);
  const double brute_err = relative_error(n, oracle_density(pr, brute_targets, true), brute_targets);
  copa::Verification v;
  v.metric = "max_rel_density_error";
  v.tolerance = fp32 ? 1e-5 : 1e-12;
  if (static_cast<int>(brute_targets.size()) == N) {
    v.reference = "brute-force O(N^2) sum, every particle";
    v.value = brute_err;
  } else {
    const auto row_targets = sample_targets(N, 200000);
    const double row_err = relative_error(n, oracle_density(pr, row_targets, false), row_targets);
    v.reference = "brute-force sum over all particles (" + std::to_string(brute_targets.size()) +
                  " strided targets) and serial bucket sum (" + std::to_string(row_targets.size()) + " strided targets)";
    v.value = std::max(brute_err, row_err);
  }
  v.passed = v.value <= v.tolerance;
  return v;
}

// Interior particles of a perfect lattice must reproduce n0 (references/mps.md).
copa::Verification verify_lattice(const mps::Problem& pr, const std::vector<double>& n) {
  const auto c = mps::lattice_constants(pr.grid.dim, pr.re);
  const auto& ps = pr.particles;
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const double r[3] = {ps.x[i], ps.y[i], ps.z[i]};
    for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], r[d]), hi[d] = std::max(hi[d], r[d]);
  }
  double err = 0;
  std::size_t interior = 0;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const double r[3] = {ps.x[i], ps.y[i], ps.z[i]};
    bool in = true;
    for (int d = 0; d < pr.grid.dim; ++d) in = in && r[d] - lo[d] >= pr.re && hi[d] - r[d] >= pr.re;
    if (!in) continue;
    ++interior;
    err = std::max(err, std::fabs(n[i] - c.n0) / c.n0);
  }
  copa::Verification v;
  v.reference = "lattice n0 (references/mps.md, lattice sum)";
  v.metric = "max_rel_n0_error_interior";
  v.value = err;
  v.tolerance = 1e-13;
  v.passed = interior > 0 && err <= v.tolerance;
  return v;
}

mps::KernelOptions density_kernel_options(const AppOptions& o, const std::string& variant) {
  mps::KernelOptions ko;
  ko.strategy = mps::parse_strategy(variant);
  ko.reorder = o.reorder == "on";
  ko.skin = o.skin;
  ko.stable_buckets = o.rebucket == "stable";
  ko.cub_rebucket = o.rebucket == "cub";
  ko.fused_rebucket = o.rebucket == "fused";
  ko.precision = o.precision == "fp32" ? copa::Precision::fp32 : copa::Precision::fp64;
  return ko;
}

// This rank's slab with its ghosts (positions NaN until filled). List variants keep neighbours up
// to r_e + skin, so their ghosts reach as far.
mps::dist::LocalDomain slab_domain(const AppOptions& o, const mps::Problem& pr, const mps::dist::Slabs& slabs, bool verlet) {
  return mps::dist::local_domain(pr, slabs, copa::mpi::rank(), pr.re + (verlet ? o.skin * pr.l0 : 0.0));
}

// Host backends: the ghosts are filled in the set-up's host arrays before load, through the halo
// exchange on host memory (timed as "halo_exchange"): positions and types of the owners' particles.
void fill_ghosts_on_host(const AppOptions& o, const copa::CommonOptions& common, mps::dist::LocalDomain& d,
                         copa::Profile& profile, copa::KernelCost& cost) {
  std::vector<double> field;
  mps::dist::pack_halo_field(d.problem.particles, field);
  copa::halo::Exchange exchange(d.links, {mps::dist::halo_components, static_cast<std::int64_t>(d.problem.particles.size())},
                                copa::halo::parse_transport(o.transport), copa::halo::Memory::host);
  copa::HostTimer timer(profile);
  copa::repeat_timed(timer, "halo_exchange", common.warmup, common.reps, [&] { exchange.run(field.data()); });
  mps::dist::unpack_ghosts(field, d.owned, d.problem.particles);
  cost.bytes_read = static_cast<double>(exchange.bytes_sent());
  cost.bytes_written = static_cast<double>(exchange.bytes_received());
}

// Collective: the decomposition of run.decomposition (every rank's owned particles and ghosts).
// Density mode has one set-up cut, already the count-based one a re-cut would give: --rebalance is
// reported (re-cuts 0, whether the set-up passes the threshold), never acted on.
nlohmann::json decomposition_json(const mps::dist::Slabs& s, const mps::dist::LocalDomain& d, double rebalance) {
  const auto ghosts = copa::mpi::gather_all(static_cast<double>(d.problem.particles.size() - d.owned));
  return {{"ranks", s.ranks()}, {"axis", s.axis == 2 ? "z" : "x"}, {"cuts", s.cuts}, {"local_work", s.work},
          {"unit", "owned particles"}, {"imbalance", s.imbalance()}, {"ghosts", ghosts},
          {"rebalance", {{"threshold", rebalance}, {"recuts", 0},
                         {"above_threshold", rebalance > 0 && s.imbalance() > rebalance}}}};
}

// Number density of the whole set-up on this process alone (the one-rank answer of a distributed run).
std::vector<double> density_alone(copa::Backend b, const mps::KernelOptions& ko, const mps::Problem& pr) {
  auto k = mps::make_kernels(b, ko);
  k->load(pr, pr.re);
  k->prepare_neighbours(true);
  k->number_density(pr.re);
  return k->get(mps::Field::n);
}

// `slabs` is null on one rank; on several, the kernels run on this rank's owned particles and
// ghosts, and rank 0 verifies the gathered densities (the other ranks return exit_ok).
int run_density(const AppOptions& o, const copa::CommonOptions& common, const std::string& variant, copa::Backend b,
                const mps::Problem& pr, const mps::dist::Slabs* slabs, copa::Report& rep) {
  const mps::KernelOptions ko = density_kernel_options(o, variant);
  const bool verlet = ko.strategy == mps::Strategy::verlet;
  copa::Profile profile;
  copa::KernelCost halo_cost;
  std::optional<mps::dist::LocalDomain> local;
  if (slabs) {
    local = slab_domain(o, pr, *slabs, verlet);
    if (!copa::is_gpu(b)) fill_ghosts_on_host(o, common, *local, profile, halo_cost);
    rep.set_transport(o.transport);
    rep.set_decomposition(decomposition_json(*slabs, *local, o.rebalance));
  }
  const mps::Problem& mine = local ? local->problem : pr;
  copa::announce(common.quiet || !copa::mpi::is_root(),
                 std::to_string(pr.particles.size()) + " particles, " + std::to_string(pr.grid.nx) + " x " +
                     std::to_string(pr.grid.ny) + " x " + std::to_string(pr.grid.nz) + " buckets",
                 std::to_string(common.warmup) + " warm-up + " + std::to_string(common.reps) +
                     " timed repetitions of each kernel");
  auto k = mps::make_kernels(b, ko);
  const std::size_t N = mine.particles.size();
  k->load(mine, pr.re);
  auto timer = make_timer(b, profile);
  if (local && copa::is_gpu(b)) {
    // GPU backends: the ghosts are filled on the device, from the owners' device arrays, through
    // the transport of --transport (host: staged through pinned host buffers).
    copa::halo::Exchange exchange(local->links,
                                  {mps::dist::halo_components, static_cast<std::int64_t>(local->problem.particles.size())},
                                  copa::halo::parse_transport(o.transport), copa::halo::Memory::device);
    copa::repeat_timed(*timer, "halo_exchange", common.warmup, common.reps, [&] { k->fill_ghosts(exchange, local->owned); });
    halo_cost.bytes_read = static_cast<double>(exchange.bytes_sent());
    halo_cost.bytes_written = static_cast<double>(exchange.bytes_received());
  }
  const std::string build_row = verlet ? "rebucket+verlet-lists" : "rebucket";
  copa::repeat_timed(*timer, build_row, common.warmup, common.reps, [&] { k->prepare_neighbours(true); });
  const std::string row = "number-density";
  copa::repeat_timed(*timer, row, common.warmup, std::max(common.reps, 1), [&] { k->number_density(pr.re); });
  const auto n_local = k->get(mps::Field::n);

  // The cost model is this rank's work: its owned particles are the targets (mine.ghosts), the
  // owned particles and ghosts the sources (positions read, bucketed).
  const auto st = mps::neighbour_statistics(mine, ko.strategy, pr.re, pr.re + o.skin * pr.l0);
  const double Nd = static_cast<double>(N);
  const double targets = static_cast<double>(N - mine.ghosts);
  const bool fp32 = ko.precision == copa::Precision::fp32;
  const double pos_bytes = fp32 ? 16.0 : 24.0;
  // FLOP/byte model (README): 8 FLOPs per candidate (3 sub, 3 FMA-equivalent, compare), 3 more
  // (sqrt counted as 1, divide, subtract... add) per true neighbour; minimum bytes: positions read
  // once, n written once (+ bucket starts, + lists for verlet).
  const bool fine = mps::is_fine(ko.strategy);
  const int fd = fine ? mps::fine_divisions : 1;
  const double cells = static_cast<double>(pr.grid.cells()) * fd * fd * (pr.grid.dim == 3 ? fd : 1);
  copa::KernelCost dc;
  dc.flops = 8.0 * st.candidates + 4.0 * st.neighbours;
  dc.bytes_read = Nd * pos_bytes + (verlet ? st.candidates * 4.0 + targets * 4 : cells * 4.0);
  dc.bytes_written = targets * 8.0;
  dc.precision = ko.precision;
  // Rebucketing: count (read positions, write cell and rank), scan (read counts, write starts,
  // zero counts), scatter (read cell, rank, start; write order and, with reorder, 7 fields + type + id).
  copa::KernelCost bc;
  bc.flops = Nd * 6;
  bc.bytes_read = Nd * (24 + 12) + (ko.reorder ? Nd * (7 * 8 + 1 + 4) : 0) + cells * 4;
  bc.bytes_written = Nd * (8 + 4) + (ko.reorder ? Nd * (7 * 8 + 1 + 4) : 0) + cells * 8;
  if (verlet) {
    bc.flops += 8.0 * st.candidates;
    bc.bytes_written += st.candidates * 4.0;
  }
  rep.add_kernel(build_row, profile.stats(build_row), bc);
  rep.add_kernel(row, profile.stats(row), dc);
  if (local) rep.add_kernel("halo_exchange", profile.stats("halo_exchange"), halo_cost);
  // The slowest rank sets the pace: rates are global evaluations over the MAX over ranks of the
  // per-rank medians (collective; the same as the medians on one rank).
  const double td = copa::mpi::reduce(profile.stats(row).median).max;
  const double tb = copa::mpi::reduce(profile.stats(build_row).median).max;
  rep.reduce_over_ranks();
  k.reset();  // rank 0's one-rank check below then needs no more memory than a one-rank run
  // The owned particles' densities, in global id order on rank 0.
  const std::vector<double> n =
      local ? mps::dist::gather_by_id(std::vector<double>(n_local.begin(), n_local.begin() + local->owned),
                                      std::vector<std::int64_t>(local->global_id.begin(), local->global_id.begin() + local->owned),
                                      pr.particles.size())
            : n_local;
  if (!copa::mpi::is_root()) return copa::exit_ok;

  const double Ng = static_cast<double>(pr.particles.size());
  const auto sg = local ? mps::neighbour_statistics(pr, ko.strategy, pr.re, pr.re + o.skin * pr.l0) : st;
  rep.set_fom({"density evaluations per second", Ng / td, "particles/s"});
  auto& ex = rep.extra()["mps"];
  ex["particles"] = pr.particles.size();
  ex["buckets"] = {pr.grid.nx, pr.grid.ny, pr.grid.nz};
  if (fine) ex["fine_buckets"] = {pr.grid.nx * fd, pr.grid.ny * fd, pr.grid.dim == 3 ? pr.grid.nz * fd : 1};
  ex["density_seconds_median"] = td;
  ex["rebucket_seconds_median"] = tb;
  ex["evaluations_per_second"] = Ng / td;
  ex["evaluations_per_second_with_rebucket"] = Ng / (td + tb);
  ex["candidates_per_evaluation"] = sg.candidates;
  ex["neighbours_per_evaluation"] = sg.neighbours;
  ex["candidate_pairs_per_second"] = sg.candidates / td;
  ex["true_neighbours_per_second"] = sg.neighbours / td;
  ex["precision"] = o.precision;
  ex["reorder"] = ko.reorder;
  ex["checksum"] = checksum({&n});
  if (!common.quiet) {
    std::cout << "particles " << pr.particles.size() << ", buckets " << pr.grid.nx << " x " << pr.grid.ny << " x " << pr.grid.nz
              << (fine ? " (fine: edge r_e/" + std::to_string(fd) + ")" : std::string()) << ", candidates/particle " << sg.candidates / Ng << ", neighbours/particle " << sg.neighbours / Ng << "\n"
              << "density: " << td * 1e6 << " us, with rebucketing " << (td + tb) * 1e6
              << " us; evaluations/s " << Ng / td << " (amortised with rebucketing " << Ng / (td + tb)
              << "); candidate pairs/s " << sg.candidates / td << ", true neighbours/s " << sg.neighbours / td
              << "\n"
              << "checksum of n (FNV-1a of the bits, original order): " << ex["checksum"].get<std::string>() << "\n";
  }
  copa::Verification v = verify_density(pr, n, fp32);
  if (o.case_name == "lattice" && v.passed) {
    const auto vl = verify_lattice(pr, n);
    ex["lattice_n0_error"] = vl.value;
    v = vl;
  }
  if (local && v.passed) {
    // The same backend and variant on the whole set-up in this process: every owned particle sees
    // the same neighbours as on one rank (its ghosts included), so only the summation order can
    // differ (round-off; a widened verlet bucket can hold particles of two ranks).
    const auto one = density_alone(b, ko, pr);
    double err = 0;
    for (std::size_t i = 0; i < n.size(); ++i) err = std::max(err, std::fabs(n[i] - one[i]) / std::fabs(one[i]));
    const bool bitwise = one == n;
    const double tolerance = fp32 ? 1e-5 : 1e-12;
    ex["one_rank_check"] = {{"max_rel_difference", err}, {"bitwise_equal", bitwise}, {"tolerance", tolerance},
                            {"checksum_one_rank", checksum({&one})}};
    if (!common.quiet)
      std::cout << "one-rank check: max relative difference " << err << (bitwise ? " (bitwise equal)" : "") << "\n";
    if (!(err <= tolerance)) v = {"the same run on one rank", "max_rel_density_difference_vs_one_rank", err, tolerance, false};
  }
  copa::vtk::Series vtk(o.vtk, "mps-density", "vtp");
  vtk.at_end(0, 0.0, [&](const std::string& path) { mps::write_particles_vtk(path, pr.particles, n, false, vtk.encoding()); });
  if (vtk.enabled()) ex["vtk_files"] = vtk.files();
  rep.set_verification(v);
  return v.passed ? copa::exit_ok : copa::exit_verification_failed;
}

// One simulation's time loop on `k` (a dist::RankKernels on several ranks): the surge front of the
// dam break every 0.05 in T (its maximum over ranks when `over_ranks`), CG statistics, wall time.
struct Trajectory {
  int steps = 0;
  double dt = 0;
  std::vector<std::pair<double, double>> TZ;
  int cg_total = 0, cg_max = 0;
  double wall = 0;
  std::vector<std::string> vtk_files;
};

// quiet: no size line and no heartbeat (the other ranks, the one-rank comparison); vtk: the
// ParaView series of this run (empty options: none).
Trajectory simulate(mps::MpsKernels& k, const AppOptions& o, const mps::Problem& pr, const mps::SimParams& sp,
                    bool over_ranks, copa::RegionTimer& timer, std::ofstream* front, bool quiet,
                    const copa::vtk::Options& vtk_options) {
  mps::Simulation sim(k, pr, sp);
  const bool dambreak = pr.column_width > 0 && o.case_name == "dambreak";
  const double a = pr.column_width;
  const double tscale = std::sqrt(2.0 * sp.gravity / std::max(a, 1e-30));  // T = t sqrt(2g/a)
  Trajectory t;
  t.dt = sim.dt();
  t.steps = o.steps > 0 ? o.steps : dambreak ? static_cast<int>(std::ceil(o.t_end / tscale / sim.dt())) : 10;
  const int out_every = std::max(1, static_cast<int>(std::lround(0.05 / tscale / sim.dt())));
  mps::Particles snapshot;
  auto record = [&](int step) {
    k.store(snapshot);
    double z = mps::front_position(snapshot, pr.left_wall_face, pr.l0);
    if (over_ranks) z = copa::mpi::max_all(z);
    const double time = step * sim.dt();
    t.TZ.emplace_back(time * tscale, z / a);
    if (front && *front) *front << time << "," << z << "," << time * tscale << "," << z / a << "\n";
  };
  if (dambreak) record(0);
  copa::announce(quiet, std::to_string(pr.particles.size()) + " particles, " + std::to_string(pr.grid.nx) + " x " +
                            std::to_string(pr.grid.ny) + " x " + std::to_string(pr.grid.nz) + " buckets",
                 std::to_string(t.steps) + " time steps of " + std::to_string(sim.dt()) + " s");
  copa::vtk::Series vtk(vtk_options, "mps-density", "vtp");
  auto write_vtk = [&](const std::string& path) {
    k.store(snapshot);
    mps::write_particles_vtk(path, snapshot, k.get(mps::Field::n), true, vtk.encoding());
  };
  vtk.at_step(0, 0.0, write_vtk);
  copa::Progress progress("step", t.steps, quiet);
  const double t0 = copa::host_seconds();
  for (int s = 1; s <= t.steps; ++s) {
    const auto info = sim.step(timer);
    t.cg_total += info.cg_iterations;
    t.cg_max = std::max(t.cg_max, info.cg_iterations);
    if (dambreak && s % out_every == 0) {
      timer.flush();
      record(s);
    }
    if (vtk.due(s)) {
      timer.flush();
      vtk.at_step(s, s * sim.dt(), write_vtk);
    }
    progress.update(s);
  }
  timer.flush();
  t.wall = copa::host_seconds() - t0;
  vtk.at_end(t.steps, t.steps * sim.dt(), write_vtk);
  t.vtk_files = vtk.files();
  return t;
}

// Collective: run.decomposition of a distributed simulation at its end.
nlohmann::json simulation_decomposition_json(const mps::dist::RankKernels& rk, const AppOptions& o, int steps) {
  const auto& s = rk.slabs();
  mps::dist::Slabs end = s;
  end.work = copa::mpi::gather_all(static_cast<double>(rk.owned()));
  const auto ghosts = copa::mpi::gather_all(static_cast<double>(rk.ghosts()));
  // Particles migrated per rebuild over all ranks (every rank rebuilds at the same calls; the
  // set-up at step 0 is cut by slab and migrates nothing).
  const auto per_rebuild = copa::mpi::sum_ordered(rk.migrations());
  double total = 0, most = 0;
  for (double m : per_rebuild) total += m, most = std::max(most, m);
  const auto& rebuilds = rk.rebuilds();
  const double rebuild_seconds = copa::mpi::max_all(rk.rebuild_seconds());
  const double count = static_cast<double>(rebuilds.size());
  std::vector<int> at;
  int mid_step = 0, gap_min = 0, gap_max = 0, previous = 0;
  for (const auto& r : rebuilds) {
    at.push_back(r.step);
    mid_step += r.mid_step;
    const int gap = r.step - previous;  // steps since the previous build (the set-up: step 0)
    gap_min = at.size() == 1 ? gap : std::min(gap_min, gap);
    gap_max = std::max(gap_max, gap);
    previous = r.step;
  }
  nlohmann::json recuts = nlohmann::json::array();
  for (const auto& r : rk.recuts()) recuts.push_back({{"step", r.step}, {"imbalance_before", r.before}, {"imbalance_after", r.after}});
  const auto& c = rk.census();
  return {{"ranks", end.ranks()}, {"axis", end.axis == 2 ? "z" : "x"}, {"cuts", end.cuts}, {"local_work", end.work},
          {"unit", "owned particles at the end"}, {"imbalance", end.imbalance()}, {"ghosts", ghosts},
          {"migrations", {{"steps", steps}, {"rebuilds", rebuilds.size()}, {"total", total},
                          {"mean_per_rebuild", count > 0 ? total / count : 0.0}, {"max_per_rebuild", most}}},
          {"rebuilds", {{"count", rebuilds.size()},
                        {"criterion", "largest displacement since the last rebuild > ghost_margin / 2"},
                        {"ghost_margin_l0", o.ghost_margin}, {"at_steps", at}, {"mid_step", mid_step},
                        {"steps_per_rebuild", count > 0 ? steps / count : static_cast<double>(steps)},
                        {"steps_between_min", gap_min}, {"steps_between_max", gap_max},
                        {"seconds_total_max_over_ranks", rebuild_seconds},
                        {"seconds_per_rebuild", count > 0 ? rebuild_seconds / count : 0.0}}},
          {"rebalance", {{"threshold", o.rebalance}, {"recuts", rk.recuts().size()}, {"events", recuts}}},
          {"conservation", {{"particles", c.particles}, {"id_sum", c.id_sum}, {"id_hash_sum", c.id_hash_sum},
                            {"checked", "after every rebuild"}}}};
}

// The final state in global id order (rank 0; the others get empty vectors).
mps::Particles gather_state(mps::dist::RankKernels& rk, std::size_t global_count) {
  mps::Particles mine, out;
  rk.store(mine);
  const auto ids = rk.owned_ids();
  out.dim = mine.dim;
  out.x = mps::dist::gather_by_id(mine.x, ids, global_count);
  out.y = mps::dist::gather_by_id(mine.y, ids, global_count);
  out.z = mps::dist::gather_by_id(mine.z, ids, global_count);
  out.u = mps::dist::gather_by_id(mine.u, ids, global_count);
  out.v = mps::dist::gather_by_id(mine.v, ids, global_count);
  out.w = mps::dist::gather_by_id(mine.w, ids, global_count);
  out.p = mps::dist::gather_by_id(mine.p, ids, global_count);
  return out;
}

// `slabs` is null on one rank; on several, every rank runs its slab (dist::RankKernels) and rank 0
// judges the gathered result, then runs the same simulation alone and compares (the others return
// exit_ok).
int run_simulation(const AppOptions& o, const copa::CommonOptions& common, const std::string& variant, copa::Backend b,
                   const mps::Problem& pr, const mps::dist::Slabs* slabs, copa::Report& rep) {
  mps::KernelOptions ko;
  ko.strategy = mps::parse_strategy(variant);
  if (ko.strategy == mps::Strategy::brute && pr.particles.size() > 50000) throw copa::InputError("--variant brute: at most 50000 particles");
  ko.reorder = o.reorder == "on";
  ko.skin = o.skin;
  ko.stable_buckets = o.rebucket == "stable";
  ko.cub_rebucket = o.rebucket == "cub";
  ko.fused_rebucket = o.rebucket == "fused";
  std::unique_ptr<mps::MpsKernels> k = mps::make_kernels(b, ko);
  mps::dist::RankKernels* rk = nullptr;
  if (slabs) {
    mps::dist::RankOptions ro;
    ro.transport = copa::halo::parse_transport(o.transport);
    ro.margin = o.ghost_margin;
    ro.rebalance = o.rebalance;
    auto wrapped = std::make_unique<mps::dist::RankKernels>(std::move(k), *slabs, ro);
    rk = wrapped.get();
    k = std::move(wrapped);
    rep.set_transport(o.transport);
  }
  mps::SimParams sp;
  sp.dt = o.dt;
  sp.cg_tol = o.cg_tol;
  const std::size_t N = pr.particles.size();
  const bool dambreak = pr.column_width > 0 && o.case_name == "dambreak";
  const bool root = copa::mpi::is_root();
  copa::Profile profile;
  auto timer = make_timer(b, profile);
  std::ofstream front;
  if (!o.front.empty() && dambreak && root) {
    front.open(o.front);
    if (!front) throw copa::InputError("--front: cannot write " + o.front);
    front << "t,z_front,T,Z\n";
  }
  const Trajectory tr = simulate(*k, o, pr, sp, rk != nullptr, *timer, front.is_open() ? &front : nullptr,
                                 common.quiet || !root, o.vtk);
  const int steps = tr.steps;
  double step_time = 0;
  for (const auto& name : profile.names()) step_time += profile.total(name);
  step_time = copa::mpi::max_all(step_time);  // the slowest rank sets the pace
  const double Nd = static_cast<double>(N);
  // The rows are per rank (times: the max over ranks): over ranks they count a rank's targets, the
  // mean owned count N / ranks (the owned counts change at every migration).
  const double per_rank = rk ? Nd / copa::mpi::size() : Nd;
  for (const auto& name : profile.names()) {
    copa::KernelCost c;  // neighbour sums dominate; minimum bytes: 7 fields read + written per call
    c.bytes_read = per_rank * 7 * 8;
    c.bytes_written = per_rank * 7 * 8;
    rep.add_kernel(name, profile.stats(name), c);
  }
  nlohmann::json decomposition;
  if (rk) {
    decomposition = simulation_decomposition_json(*rk, o, steps);
    rep.set_decomposition(decomposition);
  }
  rep.reduce_over_ranks();
  const int list_rebuilds = k->list_rebuilds();
  mps::Particles end;
  if (rk) end = gather_state(*rk, N);
  else k->store(end);
  k.reset();  // rank 0's one-rank run below then needs no more memory than a one-rank run
  if (!root) return copa::exit_ok;

  rep.set_fom({"particle-steps per second", Nd * steps / step_time, "particle-steps/s"});
  auto& ex = rep.extra()["mps"];
  ex["particles"] = N;
  ex["steps"] = steps;
  ex["dt"] = tr.dt;
  ex["cg_tolerance"] = sp.cg_tol;
  ex["cg_iterations_mean"] = static_cast<double>(tr.cg_total) / steps;
  ex["cg_iterations_max"] = tr.cg_max;
  ex["list_rebuilds"] = list_rebuilds;
  ex["wall_seconds"] = tr.wall;
  if (!tr.vtk_files.empty()) ex["vtk_files"] = tr.vtk_files;
  if (!common.quiet)
    std::cout << "particles " << N << ", steps " << steps << ", dt " << tr.dt << " s, CG iterations mean "
              << static_cast<double>(tr.cg_total) / steps << " max " << tr.cg_max << ", particle-steps/s " << Nd * steps / step_time
              << "\n";
  ex["checksum"] = checksum({&end.x, &end.y, &end.z, &end.u, &end.v, &end.w, &end.p});
  if (!common.quiet) std::cout << "checksum of x,y,z,u,v,w,p (FNV-1a of the bits, original order): " << ex["checksum"].get<std::string>() << "\n";
  if (rk && !common.quiet) {
    const auto& d = decomposition;
    std::cout << "ranks " << d["ranks"] << ": particles and ids conserved over " << d["rebuilds"]["count"]
              << " rebuilds in " << steps << " steps (" << d["migrations"]["total"].get<long long>()
              << " particles migrated, at most " << d["migrations"]["max_per_rebuild"].get<long long>()
              << " in one rebuild; " << d["rebuilds"]["mid_step"] << " of the rebuilds inside a step); owned at the end "
              << d["local_work"] << ", imbalance " << d["imbalance"]
              << "; re-cuts: " << d["rebalance"]["recuts"] << "\n";
    for (const auto& e : d["rebalance"]["events"])
      std::cout << "  re-cut at step " << e["step"] << ": imbalance " << e["imbalance_before"] << " -> " << e["imbalance_after"] << "\n";
  }
  copa::Verification v;
  constexpr double T0 = 1.0, T1 = 3.0;
  // Surge front Z(T), T = t sqrt(2g/a) (Martin & Moyce's n t sqrt(g/a) for n^2 = 2), against the
  // experiment with no time offset, over 1 <= T <= 3. Tolerance: the scatter of the literature,
  // the largest relative distance between Koshizuka & Oka's published MPS front and the
  // experiment over the same range (computed from the two tables, README).
  auto front_error = [&](const Trajectory& t, double (*reference)(double), int& used) {
    double e = 0;
    used = 0;
    for (const auto& [T, Z] : t.TZ) {
      if (T < T0 || T > T1) continue;
      const double Zr = reference(T);
      e = std::max(e, std::fabs(Z - Zr) / Zr);
      ++used;
    }
    return e;
  };
  const double scatter = dambreak ? mps::front_reference_scatter(T0, T1) : 0.0;
  if (dambreak) {
    int used = 0, used_ko = 0;
    const double err_mm = front_error(tr, mps::martin_moyce_Z, used);
    const double err_ko = front_error(tr, mps::koshizuka_oka_Z, used_ko);
    nlohmann::json series = nlohmann::json::array();
    for (const auto& [T, Z] : tr.TZ) series.push_back({T, Z});
    ex["front_T_Z"] = series;
    ex["front_error_vs_martin_moyce"] = err_mm;
    ex["front_error_vs_koshizuka_oka_mps"] = err_ko;
    ex["front_reference_scatter"] = scatter;
    ex["front_points_compared"] = used;
    if (!common.quiet)
      std::cout << "dam break front, max relative error for 1 <= T <= 3 (no time offset): " << err_mm
                << " vs Martin & Moyce's experiment, " << err_ko << " vs Koshizuka & Oka's MPS; scatter of the "
                << "literature (Koshizuka & Oka's MPS vs the experiment): " << scatter << "\n";
    if (used == 0) {
      v = copa::not_verified("the run ends at T = " + std::to_string(tr.TZ.back().first) +
                             ", before the compared range 1 <= T <= 3 of the dam-break front (--t-end, --steps)");
    } else {
      v.reference = "Martin & Moyce (1952) surge front, no time offset; tolerance = Koshizuka & Oka's MPS vs the experiment";
      v.metric = "max_rel_front_error_T1_3";
      v.value = err_mm;
      v.tolerance = scatter;
      v.passed = err_mm <= scatter;
    }
  } else {
    v = copa::not_verified("the tank simulation has no reference (no published P-Flow tank result); NaN and "
                           "particles leaving the bucket grid are checked every step (exit 3)");
  }
  if (rk) {
    // The same backend and variant on the whole set-up in this process. Not bitwise: the CG dot
    // products add per-rank partial sums (other association than one process), and a bucket
    // holding particles of two ranks (one crossed since the migration) sums them in another order;
    // both are round-off, which a tight --cg-tol keeps from growing beyond the tolerance.
    auto alone = mps::make_kernels(b, ko);
    copa::Profile p1;
    auto t1 = make_timer(b, p1);
    const Trajectory one = simulate(*alone, o, pr, sp, false, *t1, nullptr, true, copa::vtk::Options{});
    mps::Particles end1;
    alone->store(end1);
    double front_diff = 0, pos_diff = 0;
    for (std::size_t s = 0; s < std::min(one.TZ.size(), tr.TZ.size()); ++s)
      front_diff = std::max(front_diff, std::fabs(tr.TZ[s].second - one.TZ[s].second) / std::fabs(one.TZ[s].second));
    for (std::size_t i = 0; i < N; ++i)
      pos_diff = std::max(pos_diff, std::max({std::fabs(end.x[i] - end1.x[i]), std::fabs(end.y[i] - end1.y[i]),
                                              std::fabs(end.z[i] - end1.z[i])}) / pr.l0);
    const std::string sum1 = checksum({&end1.x, &end1.y, &end1.z, &end1.u, &end1.v, &end1.w, &end1.p});
    int used1 = 0;
    const bool mm_one = dambreak && front_error(one, mps::martin_moyce_Z, used1) <= scatter;
    const bool same_verdict = !dambreak || (v.verified && used1 > 0 && mm_one == v.passed) || (!v.verified && used1 == 0);
    const double tolerance = 1e-6;
    const bool ok = front_diff <= tolerance && pos_diff <= o.position_tolerance && same_verdict &&
                    one.TZ.size() == tr.TZ.size();
    ex["one_rank_check"] = {{"max_rel_front_difference", front_diff}, {"front_tolerance", tolerance},
                            {"max_position_difference_over_l0", pos_diff}, {"position_tolerance_over_l0", o.position_tolerance},
                            {"same_martin_moyce_verdict", same_verdict}, {"checksum_one_rank", sum1},
                            {"bitwise_equal", sum1 == ex["checksum"].get<std::string>()},
                            {"cg_iterations_mean_one_rank", static_cast<double>(one.cg_total) / one.steps}};
    if (!common.quiet)
      std::cout << "one-rank check " << (ok ? "passed" : "FAILED") << ": front max relative difference " << front_diff
                << " (tolerance " << tolerance << "), final positions max difference " << pos_diff << " l0 (tolerance "
                << o.position_tolerance << ")" << (sum1 == ex["checksum"].get<std::string>() ? ", bitwise equal" : "")
                << "; Martin & Moyce verdict over ranks: "
                << (!v.verified ? "not verified" : v.passed ? "passed" : "failed") << ", one rank: "
                << (!dambreak || used1 == 0 ? "not verified" : mm_one ? "passed" : "failed")
                << (same_verdict ? " (the same)" : " (DIFFERENT)") << "\n";
    if (!ok) v = {"the same run on one rank", "max_rel_front_difference_vs_one_rank", front_diff, tolerance, false};
  }
  rep.set_verification(v);
  return !v.verified || v.passed ? copa::exit_ok : copa::exit_verification_failed;
}

int run(int argc, char** argv) {
  CLI::App app{"mps-density: MPS particle proxy (P-Flow): bucket neighbour search, number density, dam break"};
  copa::CommonOptions common;
  copa::add_common_options(app, common);
  AppOptions o;
  app.add_option("--case", o.case_name, "pflow (density benchmark tank), lattice, random (cloud) or dambreak");
  app.add_option("--mode", o.mode, "density (neighbour-sum benchmark) or simulation (semi-implicit MPS steps)");
  app.add_option("--dim", o.dim, "2 or 3 (lattice, random, dambreak)");
  app.add_option("--re", o.re, "r_e / l0 for lattice and random cases (2.1, 3.1, 4.0)");
  app.add_option("--lattice-m", o.lattice_m, "lattice points per side");
  app.add_option("--particles", o.particles, "particle count (pflow target, random cloud); overrides --size");
  app.add_option("--a", o.a, "dam break column width a in m (height 2a)");
  app.add_option("--l0", o.l0, "dam break particle spacing in m (default a/20)");
  app.add_option("--depth-layers", o.depth_layers, "dam break 3D slab: particle layers in z (>= 4)");
  app.add_option("--t-end", o.t_end, "dam break end time T = t sqrt(2g/a)");
  app.add_option("--steps", o.steps, "time steps (simulation; overrides --t-end)");
  app.add_option("--dt", o.dt, "time step in s (0 = Courant 0.2 on sqrt(2 g H))");
  app.add_option("--front", o.front, "CSV file of the surge front: t, z_front, T, Z");
  app.add_option("--reorder", o.reorder, "on: reorder particle arrays by bucket at rebucketing; off: access through the bucket index list");
  app.add_option("--skin", o.skin, "verlet skin in units of l0");
  app.add_option("--variants", o.variants, "several strategies run one after another on one set-up (one JSON each: FILE.<backend>.<variant>.json)")
      ->delimiter(',');
  app.add_option("--rebucket", o.rebucket, "GPU counting sort: atomic (bucket-internal order varies run to run), stable (bitwise reproducible, 2 more launches), cub (the vendor library's scan and stable radix sort: the stable order) or fused (atomic in 3 launches instead of 5); host: always stable");
  app.add_option("--precision", o.precision, "fp64 or fp32 (fp32: number density from float positions, GPU)");
  app.add_option("--transport", o.transport, "ghost fill between MPI ranks: host, or on GPU backends ipc, nccl, cuda-aware");
  copa::vtk::add_options(app, o.vtk);
  app.add_option("--cg-tol", o.cg_tol, "PPE conjugate gradients: relative residual (default 1e-8)");
  app.add_option("--ghost-margin", o.ghost_margin, "simulation over MPI ranks: ghost width beyond the largest radius, in l0 (the ghosts and halo pattern are rebuilt when a particle has moved half of it)");
  app.add_option("--rebalance", o.rebalance, "over MPI ranks: re-cut the slabs when max/mean owned particles exceeds this (0: never)");
  app.add_option("--position-tolerance", o.position_tolerance, "simulation over MPI ranks: final positions vs the one-rank run, in l0");
  if (int rc = copa::parse_command_line(app, argc, argv); rc >= 0) return rc;
  std::map<copa::Backend, std::vector<std::string>> variants;
  for (auto b : copa::built_backends()) variants[b] = mps::variants_for(b);
  if (common.list) {
    if (copa::mpi::is_root()) copa::print_list(std::cout, "mps-density", variants);
    return 0;
  }
  if (o.dim != 2 && o.dim != 3) throw copa::InputError("--dim must be 2 or 3");
  if (o.reorder != "on" && o.reorder != "off") throw copa::InputError("--reorder must be on or off");
  if (o.precision != "fp64" && o.precision != "fp32") throw copa::InputError("--precision must be fp64 or fp32");
  if (o.rebucket != "atomic" && o.rebucket != "stable" && o.rebucket != "cub" && o.rebucket != "fused")
    throw copa::InputError("--rebucket must be atomic, stable, cub or fused");
  if (!(o.skin > 0) || o.skin > 2) throw copa::InputError("--skin must be in (0, 2]");
  if (common.reps < 1) throw copa::InputError("--reps must be at least 1");
  if (o.case_name == "pflow" && o.dim != 3) throw copa::InputError("--case pflow is 3D (--dim 3)");
  const std::string mode = o.mode.empty() ? (o.case_name == "dambreak" ? "simulation" : "density") : o.mode;
  if (mode != "density" && mode != "simulation") throw copa::InputError("--mode must be density or simulation");
  if (mode == "simulation" && (o.case_name == "lattice" || o.case_name == "random"))
    throw copa::InputError("--mode simulation needs --case dambreak or pflow");
  const int ranks = copa::mpi::size();
  copa::halo::parse_transport(o.transport);  // exit 2 for a name this build does not have
  if (!(o.cg_tol > 0 && o.cg_tol < 1)) throw copa::InputError("--cg-tol must be in (0, 1)");
  if (!(o.ghost_margin > 0 && o.ghost_margin <= 10)) throw copa::InputError("--ghost-margin must be in (0, 10] (units of l0)");
  if (o.rebalance != 0 && !(o.rebalance > 1)) throw copa::InputError("--rebalance must be 0 (never) or a max/mean imbalance above 1");
  if (!(o.position_tolerance > 0)) throw copa::InputError("--position-tolerance must be positive");
  const auto backends = copa::requested_backends(common);
  if (ranks > 1 && o.transport != "host") {
    for (auto b : backends) {
      if (!copa::is_gpu(b))
        throw copa::InputError("--transport " + o.transport + ": the " + copa::to_string(b) +
                               " backend fills its ghosts through host MPI; use --transport host");
      // Each rank's GPU first: the nccl check compares the ranks' current devices.
      copa::select_device(common.device);
    }
    const std::string why = copa::halo::transport_unavailable(copa::halo::parse_transport(o.transport));
    if (!why.empty()) throw copa::InputError("--transport " + o.transport + ": " + why);
  }
  std::vector<std::string> run_variants = o.variants;
  if (run_variants.empty()) run_variants.push_back(common.variant);
  for (auto b : backends)
    for (const auto& v : run_variants) copa::check_variant(v, variants[b], b);
  for (auto b : backends)
    if (o.precision == "fp32" && !copa::is_gpu(b)) throw copa::InputError("--precision fp32 is offered by the GPU backends only");
  if (!o.front.empty() && o.case_name != "dambreak") throw copa::InputError("--front: only the dam break (--case dambreak) has a surge front");
  require_writable("--front", o.front);
  if (mode == "density" && o.vtk.every > 0)
    throw copa::InputError("--vtk-every: density mode has no time steps (--vtk writes its one result)");
  if (mode == "simulation" && o.vtk.enabled() && copa::mpi::size() > 1)
    throw copa::InputError("--vtk: simulation mode over MPI ranks: not done (density mode gathers to rank 0)");
  if (copa::mpi::is_root()) copa::vtk::prepare(o.vtk);
  for (auto b : backends) require_writable("--json", copa::json_path_for(common.json, b, backends.size() > 1));
  const int threads = copa::apply_threads(common.threads);
  const SetUp setup = resolve_set_up(o, common.size);
  require_memory(o, problem_size(o, setup), backends, run_variants, common.device, mode == "simulation");
  const mps::Problem pr = make_problem(o, setup);
  // Several ranks: slabs cut from the particles per bucket column, each rank counting its share of
  // the ids and the shares added in rank order (exact integer counts, the same cuts on every rank).
  std::optional<mps::dist::Slabs> slabs;
  if (ranks > 1) {
    const int axis = mps::dist::slab_axis(pr.grid);
    const std::size_t N = pr.particles.size(), r = static_cast<std::size_t>(copa::mpi::rank());
    const auto histogram = copa::mpi::sum_ordered(
        mps::dist::column_histogram(pr.particles, pr.grid, axis, r * N / ranks, (r + 1) * N / ranks));
    slabs = mps::dist::cut_slabs(histogram, axis, ranks);
  }
  const bool root = copa::mpi::is_root();
  int worst = 0;
  for (auto b : backends)
    for (const auto& requested : run_variants) {
      const std::string variant = !requested.empty() ? requested : default_variant(b, ranks);
      int device = -1;
      if (copa::is_gpu(b)) device = copa::select_device(common.device);
      copa::Report rep("mps-density", "1.0");
      rep.set_backend(b);
      rep.set_variant(variant);
      rep.set_threads(copa::is_gpu(b) || b == copa::Backend::serial ? 1 : threads);
      rep.set_device(device);
      rep.set_ceilings(copa::run_ceilings(common, b, device));
      rep.set_command_line(copa::command_line(argc, argv));
      rep.set_variants_built(nlohmann::json(variants.count(b) ? variants[b] : std::vector<std::string>{}));
      rep.problem() = {{"case", o.case_name}, {"mode", mode}, {"dim", pr.grid.dim}, {"particles", pr.particles.size()},
                       {"re_over_l0", pr.re / pr.l0}, {"l0", pr.l0}, {"size", common.size}, {"precision", o.precision},
                       {"reorder", o.reorder}, {"rebucket", o.rebucket}};
      if (!common.quiet && root)
        std::cout << "--- backend " << copa::to_string(b) << ", variant " << variant
                  << (slabs ? ", " + std::to_string(ranks) + " ranks, transport " + o.transport : std::string()) << "\n";
      // Only the first backend and variant of a run writes the ParaView output.
      AppOptions ov = o;
      if (b != backends.front() || requested != run_variants.front()) ov.vtk = {};
      const int rc = mode == "density" ? run_density(ov, common, variant, b, pr, slabs ? &*slabs : nullptr, rep)
                                       : run_simulation(ov, common, variant, b, pr, slabs ? &*slabs : nullptr, rep);
      if (!common.quiet && root) rep.print(std::cout);
      if (common.quiet && root && rep.verification()) std::cout << copa::verdict_line(*rep.verification()) << "\n";
      if (!common.json.empty() && root) {
        std::string path = copa::json_path_for(common.json, b, backends.size() > 1);
        if (run_variants.size() > 1) {
          const auto dot = path.find_last_of('.');
          path = dot == std::string::npos ? path + "." + variant : path.substr(0, dot) + "." + variant + path.substr(dot);
        }
        rep.write_json(path);
      }
      worst = std::max(worst, rc);
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
      if (copa::is_gpu(b)) copa::gpu::device_pool().trim();  // the next variant's estimate sees free memory
#endif
    }
  // Rank 0 judged the gathered result; every rank returns its verdict.
  return static_cast<int>(copa::mpi::max_all(static_cast<double>(worst)));
}

}  // namespace

int main(int argc, char** argv) {
  copa::mpi::Session mpi_session(argc, argv);
  return copa::guarded_main([&] { return run(argc, argv); });
}
