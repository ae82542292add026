#include "uniform/uniform_run.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "copa/errors.hpp"
#include "copa/gpu_model.hpp"
#include "copa/halo.hpp"
#include "copa/machine.hpp"
#include "copa/mpi.hpp"
#include "copa/progress.hpp"
#include "copa/report.hpp"
#include "copa/roofline.hpp"
#include "copa/vtk.hpp"
#include "hydro/reference.hpp"
#include "hydro/verification.hpp"
#include "hydro/vtk_output.hpp"
#include "uniform/decomposition.hpp"
#include "hydro/rank_times.hpp"
#include "uniform/driver.hpp"
#include "uniform/kernels.hpp"
#if COPA_GPU
#include "copa/gpu.hpp"
#endif
#if defined(COPA_HAVE_MPI)
#include "uniform/dist.hpp"
#endif

namespace ro {

namespace {

void add_rows(copa::Report& rep, const RunResult& r, int warmup) {
  copa::KernelCost step_cost;
  for (const auto& [name, cost] : r.costs) {
    if (name == "h2d" || name == "d2h" || name == "halo_exchange") continue;  // transfers, not the step's memory traffic
    step_cost += cost;
  }
  for (const auto& name : r.profile.names()) {
    const std::size_t count = r.profile.samples(name).size();
    const std::size_t timed = static_cast<std::size_t>(r.timed_steps);
    if (count < timed) continue;  // the initial reductions of a fused variant
    const int skip = warmup + static_cast<int>(count > timed ? count - timed : 0);
    copa::KernelCost cost = name == "step" ? step_cost : copa::KernelCost{};
    for (const auto& [n, c] : r.costs)
      if (n == name) cost = c;
    rep.add_kernel(name, region_stats(r.profile, name, skip), cost);
  }
}

// FILE.json -> FILE.<variant>.json when one run writes several variants of a backend.
std::string variant_path(const std::string& path, const std::string& variant) {
  if (variant.empty()) return path;
  const auto dot = path.rfind(".json");
  return dot == std::string::npos ? path + "." + variant : path.substr(0, dot) + "." + variant + ".json";
}

// --sweep: time per step against threads per block (the seed's figure).
nlohmann::json block_size_sweep(const Options& o, copa::Backend b, const copa::Selection& variant, const OctMesh& m,
                                const std::vector<double>& u0, RunConfig cfg, bool print) {
  nlohmann::json rows = nlohmann::json::array();
  std::ostringstream null_stream;
  std::ostream& out = print ? std::cout : null_stream;
  out << "\nblock-size sweep (" << variant.label() << ", " << m.cells[0] << "x" << m.cells[1] << "x" << m.cells[2]
            << ", " << cfg.max_steps << " steps)\n  threads/block   ms/step (median)   cell updates/s\n";
  for (int bs : o.sweep) {
    cfg.block_size = bs;
    const RunResult r = run_backend(b, variant, m, u0, cfg);
    const copa::Stats s = region_stats(r.profile, "step", cfg.warmup);
    const double fom = double(m.nowned_cells()) * copa::mpi::size() / copa::mpi::max_all(s.median);
    out << "  " << std::setw(13) << bs << "   " << std::setw(16) << s.median * 1e3 << "   " << fom << "\n";
    rows.push_back({{"threads_per_block", bs}, {"step_median_s", s.median}, {"step_min_s", s.min},
                    {"cell_updates_per_s", fom}});
  }
  return rows;
}

// Rank 0 gets the global state from the owned octs of every rank (a copy on one rank).
std::vector<double> gather_global(const OctMesh& local, const std::optional<Partition>& part,
                                  const std::vector<double>& u) {
#if defined(COPA_HAVE_MPI)
  if (part) return gather_owned(local, *part, u);
#endif
  (void)local;
  (void)part;
  return u;
}

std::unique_ptr<StepComm> make_comm(const std::optional<LocalDomain>& local, const std::string& transport,
                                        bool device) {
#if defined(COPA_HAVE_MPI)
  if (local) return make_mpi_step_comm(*local, copa::halo::parse_transport(transport), device);
#endif
  (void)local;
  (void)transport;
  (void)device;
  return nullptr;
}

}  // namespace

int run_uniform(const Options& o, const OctMesh& mesh, const Plan& selections, const copa::VariantRegistry& table,
                int argc, char** argv) {
  const int nranks = copa::mpi::size(), me = copa::mpi::rank();
  const bool root = copa::mpi::is_root();
  const std::array<int, 3>& cells = mesh.cells;
  const Boundary bc = mesh.bc[0];
  std::vector<copa::Backend> backends;
  for (const auto& [b, sels] : selections) backends.push_back(b);
  // Several ranks: this rank's contiguous Morton range plus its ghost layer (decomposition.hpp).
  std::optional<Partition> part;
  std::optional<LocalDomain> local;
  if (nranks > 1) {
    part = partition_mesh(mesh, nranks);
    local = build_local_domain(mesh, *part, me);
  }
  const OctMesh& run_mesh = local ? local->mesh : mesh;

  ProblemParams pp;
  pp.name = o.problem;
  pp.gamma = o.gamma;
  pp.energy = o.energy;
  std::vector<double> u0;
  initialise(run_mesh, pp, u0);
  // The initial totals of the global state (rank 0 judges conservation on the gathered state).
  const std::vector<double> u0_global = local ? gather_global(run_mesh, part, u0) : std::vector<double>{};
  const Totals t0 = root ? totals(mesh, local ? u0_global : u0) : Totals{};
  RunConfig cfg = make_config(o, mesh, pp);
  copa::announce(o.common.quiet || !root,
                 o.problem + ", " + std::to_string(cells[0]) + " x " + std::to_string(cells[1]) + " x " +
                     std::to_string(cells[2]) + " cells (" + std::to_string(mesh.noct) + " octs)",
                 "steps until t = " + std::to_string(cfg.tend) + " (at most " + std::to_string(cfg.max_steps) + "), " +
                     std::to_string(cfg.reps) + " repetition(s), the first " + std::to_string(cfg.warmup) +
                     " step(s) untimed");

  nlohmann::json decomposition_ranks = part ? nlohmann::json{{"partition", part->describe()},
                                                               {"ghost_octs_rank0", local->ghost_global.size()}}
                                            : nlohmann::json("1 rank, the whole mesh");

  int rc = copa::exit_ok;
  std::vector<double> oracle;
  const bool several = backends.size() > 1;
  const int threads = copa::apply_threads(o.common.threads);
  int ran = 0;
  std::vector<std::string> skipped;  // --backend all: the variants that do not run on this mesh, and why
  for (const auto& [b, offered] : selections) {
    // --backend all: every variant that runs on this mesh; one backend without --variant: the
    // default after the fallback rule (variants.hpp), reported.
    std::vector<copa::Selection> run_variants;
    std::string fallback;
    if (several) {
      for (const copa::Selection& sel : offered) {
        const std::string needs = variant_needs(b, sel.name(), run_mesh);
        if (needs.empty()) run_variants.push_back(sel);
        else skipped.push_back(copa::to_string(b) + " / " + sel.label() + " (needs " + needs + ")");
      }
    } else if (o.common.variant.empty()) {
      run_variants.push_back(default_selection(table, b, nranks, run_mesh, &fallback, o.common.tunings));
    } else {
      run_variants = offered;
    }
    for (const copa::Selection& var : run_variants) {
      int device = -1;
      if (copa::is_gpu(b)) device = copa::select_device(o.common.device);
      if (!o.common.quiet && root)
        std::cout << "\n== ramses-oct " << o.problem << " " << cells[0] << "x" << cells[1] << "x" << cells[2]
                  << " backend " << copa::to_string(b) << " variant " << var.label()
                  << (fallback.empty() ? "" : " (default " + fallback + ")") << (o.host_resident ? " (host-resident)" : "")
                  << (nranks > 1 ? " on " + part->describe() + ", transport " + o.transport : "") << "\n";
      std::unique_ptr<StepComm> comm = make_comm(local, o.transport, copa::is_gpu(b));
      cfg.comm = comm.get();
      const bool first_run = b == backends.front() && &var == &run_variants.front();
      // Over ranks every rank writes its owned cells as a piece of a .pvtu (nothing gathered);
      // on one rank the whole mesh goes into one .vti (or .vtu with --vtk-cells).
      copa::vtk::Series vtk(first_run ? o.vtk : copa::vtk::Options{}, app_name,
                            local ? "pvtu" : o.vtk_cells ? "vtu" : "vti");
      auto write_vtk = [&](const std::vector<double>& state) {
        return [&](const std::string& path) {
          if (local) write_leaf_cells_pieces(path, leaf_cells(run_mesh, state, o.gamma), vtk.encoding());
          else if (o.vtk_cells) write_leaf_cells_vtk(path, leaf_cells(mesh, state, o.gamma), vtk.encoding());
          else write_uniform_vtk(path, mesh, state, o.gamma, vtk.encoding());
        };
      };
      copa::Progress progress("step", 0, o.common.quiet || !root);
      cfg.after_step = [&](int rep, long step, double t, HydroKernels& k) {
        progress.update(step, std::max(t / cfg.tend, double(step) / double(cfg.max_steps)));
        if (rep > 0 || !vtk.due(step)) return;
        std::vector<double> state;
        k.store(state);
        vtk.at_step(step, t, write_vtk(state));
      };
      const RunResult r = run_backend(b, var, run_mesh, u0, cfg);
      cfg.after_step = nullptr;
      const std::vector<double> u = local ? gather_global(run_mesh, part, r.u) : r.u;
      const RankTimes times = rank_times(r.profile, cfg.warmup, {"hydro_update", "dt_reduction", "hydro_update+dt"},
                                         {"halo_exchange"});
      nlohmann::json sweep;
      if (copa::is_gpu(b) && !o.sweep.empty()) sweep = block_size_sweep(o, b, var, run_mesh, u0, cfg, root && !o.common.quiet);
      copa::Report rep(app_name, app_version);
      rep.set_backend(b);
      rep.set_selection(var);
      if (!fallback.empty()) {
        rep.extra()["variant_fallback"] = fallback;
        rep.add_fallback("variant", "the table's default", var.label(), fallback);
      }
      for (const KernelFallback& f : r.fallbacks) rep.add_fallback("kernel", f.from, f.to, f.reason);
      ++ran;
      rep.set_threads(threads);
      rep.set_device(device);
      rep.set_command_line(copa::command_line(argc, argv));
      rep.set_variants_built(table.built_json());
      auto& pj = rep.problem();
      pj = {{"problem", o.problem}, {"cells", cells}, {"octs", mesh.noct}, {"gamma", o.gamma}, {"slope", o.slope},
            {"riemann", o.riemann}, {"courant", o.courant}, {"bc", to_string(bc)}, {"tend", cfg.tend},
            {"steps", r.steps}, {"reps", cfg.reps}, {"t_final", r.t}, {"host_resident", o.host_resident}, {"block_size", o.block_size},
            {"precision", "fp64"}};
      rep.set_transport(o.transport);
      rep.set_decomposition(copa::Report::make_decomposition(decomposition_ranks, double(run_mesh.nowned_cells()), "cells"));
      rep.set_ceilings(copa::run_ceilings(o.common, b, device));
      add_rows(rep, r, cfg.warmup);
      rep.reduce_over_ranks();  // collective: each row the per-sample max over ranks
      vtk.at_end(r.steps, r.t, write_vtk(r.u));  // every rank: its own state (its piece over ranks)
      if (!root) continue;
      // FOM: global cell updates over the slowest rank's step (the step ends with the global dt).
      rep.set_fom({"cell updates per second (full step: update + dt reduction)", double(mesh.ncell()) / times.step.max,
                   "cell-updates/s"});
      rep.extra()["rank_times"] = times.to_json();
      const PhysicsVerdict ph = check_physics(mesh, pp, o.slope, u, r.t, t0);
      rep.extra()["physics"] = ph.extra;
      rep.extra()["physics_verdict"] = copa::verdict_line(ph.v);
      rep.extra()["state_checksum"] = hex(state_checksum(u));
      if (!o.common.quiet) std::cout << "state checksum (FNV-1a of the final state's bits): " << hex(state_checksum(u)) << "\n";
      copa::Verification v = backend_verdict(b, u, oracle, ph, rep, o.common.quiet);
      if (!sweep.is_null()) rep.extra()["block_size_sweep"] = sweep;
      if (o.compare_one_rank && local) {
        // The one-rank answer, computed here on rank 0 with the same backend and variant: a
        // distributed update uses the same operands in the same order, so the bits must agree.
        RunConfig alone = cfg;
        alone.comm = nullptr;
        const RunResult r1 = run_backend(b, var, mesh, u0_global, alone);
        const bool same = r1.t == r.t && r1.u == u;
        double diff = 0;
        for (std::size_t i = 0; i < u.size(); ++i) diff = std::max(diff, std::fabs(r1.u[i] - u[i]));
        record_one_rank_check(rep, v, hex(state_checksum(r1.u)), hex(state_checksum(u)), r1.t, same, diff, nranks,
                              o.common.quiet);
      }
      if (vtk.enabled()) rep.extra()["vtk"] = {{"files", vtk.files()}, {"mass_total", totals(mesh, u).mass}};
      rep.set_verification(v);
      if (o.common.quiet) rep.print_verdict(std::cout);
      else rep.print(std::cout);
      if (!o.common.json.empty())
        rep.write_json(variant_path(copa::json_path_for(o.common.json, b, several), run_variants.size() > 1 ? var.label() : ""));
      if (!o.profile.empty() && b == backends.front())
        write_profile(o.profile, o.problem, mesh, u, o.gamma, r.t, sound_wave(mesh, pp));
      if (v.verified && !v.passed) rc = copa::exit_verification_failed;
    }
  }
  if (several && root) std::cout << copa::runs_line(ran, skipped) << "\n";
  // Rank 0 judged the gathered state; every rank returns its verdict.
  return static_cast<int>(copa::mpi::max_all(double(rc)));
}

}  // namespace ro
