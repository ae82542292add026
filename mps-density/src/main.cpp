// mps-density: MPS particle proxy of JAXA's P-Flow (bucket neighbour search, particle number
// density, full semi-implicit MPS dam break). The command line and the driver: it checks the
// options, resolves the variants through the registry (variants.cpp), builds the set-up (and the
// slabs over MPI ranks) once, and runs each backend and variant on it (run_density.cpp,
// run_simulation.cpp), one JSON each.
#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "app.hpp"
#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "copa/gpu_model.hpp"
#include "copa/halo.hpp"
#include "copa/mpi.hpp"
#include "copa/output.hpp"
#include "copa/report.hpp"
#include "copa/vtk.hpp"
#if COPA_GPU
#include "copa/device_memory.hpp"
#endif
#include "dist/slabs.hpp"
#include "variants.hpp"

namespace {

using namespace mps::app;

int run(int argc, char** argv) {
  CLI::App app{"mps-density: MPS particle proxy (P-Flow): bucket neighbour search, number density, dam break"};
  copa::CommonOptions common;
  copa::add_common_options(app, common);
  AppOptions o;
  app.add_option("--case", o.case_name, "pflow (density benchmark tank), lattice, random (cloud) or dambreak");
  app.add_option("--mode", o.mode, "density (neighbour-sum benchmark) or simulation (semi-implicit MPS steps)");
  app.add_option("--dim", o.dim, "2 or 3 (lattice, random, dambreak)")
      ->check(copa::cli::count(2, 3));
  app.add_option("--re", o.re, "r_e / l0 for lattice and random cases (2.1, 3.1, 4.0)")
      ->check(copa::cli::range_open_low(1, 6));
  app.add_option("--lattice-m", o.lattice_m, "lattice points per side")
      ->check(copa::cli::count(3, 16777216));
  app.add_option("--particles", o.particles, "particle count (pflow target, random cloud); overrides --size")
      ->check(copa::cli::count(1, 1000000000000000));
  app.add_option("--a", o.a, "dam break column width a in m (height 2a)")
      ->check(copa::cli::positive());
  app.add_option("--l0", o.l0, "dam break particle spacing in m (default a/20)")
      ->check(copa::cli::positive());
  app.add_option("--depth-layers", o.depth_layers, "dam break 3D slab: particle layers in z (>= 4)")
      ->check(copa::cli::count(4));
  app.add_option("--t-end", o.t_end, "dam break end time T = t sqrt(2g/a)")
      ->check(copa::cli::positive());
  app.add_option("--steps", o.steps, "time steps (simulation; overrides --t-end)")
      ->check(copa::cli::count(1));
  app.add_option("--dt", o.dt, "time step in s (0 = Courant 0.2 on sqrt(2 g H))")
      ->check(copa::cli::non_negative());
  app.add_option("--front", o.front, "CSV file of the surge front: t, z_front, T, Z");
  app.add_option("--reorder", o.reorder, "on: reorder particle arrays by bucket at rebucketing; off: access through the bucket index list");
  app.add_option("--skin", o.skin, "verlet skin in units of l0")
      ->check(copa::cli::range_open_low(0, 2));
  app.add_option("--variants", o.variants, "several strategies run one after another on one set-up (one JSON each: FILE.<backend>.<variant>.json)")
    ->delimiter(',');
  app.add_option("--rebucket", o.rebucket, "GPU counting sort: atomic (bucket-internal order varies run to run), stable (bitwise reproducible, 2 more launches), cub (the vendor library's scan and stable radix sort: the stable order) or fused (atomic in 3 launches instead of 5); host: always stable");
  app.add_option("--precision", o.precision, "fp64 or fp32 (fp32: number density from float positions, GPU)");
  app.add_option("--transport", o.transport, "ghost fill between MPI ranks: host, or on GPU backends ipc, nccl, cuda-aware");
  copa::vtk::add_options(app, o.vtk);
  app.add_option("--cg-tol", o.cg_tol, "PPE conjugate gradients: relative residual (default 1e-8)")
      ->check(copa::cli::open_range(0, 1));
  app.add_option("--ghost-margin", o.ghost_margin, "simulation over MPI ranks: ghost width beyond the largest radius, in l0 (the ghosts and halo pattern are rebuilt when a particle has moved half of it)")
      ->check(copa::cli::range_open_low(0, 10));
  app.add_option("--rebalance", o.rebalance, "over MPI ranks: re-cut the slabs when max/mean owned particles exceeds this (0: never)")
      ->check(copa::cli::non_negative());
  app.add_option("--position-tolerance", o.position_tolerance, "simulation over MPI ranks: final positions vs the one-rank run, in l0 (also --compare-serial's)")
      ->check(copa::cli::positive());
  app.add_flag("--compare-serial", o.compare_serial,
               "simulation on one rank: run the same steps on the serial backend and compare the front and the final positions (the verdict when the run has no other reference)");
  if (int rc = copa::parse_command_line(app, argc, argv); rc >= 0) return rc;
  const copa::VariantRegistry& registry = mps::registry();
  if (common.list) {
    if (copa::mpi::is_root()) registry.print(std::cout);
    return 0;
  }
  if (o.dim != 2 && o.dim != 3) throw copa::InputError("--dim must be 2 or 3");
  if (o.reorder != "on" && o.reorder != "off") throw copa::InputError("--reorder must be on or off");
  if (o.precision != "fp64" && o.precision != "fp32") throw copa::InputError("--precision must be fp64 or fp32");
  if (o.rebucket != "atomic" && o.rebucket != "stable" && o.rebucket != "cub" && o.rebucket != "fused")
    throw copa::InputError("--rebucket must be atomic, stable, cub or fused");
  if (!(o.t_end > 0)) {
    std::ostringstream got;
    got << o.t_end;
    throw copa::InputError("--t-end must be a positive end time (got " + got.str() + ")");
  }
  if (o.steps < 0) throw copa::InputError("--steps must be 0 (from --t-end) or a positive count of time steps");
  if (o.dt < 0) throw copa::InputError("--dt must be 0 (Courant 0.2) or a positive time step in s");
  if (!o.variants.empty() && !common.variant.empty())
    throw copa::InputError("--variant and --variants conflict: give one strategy with --variant or several with --variants");
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
  if (o.compare_serial) {
    if (mode != "simulation") throw copa::InputError("--compare-serial: simulation mode only (--mode simulation)");
    if (ranks > 1) throw copa::InputError("--compare-serial: one rank (over ranks the run is compared with one rank)");
    if (backends.size() == 1 && backends.front() == copa::Backend::serial)
      throw copa::InputError("--compare-serial: the serial backend is the oracle; choose another --backend");
  }
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
  // --variants runs several on one set-up; --variant (or the backend's default) one.
  std::vector<std::string> run_variants = o.variants;
  if (run_variants.empty()) run_variants.push_back(common.variant);
  std::vector<std::pair<copa::Backend, copa::Selection>> runs;
  std::vector<std::pair<copa::Backend, mps::Strategy>> strategies;
  for (auto b : backends)
    for (const auto& v : run_variants) {
      runs.emplace_back(b, registry.select(b, ranks, v, common.tunings));
      strategies.emplace_back(b, mps::strategy_of(runs.back().second));
    }
  for (auto b : backends)
    if (o.precision == "fp32" && !copa::is_gpu(b)) throw copa::InputError("--precision fp32 is offered by the GPU backends only");
  if (!o.front.empty() && o.case_name != "dambreak") throw copa::InputError("--front: only the dam break (--case dambreak) has a surge front");
  copa::require_writable_output("--front", o.front);
  if (mode == "density" && o.vtk.every > 0)
    throw copa::InputError("--vtk-every: density mode has no time steps (--vtk writes its one result)");
  if (mode == "simulation" && o.vtk.enabled() && copa::mpi::size() > 1)
    throw copa::InputError("--vtk: simulation mode over MPI ranks: not done (density mode gathers to rank 0)");
  if (copa::mpi::is_root()) copa::vtk::prepare(o.vtk);
  for (auto b : backends) copa::require_writable_output("--json", copa::json_path_for(common.json, b, backends.size() > 1));
  const int threads = copa::apply_threads(common.threads);
  const SetUp setup = resolve_set_up(o, common.size);
  require_memory(o, problem_size(o, setup), strategies, common.device, mode == "simulation");
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
  int worst = 0, ran = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const auto& [b, selection] = runs[r];
    const std::string& variant = selection.name();
    int device = -1;
    if (copa::is_gpu(b)) device = copa::select_device(common.device);
    copa::Report rep("mps-density", "1.0");
    rep.set_backend(b);
    rep.set_selection(selection);
    rep.set_threads(copa::is_gpu(b) || b == copa::Backend::serial ? 1 : threads);
    rep.set_device(device);
    rep.set_ceilings(copa::run_ceilings(common, b, device));
    rep.set_command_line(copa::command_line(argc, argv));
    rep.set_variants_built(registry.built_json());
    rep.problem() = {{"case", o.case_name}, {"mode", mode}, {"dim", pr.grid.dim}, {"particles", pr.particles.size()},
                     {"re_over_l0", pr.re / pr.l0}, {"l0", pr.l0}, {"size", common.size}, {"precision", o.precision},
                     {"reorder", o.reorder}, {"rebucket", o.rebucket}};
    if (!common.quiet && root)
      std::cout << "--- backend " << copa::to_string(b) << ", variant " << variant
                << (slabs ? ", " + std::to_string(ranks) + " ranks, transport " + o.transport : std::string()) << "\n";
    // Only the first backend and variant of a run writes the ParaView output.
    AppOptions ov = o;
    if (r > 0) ov.vtk = {};
    ov.step_graph = mps::step_graph(selection);
    const mps::Strategy s = strategies[r].second;
    const int rc = mode == "density" ? run_density(ov, common, s, b, pr, slabs ? &*slabs : nullptr, rep)
                                     : run_simulation(ov, common, s, b, pr, slabs ? &*slabs : nullptr, rep);
    if (!common.quiet && root) rep.print(std::cout);
    if (common.quiet && root) rep.print_verdict(std::cout);
    if (!common.json.empty() && root) {
      std::string path = copa::json_path_for(common.json, b, backends.size() > 1);
      if (run_variants.size() > 1) {
        const auto dot = path.find_last_of('.');
        path = dot == std::string::npos ? path + "." + variant : path.substr(0, dot) + "." + variant + path.substr(dot);
      }
      rep.write_json(path);
    }
    worst = std::max(worst, rc);
    ++ran;
#if COPA_GPU
    if (copa::is_gpu(b)) copa::gpu::device_pool().trim();  // the next variant's estimate sees free memory
#endif
  }
  // --backend all or --variants: every backend and variant asked for ran (one that a backend does
  // not offer is refused before any work), none is skipped.
  if (runs.size() > 1 && root) std::cout << copa::runs_line(ran, {}) << "\n";
  // Rank 0 judged the gathered result; every rank returns its verdict.
  return static_cast<int>(copa::mpi::max_all(static_cast<double>(worst)));
}

}  // namespace

int main(int argc, char** argv) {
  copa::mpi::Session mpi_session(argc, argv);
  return copa::guarded_main([&] { return run(argc, argv); });
}
