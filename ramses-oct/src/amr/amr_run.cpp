#include "amr/amr_run.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <iostream>

#include "amr/amr_driver.hpp"
#include "amr/amr_vtk.hpp"
#include "copa/errors.hpp"
#include "copa/gpu_model.hpp"
#include "copa/machine.hpp"
#include "copa/mpi.hpp"
#include "copa/report.hpp"
#include "copa/roofline.hpp"
#include "copa/vtk.hpp"
#include "hydro/rank_times.hpp"
#include "hydro/reference.hpp"
#include "hydro/verification.hpp"
#include "hydro/vtk_output.hpp"
#if COPA_GPU
#include "copa/gpu.hpp"
#endif

namespace ro::amr {

void add_regrid_fallbacks(copa::Report& rep, long long fallbacks, long regrids) {
  if (fallbacks <= 0) return;
  rep.add_fallback("regrid", "the queued step lists and plan (guessed capacities)",
                   "the lists and plan built again with exact sizes",
                   std::to_string(fallbacks) + " of " + std::to_string(regrids) +
                       " regrids: a face or ghost count passed its guessed capacity");
}

// --levels > 0: the AMR run on the serial and OpenMP backends. The verdict, the
// profile and the cross-backend check use the leaf state sampled on the finest level's uniform mesh.
int run_amr_problem(const Options& o, const OctMesh& base,
                    const Plan& selections, int argc, char** argv) {
  if (o.host_resident) throw copa::InputError("--host-resident: not with --levels (AMR runs on the host backends)");
  if (o.refine_band.size() != 2 || !(o.refine_band[0] < o.refine_band[1]))
    throw copa::InputError("--refine-band: needs two values lo,hi with lo < hi");
  if (o.regrid_every < 0) throw copa::InputError("--regrid-every: must be >= 0 (0: keep the initial grid)");
  if (o.vtk.every > 0) throw copa::InputError("--vtk-every: not done with --levels (--vtk writes the leaf cells at the end)");
  std::vector<copa::Backend> run_backends;
  for (const auto& [b, sel] : selections) run_backends.push_back(b);
  const int nranks = copa::mpi::size();
  const bool root = copa::mpi::is_root();
  if (nranks > 1 && base.noct < nranks)
    throw copa::InputError("--levels: " + std::to_string(nranks) + " MPI ranks for " + std::to_string(base.noct) +
                           " base octs (each rank needs at least one base oct)");
#if !defined(COPA_HAVE_MPI)
  (void)nranks;
#endif
  AmrConfig ac;
  ac.levels = o.levels;
  ac.regrid_every = o.regrid_every;
  ac.reflux = !o.no_reflux;
  ac.subcycle = o.subcycle;
  ac.phase_timing = o.phase_timing;
  ac.criterion.kind = o.refine;
  ac.criterion.density = o.refine_threshold > 0 ? o.refine_threshold : o.refine_density;
  ac.criterion.pressure = o.refine_threshold > 0 ? o.refine_threshold : o.refine_pressure;
  ac.criterion.band_lo = o.refine_band[0];
  ac.criterion.band_hi = o.refine_band[1];
  ac.criterion.buffer = o.refine_buffer;
  // Default cap: every cell refined to the finest level (the uniform-equivalent tree).
  double full = 0;
  for (int l = 0; l <= o.levels; ++l) full += double(base.noct) * std::pow(8.0, l);
  ac.max_octs = o.max_octs > 0 ? o.max_octs : static_cast<std::int64_t>(std::min(full, double(INT32_MAX)));
  if (double(ac.max_octs) > double(INT32_MAX))
    throw copa::InputError("--max-octs: " + std::to_string(ac.max_octs) + " exceeds the 32-bit oct index (2^31 - 1)");
  // Host: the tree at its cap, and the finest level's uniform mesh for the verdict (two states).
  std::array<int, 3> fine_cells;
  for (int a = 0; a < 3; ++a) fine_cells[a] = base.cells[a] << o.levels;
  const double fine_n = double(fine_cells[0]) * fine_cells[1] * fine_cells[2];
  if (fine_n / 8 > double(INT32_MAX) || fine_cells[0] > (1 << 14) || fine_cells[1] > (1 << 14) || fine_cells[2] > (1 << 14))
    throw copa::InputError("--levels: the finest level (" + std::to_string(fine_cells[0]) + "x" + std::to_string(fine_cells[1]) +
                           "x" + std::to_string(fine_cells[2]) + ") exceeds the oct index or 16384 cells per axis");
  // --subcycle adds the fine-face flux sums over the substeps (one more flux buffer per oct).
  const double per_oct = amr_bytes_per_oct + (o.subcycle ? fine_flux_per_oct * 8.0 : 0.0);
  const double bytes = double(ac.max_octs) * per_oct * run_backends.size() +
                       fine_n * (2 * 40.0 + mesh_bytes_per_oct / 8);
  copa::require_host_memory(static_cast<std::size_t>(bytes), "ramses-oct AMR tree (--max-octs) and finest-level verdict mesh");
  const OctMesh fine = build_mesh(fine_cells, base.bc);

  ProblemParams pp;
  pp.name = o.problem;
  pp.gamma = o.gamma;
  pp.energy = o.energy;
  RunConfig cfg = make_config(o, base, pp);
  int rc = copa::exit_ok, ran = 0;
  std::vector<double> oracle;
  const int threads = copa::apply_threads(o.common.threads);
  for (copa::Backend b : run_backends) {
    if (!o.common.quiet && root)
      std::cout << "\n== ramses-oct AMR " << o.problem << " base " << base.cells[0] << "x" << base.cells[1] << "x"
                << base.cells[2] << " + " << o.levels << " levels, backend " << copa::to_string(b) << "\n";
    if (copa::is_gpu(b)) copa::select_device(o.common.device);
    const auto row = std::find_if(selections.begin(), selections.end(), [&](const auto& e) { return e.first == b; });
    const copa::Selection& sel = row->second.front();
    if (sel.variant->axis("group-min")) {
      ac.group_min = std::stoi(sel.tuning("group-min"));
    }
    std::unique_ptr<RankComm> comm;
#if defined(COPA_HAVE_MPI)
    // The GPU backends exchange their device-resident state and fine fluxes through --transport;
    // the host backends through host MPI.
    if (nranks > 1)
      comm = copa::is_gpu(b) ? make_rank_comm(ac.subcycle, o.amr_imbalance, copa::halo::parse_transport(o.transport),
                                              copa::halo::Memory::device)
                             : make_rank_comm(ac.subcycle, o.amr_imbalance);
#endif
    ac.comm = comm.get();
    const AmrResult r = run_amr(b, base, cfg, ac);
    ac.comm = nullptr;
    const std::vector<double> u = project_to_finest(r.tree, fine, r.u);
    copa::Report rep(app_name, app_version);
    rep.set_backend(b);
    rep.set_selection(sel);
    add_regrid_fallbacks(rep, r.regrid_fallbacks, r.regrids);
    if (copa::is_gpu(b)) rep.set_device(copa::select_device(o.common.device));
    rep.set_threads(threads);
    rep.set_command_line(copa::command_line(argc, argv));
    const std::vector<std::int64_t> leaves = r.tree.leaf_cells_per_level();
    const std::int64_t leaf_cells = r.tree.leaf_cells();
    auto& pj = rep.problem();
    pj = {{"problem", o.problem}, {"cells", base.cells}, {"octs", base.noct}, {"gamma", o.gamma}, {"slope", o.slope},
          {"riemann", o.riemann}, {"courant", o.courant}, {"bc", to_string(base.bc[0])}, {"tend", cfg.tend},
          {"steps", r.steps}, {"t_final", r.t}, {"precision", "fp64"}};
    pj["amr"] = {{"levels", o.levels}, {"leaf_cells", leaf_cells}, {"octs_per_level", r.tree.octs_per_level()},
                 {"leaf_cells_per_level", leaves}, {"finest_cells", fine_cells},
                 {"uniform_equivalent_cells", fine_n}, {"max_leaf_cells", r.max_leaf_cells},
                 {"max_octs_used", r.max_octs_used}, {"max_octs", ac.max_octs}, {"regrid_every", ac.regrid_every},
                 {"refine_buffer", ac.criterion.buffer},
                 {"regrids", r.regrids}, {"criterion", ac.criterion.kind},
                 {"refine_density", ac.criterion.density}, {"refine_pressure", ac.criterion.pressure},
                 {"reflux", ac.reflux}, {"subcycle", ac.subcycle}, {"group_min", ac.group_min},
                 {"time_stepping", ac.subcycle ? "level subcycling (dt_l = dt_0 / 2^l)" : "global dt"}, {"regrid_on", copa::is_gpu(b) ? "device criterion, flags, tree rebuild and links, state move, step lists and step plan" : "host"},
                 {"step_on", copa::is_gpu(b) ? "device" : "host"},
                 {"dt_on", r.device_dt ? "device (checked bit for bit by the host)" : "host"},
                 {"regrid_fallbacks", r.regrid_fallbacks}};
    // The share of leaf-oct updates done in sibling groups (4^3 blocks, complete or partial: their
    // leaf members).
    if (r.leaf_oct_updates > 0) pj["amr"]["sibling_group_share"] = r.grouped_oct_updates / r.leaf_oct_updates;
    // Rows: per-step regions without the warm-up, regrid and initial grid as their own rows.
    const double mean_leaves = r.steps > 0 ? r.leaf_cell_updates / double(r.steps) : 0;
    // The leaf updates' FLOPs and bytes go to the row whose time holds them: with the device dt the
    // hydro_update+reflux+restriction region only queues the step (host time of the launches) and the
    // step completes inside the step row; with --phase-timing's split update the amr.update row is
    // the gap before its parts (amr.update.singles, amr.update.groups), which share the work.
    const bool split_update = r.profile.has("amr.update.singles") || r.profile.has("amr.update.groups");
    const std::string update_row = r.device_dt ? "step" : "hydro_update+reflux+restriction";
    // The reflux and the restriction, per step (amr_driver.hpp): on their own rows (host, global
    // dt), with the update (one row holds all three), or the GPU phase rows' split.
    const double per_step_n = r.steps > 0 ? double(r.steps) : 1.0;
    const double faces = r.reflux_face_updates / per_step_n, sons = r.restricted_oct_updates / per_step_n;
    const double finest_sons = r.finest_restricted_oct_updates / per_step_n;
    const auto reflux_cost = [](double n) {
      return copa::KernelCost{reflux_flops_per_face * n, reflux_read_per_face * n, reflux_written_per_face * n};
    };
    const auto restrict_cost = [](double n) {
      return copa::KernelCost{restrict_flops_per_son * n, restrict_read_per_son * n, restrict_written_per_son * n};
    };
    const copa::KernelCost leaf_cost{flops_per_cell_update * mean_leaves, mean_leaves * nvar * 8.0, mean_leaves * nvar * 8.0};
    for (const auto& name : r.profile.names()) {
      const bool per_step = name.rfind("regrid", 0) != 0 && name != "initial_grid";  // regrid and its parts
      copa::KernelCost cost;
      if (name == "hydro_update" || (name == "amr.update" && !split_update)) cost = leaf_cost;
      if (name == update_row) cost = leaf_cost + reflux_cost(faces) + restrict_cost(sons);
      if (name == "reflux") cost = reflux_cost(faces);
      if (name == "restriction") cost = restrict_cost(sons);
      if (name == "amr.reflux+finest_restriction") cost = reflux_cost(faces) + restrict_cost(finest_sons);
      if (name == "amr.coarser_restrictions+scan")
        cost = restrict_cost(sons - finest_sons) + copa::KernelCost{flops_per_cell_scan * mean_leaves, mean_leaves * nvar * 8.0, 0};
      // Over ranks: one exchange's bytes sent and received (all levels' ghosts, all fluxes).
      if (comm && name == "halo_exchange") cost = {0, comm->ghost_bytes(), comm->ghost_bytes()};
      if (comm && name == "flux_exchange") cost = {0, comm->flux_bytes(), comm->flux_bytes()};
      if (comm && name == "migration") {
        const RankComm::Balance& lb = comm->balance();
        const double per_rank = lb.recuts > 0 ? lb.bytes_moved / double(lb.recuts) / nranks : 0.0;
        cost = {0, per_rank, per_rank};
      }
      rep.add_kernel(name, region_stats(r.profile, name, per_step ? cfg.warmup : 0), cost);
    }
    const double step_total = r.profile.total("step");
    const double regrid_total = r.profile.has("regrid") ? r.profile.total("regrid") : 0.0;
    rep.set_fom({"leaf-cell updates per second (full step: dt reduction, leaf update, reflux, restriction; regrid excluded)",
                 step_total > 0 ? r.leaf_cell_updates / step_total : 0.0, "cell-updates/s"});
    rep.extra()["amr_time"] = {{"steps_s", step_total}, {"regrid_s", regrid_total},
                               {"initial_grid_s", r.profile.total("initial_grid")},
                               {"time_to_solution_s", step_total + regrid_total + r.profile.total("initial_grid")},
                               {"leaf_cell_updates", r.leaf_cell_updates},
                               // The leaf rate with the regrid's cost (reported separately too):
                               // the FOM excludes it, this rate does not.
                               {"leaf_cell_rate_with_regrid_per_s",
                                step_total + regrid_total > 0 ? r.leaf_cell_updates / (step_total + regrid_total) : 0.0}};
    if (comm) {
      // Per level and rank: owned octs, ghost octs, work (leaf cells weighted by their substeps).
      nlohmann::json levels = nlohmann::json::array();
      for (int l = 0; l <= o.levels; ++l) {
        const auto all = [&](const std::vector<std::int64_t>& v) { return copa::mpi::gather_all(double(v[l])); };
        levels.push_back({{"level", l}, {"owned_octs", all(r.level_counts.owned)},
                          {"ghost_octs", all(r.level_counts.ghosts)}, {"work", all(r.level_counts.work)}});
      }
      const RankComm::Balance& lb = comm->balance();
      const nlohmann::json balance = {{"imbalance_threshold", lb.threshold}, {"regrids_checked", lb.checks},
                                      {"recuts", lb.recuts}, {"octs_migrated", lb.octs_migrated},
                                      {"bytes_moved", lb.bytes_moved}, {"imbalance_before", lb.before},
                                      {"imbalance_after", lb.after}};
      rep.set_transport(copa::is_gpu(b) ? o.transport : "host");
      rep.set_decomposition(copa::Report::make_decomposition(
          {{"partition", comm->describe()}, {"cuts", comm->cuts()}, {"levels", levels}, {"load_balance", balance}},
          comm->local_work(r.tree), "leaf cells weighted by substeps"));
    }
    // Collective (the scaling table of bench/dist.sh reads it; one rank: its own medians).
    rep.extra()["rank_times"] = rank_times(r.profile, cfg.warmup,
                                             {"hydro_update", "reflux", "restriction", "dt_reduction",
                                              "hydro_update+reflux+restriction"},
                                             {"halo_exchange", "flux_exchange"})
                                      .to_json();
    rep.reduce_over_ranks();  // collective: each row the per-sample max over ranks
    if (!root) continue;
    // The sound wave's tolerance follows the coarsest level holding leaves (verification.hpp).
    const int coarsest = static_cast<int>(std::find_if(leaves.begin(), leaves.end(), [](std::int64_t n) { return n > 0; }) -
                                          leaves.begin());
    PhysicsVerdict ph = check_physics(fine, pp, o.slope, u, r.t, r.initial, r.tree.dx(coarsest));
    const double dm = std::fabs(r.final.mass - r.initial.mass) / r.initial.mass;
    const double de = std::fabs(r.final.energy - r.initial.energy) / r.initial.energy;
    ph.extra["mass_rel_change"] = dm;
    ph.extra["energy_rel_change"] = de;
    rep.extra()["physics"] = ph.extra;
    rep.extra()["physics_verdict"] = copa::verdict_line(ph.v);
    rep.extra()["state_checksum"] = hex(state_checksum(r.u));
    copa::Verification v = backend_verdict(b, u, oracle, ph, rep, o.common.quiet);
    if (o.compare_one_rank && comm) {
      // The one-rank answer, computed here on rank 0 with the same backend: the owned octs' loops
      // read the same operands in the same order, so the tree and the bits must agree.
      AmrConfig alone = ac;
      alone.comm = nullptr;
      const AmrResult r1 = run_amr(b, base, cfg, alone);
      const bool same = r1.t == r.t && r1.tree.key == r.tree.key && r1.u == r.u;
      double diff = r1.u.size() == r.u.size() ? 0.0 : HUGE_VAL;
      for (std::size_t i = 0; i < r.u.size() && i < r1.u.size(); ++i) diff = std::max(diff, std::fabs(r1.u[i] - r.u[i]));
      record_one_rank_check(rep, v, hex(state_checksum(r1.u)), hex(state_checksum(r.u)), r1.t, same, diff, nranks,
                            o.common.quiet);
    }
    if (!o.common.quiet)
      std::cout << "AMR: " << leaf_cells << " leaf cells (uniform equivalent " << fine_n << "), octs per level";
    if (!o.common.quiet) {
      for (auto n : r.tree.octs_per_level()) std::cout << " " << n;
      std::cout << "; " << r.regrids << " regrids; mass change " << dm << ", energy change " << de << "\n";
      if (comm)
        std::cout << "AMR over ranks: " << comm->describe() << "; " << comm->balance().recuts << " re-cuts, "
                  << comm->balance().octs_migrated << " octs migrated\n";
    }
    rep.set_verification(v);
    if (o.common.quiet) rep.print_verdict(std::cout);
    else rep.print(std::cout);
    if (!o.common.json.empty()) rep.write_json(copa::json_path_for(o.common.json, b, run_backends.size() > 1));
    if (!o.profile.empty() && b == run_backends.front())
      write_profile(o.profile, o.problem, fine, u, o.gamma, r.t, sound_wave(fine, pp));
    // The leaf cells of every level as hexahedra (.vtu), from the first backend of the run.
    copa::vtk::Series vtk(b == run_backends.front() ? o.vtk : copa::vtk::Options{}, app_name, "vtu");
    vtk.at_end(r.steps, r.t, [&](const std::string& path) {
      write_leaf_cells_vtk(path, amr::leaf_cells(r.tree, r.u, o.gamma), vtk.encoding());
    });
    if (v.verified && !v.passed) rc = copa::exit_verification_failed;
    ++ran;
  }
  // --backend all: one run per backend (the AMR table has one variant per backend), none skipped.
  // Rank 0 counts the runs it judged (the other ranks leave each run after the gather).
  if (run_backends.size() > 1 && root) std::cout << copa::runs_line(ran, {}) << "\n";
  // Rank 0 judged the gathered state; every rank returns its verdict.
  return nranks > 1 ? copa::mpi::max_all(rc) : rc;
}

}  // namespace ro::amr
