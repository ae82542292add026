// ramses-oct: the oct-based hydro proxy of RAMSES (README.md). CLI and driver, backend-agnostic.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <algorithm>
#include <optional>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "copa/gpu_model.hpp"
#include "copa/halo.hpp"
#include "copa/machine.hpp"
#include "copa/mpi.hpp"
#include "copa/progress.hpp"
#include "copa/report.hpp"
#include "copa/roofline.hpp"
#include "copa/vtk.hpp"
#include "decomposition.hpp"
#include "amr_driver.hpp"
#include "amr_vtk.hpp"
#include "driver.hpp"
#include "kernels.hpp"
#include "mesh.hpp"
#include "problems.hpp"
#include "reference.hpp"
#include "variants.hpp"
#include "verification.hpp"
#include "vtk_output.hpp"
#if COPA_GPU
#include "copa/gpu.hpp"
#endif
#if defined(COPA_HAVE_MPI)
#include "dist.hpp"
#endif

namespace {

constexpr const char* app_name = "ramses-oct";
constexpr const char* app_version = "1.0";

struct Options {
  copa::CommonOptions common;
  std::string problem = "sedov";
  int n = 0, nx = 0, ny = 0, nz = 0;
  double gamma = 1.4, courant = 0.8, tend = -1, energy = 1.0;
  long steps = 1000000;
  std::string slope = "minmod", riemann = "hll", bc, profile;
  bool host_resident = false;
  int block_size = 0;
  std::vector<int> sweep;
  std::string transport = "host";
  bool compare_one_rank = false;
  int reps = 1;  // --reps when given; a run's samples are its time steps, so one run by default
  copa::vtk::Options vtk;  // ParaView output of the first backend and variant of a run
  bool vtk_cells = false;  // leaf cells as hexahedra (.vtu) instead of the uniform grid (.vti)
  // AMR (--levels > 0; README "AMR").
  int levels = 0, regrid_every = 2, refine_buffer = 1;
  double refine_threshold = -1, refine_density = 0.1, refine_pressure = 0.1;
  std::string refine = "gradient";
  std::vector<double> refine_band = {0.25, 0.5};
  bool no_reflux = false;
  bool subcycle = false;  // RAMSES's level subcycling instead of the global dt (README "Level subcycling")
  bool phase_timing = false;  // AMR GPU: device events between the step's phases (README "The device step, round 5")
  long long max_octs = 0;
};

double make_tend(const Options& o, const ro::OctMesh& m, const ro::ProblemParams& pp) {
  return o.tend >= 0 ? o.tend : ro::default_tend(m, pp);
}

// An output file must be creatable before any work is done (exit 2 naming the option otherwise):
// the file is opened for appending, as the run will open it, and removed again if this created it.
// Opening rather than asking access() also refuses read-only file systems and root's writes to /proc.
void check_output_path(const std::string& option, const std::string& path) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw copa::InputError(option + ": '" + path + "' is a directory");
  const bool existed = fs::exists(path, ec);
  std::ofstream probe(path, std::ios::app);
  if (!probe)
    throw copa::InputError(option + ": cannot create '" + path + "' (" + std::strerror(errno) +
                           "): its directory must exist and be writable");
  probe.close();
  if (!existed) fs::remove(path, ec);
}

ro::RunConfig make_config(const Options& o, const ro::OctMesh& m, const ro::ProblemParams& pp) {
  ro::RunConfig c;
  c.problem = pp;
  c.hydro.gamma = o.gamma;
  c.hydro.slope_type = o.slope == "mc" ? 2 : 1;
  c.hydro.riemann = o.riemann == "hllc" ? ro::riemann_hllc : (o.riemann == "llf" ? ro::riemann_llf : ro::riemann_hll);
  c.courant = o.courant;
  c.tend = make_tend(o, m, pp);
  c.max_steps = o.steps;
  c.warmup = o.common.warmup;
  c.reps = o.reps;
  c.block_size = o.block_size;
  c.host_resident = o.host_resident;
  return c;
}

void add_rows(copa::Report& rep, const ro::RunResult& r, int warmup) {
  copa::KernelCost step_cost;
  for (const auto& [name, cost] : r.costs) {
    if (name == "h2d" || name == "d2h" || name == "halo_exchange") continue;  // transfers, not the step's memory traffic
    step_cost.flops += cost.flops;
    step_cost.bytes_read += cost.bytes_read;
    step_cost.bytes_written += cost.bytes_written;
  }
  for (const auto& name : r.profile.names()) {
    const std::size_t count = r.profile.samples(name).size();
    const std::size_t timed = static_cast<std::size_t>(r.timed_steps);
    if (count < timed) continue;  // the initial reductions of a fused variant
    const int skip = warmup + static_cast<int>(count > timed ? count - timed : 0);
    copa::KernelCost cost = name == "step" ? step_cost : copa::KernelCost{};
    for (const auto& [n, c] : r.costs)
      if (n == name) cost = c;
    rep.add_kernel(name, ro::region_stats(r.profile, name, skip), cost);
  }
}

// The variants a run takes, per backend in the order of the run.
using Plan = std::vector<std::pair<copa::Backend, std::vector<copa::Selection>>>;

// --variant and --tuning resolved against a table (exit 2 naming the valid names or values). One
// backend: the named variant, or the default (the uniform run then applies the fallback rule of
// variants.hpp on its mesh). --backend all: every variant of every built backend, each with the
// assignments of --tuning whose axis it has; an axis that no row of the table has is refused.
Plan select_variants(const copa::VariantRegistry& table, const copa::CommonOptions& c,
                     const std::vector<copa::Backend>& backends, int nranks) {
  Plan plan;
  auto axis_of = [](const std::string& t) { return t.substr(0, t.find('=')); };
  for (copa::Backend b : backends) {
    std::vector<copa::Selection> sels;
    if (backends.size() == 1) {
      sels.push_back(table.select(b, nranks, c.variant, c.tunings));
    } else {
      for (const copa::VariantInfo* v : table.offered(b)) {
        std::vector<std::string> mine;
        for (const auto& t : c.tunings)
          if (v->axis(axis_of(t))) mine.push_back(t);
        sels.push_back(table.select(b, nranks, v->name, mine));
      }
    }
    plan.emplace_back(b, std::move(sels));
  }
  // Each assignment names an axis of some row and one of its values, whether or not that row's
  // backend is built (a cpu build's --backend all runs no GPU row).
  for (const auto& t : c.tunings) {
    const copa::TuningAxis* axis = nullptr;
    for (const copa::VariantInfo& v : table.rows())
      if (!axis) axis = v.axis(axis_of(t));
    if (!axis) throw copa::InputError("--tuning: no variant of " + table.app() + " has the axis of '" + t + "' (--list)");
    const std::string value = t.find('=') == std::string::npos ? "" : t.substr(t.find('=') + 1);
    if (std::find(axis->values.begin(), axis->values.end(), value) == axis->values.end()) {
      std::string values;
      for (const auto& x : axis->values) values += (values.empty() ? "" : ", ") + x;
      throw copa::InputError("--tuning: '" + value + "' is not a value of axis " + axis->name + " (" + values + ")");
    }
  }
  return plan;
}

// FILE.json -> FILE.<variant>.json when one run writes several variants of a backend.
std::string variant_path(const std::string& path, const std::string& variant) {
  if (variant.empty()) return path;
  const auto dot = path.rfind(".json");
  return dot == std::string::npos ? path + "." + variant : path.substr(0, dot) + "." + variant + ".json";
}

// --sweep: time per step against threads per block (the seed's figure).
nlohmann::json block_size_sweep(const Options& o, copa::Backend b, const copa::Selection& variant, const ro::OctMesh& m,
                                const std::vector<double>& u0, ro::RunConfig cfg, bool print) {
  nlohmann::json rows = nlohmann::json::array();
  std::ostringstream null_stream;
  std::ostream& out = print ? std::cout : null_stream;
  out << "\nblock-size sweep (" << variant.label() << ", " << m.cells[0] << "x" << m.cells[1] << "x" << m.cells[2]
            << ", " << cfg.max_steps << " steps)\n  threads/block   ms/step (median)   cell updates/s\n";
  for (int bs : o.sweep) {
    cfg.block_size = bs;
    const ro::RunResult r = ro::run_backend(b, variant, m, u0, cfg);
    const copa::Stats s = ro::region_stats(r.profile, "step", cfg.warmup);
    const double fom = double(m.nowned_cells()) * copa::mpi::size() / copa::mpi::max_all(s.median);
    out << "  " << std::setw(13) << bs << "   " << std::setw(16) << s.median * 1e3 << "   " << fom << "\n";
    rows.push_back({{"threads_per_block", bs}, {"step_median_s", s.median}, {"step_min_s", s.min},
                    {"cell_updates_per_s", fom}});
  }
  return rows;
}

// Rank 0 gets the global state from the owned octs of every rank (a copy on one rank).
std::vector<double> gather_global(const ro::OctMesh& local, const std::optional<ro::Partition>& part,
                                  const std::vector<double>& u) {
#if defined(COPA_HAVE_MPI)
  if (part) return ro::gather_owned(local, *part, u);
#endif
  (void)local;
  (void)part;
  return u;
}

std::unique_ptr<ro::StepComm> make_comm(const std::optional<ro::LocalDomain>& local, const std::string& transport,
                                        bool device) {
#if defined(COPA_HAVE_MPI)
  if (local) return ro::make_mpi_step_comm(*local, copa::halo::parse_transport(transport), device);
#endif
  (void)local;
  (void)transport;
  (void)device;
  return nullptr;
}

// Per-rank medians reduced over the ranks: the step (max: the FOM), the compute (update and dt
// reduction: max and mean, the imbalance), the halo exchange and the allreduce.
struct RankTimes {
  copa::mpi::Reduced step, compute, halo, allreduce;
  nlohmann::json to_json() const {
    auto j = [](const copa::mpi::Reduced& r) { return nlohmann::json{{"max", r.max}, {"mean", r.mean}, {"min", r.min}}; };
    return {{"step_median_s", j(step)}, {"compute_median_s", j(compute)}, {"halo_exchange_median_s", j(halo)},
            {"allreduce_median_s", j(allreduce)}};
  }
};

RankTimes rank_times(const ro::RunResult& r, int warmup) {
  auto median = [&](const std::string& name) {
    const auto& names = r.profile.names();
    if (std::find(names.begin(), names.end(), name) == names.end()) return 0.0;
    return ro::region_stats(r.profile, name, warmup).median;
  };
  RankTimes t;
  t.step = copa::mpi::reduce(median("step"));
  t.compute = copa::mpi::reduce(median("hydro_update") + median("dt_reduction") + median("hydro_update+dt"));
  t.halo = copa::mpi::reduce(median("halo_exchange"));
  t.allreduce = copa::mpi::reduce(median("allreduce"));
  return t;
}

// --levels > 0: the AMR run on the serial and OpenMP backends (README "AMR"). The verdict, the
// profile and the cross-backend check use the leaf state sampled on the finest level's uniform mesh.
int run_amr_problem(const Options& o, const ro::OctMesh& base,
                    const Plan& selections, int argc, char** argv) {
  if (copa::mpi::size() > 1) throw copa::InputError("--levels: distributed AMR (several MPI ranks): not done");
  if (o.host_resident) throw copa::InputError("--host-resident: not with --levels (AMR runs on the host backends)");
  if (o.refine_band.size() != 2 || !(o.refine_band[0] < o.refine_band[1]))
    throw copa::InputError("--refine-band: needs two values lo,hi with lo < hi");
  if (o.regrid_every < 0) throw copa::InputError("--regrid-every: must be >= 0 (0: keep the initial grid)");
  if (o.vtk.every > 0) throw copa::InputError("--vtk-every: not done with --levels (--vtk writes the leaf cells at the end)");
  std::vector<copa::Backend> run_backends;
  for (const auto& [b, sel] : selections) run_backends.push_back(b);
  ro::amr::AmrConfig ac;
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
  const double per_oct = ro::amr::amr_bytes_per_oct + (o.subcycle ? ro::amr::fine_flux_per_oct * 8.0 : 0.0);
  const double bytes = double(ac.max_octs) * per_oct * run_backends.size() +
                       fine_n * (2 * 40.0 + ro::mesh_bytes_per_oct / 8);
  copa::require_host_memory(static_cast<std::size_t>(bytes), "ramses-oct AMR tree (--max-octs) and finest-level verdict mesh");
  const ro::OctMesh fine = ro::build_mesh(fine_cells, base.bc);

  ro::ProblemParams pp;
  pp.name = o.problem;
  pp.gamma = o.gamma;
  pp.energy = o.energy;
  ro::RunConfig cfg = make_config(o, base, pp);
  int rc = copa::exit_ok;
  std::vector<double> oracle;
  const int threads = copa::apply_threads(o.common.threads);
  for (copa::Backend b : run_backends) {
    if (!o.common.quiet)
      std::cout << "\n== ramses-oct AMR " << o.problem << " base " << base.cells[0] << "x" << base.cells[1] << "x"
                << base.cells[2] << " + " << o.levels << " levels, backend " << copa::to_string(b) << "\n";
    if (copa::is_gpu(b)) copa::select_device(o.common.device);
    const auto row = std::find_if(selections.begin(), selections.end(), [&](const auto& e) { return e.first == b; });
    const copa::Selection& sel = row->second.front();
    if (sel.variant->axis("group-min")) {
      ac.group_min = std::stoi(sel.tuning("group-min"));
    }
    const ro::amr::AmrResult r = ro::amr::run_amr(b, base, cfg, ac);
    const std::vector<double> u = ro::amr::project_to_finest(r.tree, fine, r.u);
    copa::Report rep(app_name, app_version);
    rep.set_backend(b);
    rep.set_selection(sel);
    if (copa::is_gpu(b)) rep.set_device(copa::select_device(o.common.device));
    rep.set_threads(threads);
    rep.set_command_line(copa::command_line(argc, argv));
    const std::vector<std::int64_t> leaves = r.tree.leaf_cells_per_level();
    const std::int64_t leaf_cells = r.tree.leaf_cells();
    auto& pj = rep.problem();
    pj = {{"problem", o.problem}, {"cells", base.cells}, {"octs", base.noct}, {"gamma", o.gamma}, {"slope", o.slope},
          {"riemann", o.riemann}, {"courant", o.courant}, {"bc", ro::to_string(base.bc[0])}, {"tend", cfg.tend},
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
    // leaf members; README "The device step, round 2", "Partial sibling groups").
    if (r.leaf_oct_updates > 0) pj["amr"]["sibling_group_share"] = r.grouped_oct_updates / r.leaf_oct_updates;
    // Rows: per-step regions without the warm-up, regrid and initial grid as their own rows.
    const double mean_leaves = r.steps > 0 ? r.leaf_cell_updates / double(r.steps) : 0;
    for (const auto& name : r.profile.names()) {
      const bool per_step = name.rfind("regrid", 0) != 0 && name != "initial_grid";  // regrid and its parts
      copa::KernelCost cost;
      if (name == "hydro_update" || name == "hydro_update+reflux+restriction" || name == "amr.update") cost = {ro::flops_per_cell_update * mean_leaves, mean_leaves * ro::nvar * 8.0, mean_leaves * ro::nvar * 8.0};
      rep.add_kernel(name, ro::region_stats(r.profile, name, per_step ? cfg.warmup : 0), cost);
    }
    const double step_total = r.profile.total("step");
    const double regrid_total = r.profile.has("regrid") ? r.profile.total("regrid") : 0.0;
    rep.set_fom({"leaf-cell updates per second (full step: dt reduction, leaf update, reflux, restriction; regrid excluded)",
                 step_total > 0 ? r.leaf_cell_updates / step_total : 0.0, "cell-updates/s"});
    rep.extra()["amr_time"] = {{"steps_s", step_total}, {"regrid_s", regrid_total},
                               {"initial_grid_s", r.profile.total("initial_grid")},
                               {"time_to_solution_s", step_total + regrid_total + r.profile.total("initial_grid")},
                               {"leaf_cell_updates", r.leaf_cell_updates},
                               // The issue's leaf rate counts the regrid too ("regrid cost included
                               // and reported separately"): the FOM excludes it, this rate does not.
                               {"leaf_cell_rate_with_regrid_per_s",
                                step_total + regrid_total > 0 ? r.leaf_cell_updates / (step_total + regrid_total) : 0.0}};
    // The sound wave's tolerance follows the coarsest level holding leaves (verification.hpp).
    const int coarsest = static_cast<int>(std::find_if(leaves.begin(), leaves.end(), [](std::int64_t n) { return n > 0; }) -
                                          leaves.begin());
    ro::PhysicsVerdict ph = ro::check_physics(fine, pp, o.slope, u, r.t, r.initial, r.tree.dx(coarsest));
    const double dm = std::fabs(r.final.mass - r.initial.mass) / r.initial.mass;
    const double de = std::fabs(r.final.energy - r.initial.energy) / r.initial.energy;
    ph.extra["mass_rel_change"] = dm;
    ph.extra["energy_rel_change"] = de;
    rep.extra()["physics"] = ph.extra;
    rep.extra()["physics_verdict"] = copa::verdict_line(ph.v);
    rep.extra()["state_checksum"] = ro::hex(ro::state_checksum(r.u));
    copa::Verification v = ph.v;
    if (b == copa::Backend::serial) oracle = u;
    if (b != copa::Backend::serial && !oracle.empty()) {
      const double l2 = ro::relative_l2(u, oracle);
      rep.extra()["cross_backend"] = {{"relative_l2_vs_serial", l2}, {"tolerance", 1e-12}};
      if (!o.common.quiet) std::cout << copa::verdict_line(ph.v) << "\n";
      v = {"serial oracle", "relative_l2_vs_serial", l2, 1e-12, l2 < 1e-12 && (!ph.v.verified || ph.v.passed)};
    }
    if (!o.common.quiet)
      std::cout << "AMR: " << leaf_cells << " leaf cells (uniform equivalent " << fine_n << "), octs per level";
    if (!o.common.quiet) {
      for (auto n : r.tree.octs_per_level()) std::cout << " " << n;
      std::cout << "; " << r.regrids << " regrids; mass change " << dm << ", energy change " << de << "\n";
    }
    rep.set_verification(v);
    if (o.common.quiet) std::cout << copa::verdict_line(v) << "\n";
    else rep.print(std::cout);
    if (!o.common.json.empty()) rep.write_json(copa::json_path_for(o.common.json, b, run_backends.size() > 1));
    if (!o.profile.empty() && b == run_backends.front())
      ro::write_profile(o.profile, o.problem, fine, u, o.gamma, r.t, ro::sound_wave(fine, pp));
    // The leaf cells of every level as hexahedra (.vtu), from the first backend of the run.
    copa::vtk::Series vtk(b == run_backends.front() ? o.vtk : copa::vtk::Options{}, app_name, "vtu");
    vtk.at_end(r.steps, r.t, [&](const std::string& path) {
      ro::write_leaf_cells_vtk(path, ro::amr::leaf_cells(r.tree, r.u, o.gamma), vtk.encoding());
    });
    if (v.verified && !v.passed) rc = copa::exit_verification_failed;
  }
  return rc;
}

int run(int argc, char** argv) {
  Options o;
  CLI::App app{"ramses-oct: oct-based hydro proxy of RAMSES (unsplit MUSCL-Hancock on 2x2x2-cell octs)"};
  copa::add_common_options(app, o.common);
  app.add_option("--problem", o.problem, "sod | sedov | sound")->check(CLI::IsMember({"sod", "sedov", "sound"}))->capture_default_str();
  app.add_option("--n", o.n, "Cells per side (even, >= 4); default from --size (32/128/512), sod 256");
  app.add_option("--nx", o.nx, "Cells along x (brick root domain; overrides --n)");
  app.add_option("--ny", o.ny, "Cells along y (default --n; sod 8)");
  app.add_option("--nz", o.nz, "Cells along z (default --n; sod 8)");
  app.add_option("--gamma", o.gamma, "Ratio of specific heats")->check(CLI::Range(1.0001, 10.0))->capture_default_str();
  app.add_option("--slope", o.slope, "Slope limiter minmod | mc")->check(CLI::IsMember({"minmod", "mc"}))->capture_default_str();
  app.add_option("--riemann", o.riemann, "Riemann solver hll | hllc | llf")->check(CLI::IsMember({"hll", "hllc", "llf"}))->capture_default_str();
  app.add_option("--courant", o.courant, "CFL number C in dt = C dx / max sum_i(|u_i| + c_s)")->check(CLI::Range(1e-6, 1.0))->capture_default_str();
  app.add_option("--bc", o.bc, "Boundaries on every face: periodic | reflecting | outflow (default: sod outflow, else periodic)");
  app.add_option("--tend", o.tend, "End time (default: sod 0.2, sedov 0.05, sound one period)");
  app.add_option("--steps", o.steps, "Maximum number of steps")->check(CLI::Range(1L, 1000000000L))->capture_default_str();
  app.add_option("--energy", o.energy, "Sedov blast energy")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--profile", o.profile, "CSV: sod x,rho,u,p along x; sedov r,rho,p binned; sound x,rho,rho_exact");
  app.add_flag("--host-resident", o.host_resident, "GPU: copy the grid to the device and back every step (the seed's way)");
  app.add_option("--block-size", o.block_size, "GPU threads per block (multiple of the warp size, <= 1024; 0 = variant default)");
  app.add_option("--transport", o.transport, "Halo exchange between MPI ranks: host | cuda-aware | nccl | ipc")
      ->capture_default_str();
  app.add_flag("--compare-one-rank", o.compare_one_rank,
               "Several ranks: rank 0 also runs the problem alone and requires the same bits (exit 1 otherwise)");
  app.add_option("--sweep", o.sweep, "GPU: block sizes to sweep (time per step against threads per block)")->delimiter(',');
  copa::vtk::add_options(app, o.vtk);
  app.add_flag("--vtk-cells", o.vtk_cells, "--vtk: write the leaf cells as hexahedra (.vtu, the AMR form) instead of the uniform grid (.vti)");
  app.add_option("--levels", o.levels, "AMR: refined levels above the base grid of --n (0: the uniform run)")
      ->check(CLI::Range(0, 8))->capture_default_str();
  app.add_option("--refine-threshold", o.refine_threshold, "AMR: relative-jump threshold for density and pressure (sets both)")
      ->check(CLI::PositiveNumber);
  app.add_option("--refine-density", o.refine_density, "AMR: relative density jump 2|d_n - d|/(d_n + d) that flags a cell")
      ->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--refine-pressure", o.refine_pressure, "AMR: relative pressure jump that flags a cell")
      ->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--refine", o.refine, "AMR criterion: gradient | everywhere | band (the last two for tests)")
      ->check(CLI::IsMember({"gradient", "everywhere", "band"}))->capture_default_str();
  app.add_option("--refine-band", o.refine_band, "AMR --refine band: x range lo,hi refined to the finest level")->delimiter(',');
  app.add_option("--regrid-every", o.regrid_every, "AMR: steps between regrids (0: keep the initial grid)")->capture_default_str();
  app.add_option("--refine-buffer", o.refine_buffer,
                 "AMR: buffer cells around the flagged cells on every level (RAMSES's nexpand; a feature stays on "
                 "the finest level for about 2 x buffer / Courant steps, the regrid interval's bound)")
      ->check(CLI::Range(0, 8))->capture_default_str();
  app.add_option("--max-octs", o.max_octs, "AMR: cap on the octs of all levels (default: full refinement); exit 3 beyond it")
      ->check(CLI::Range(8LL, 2147483647LL));
  app.add_flag("--subcycle", o.subcycle, "AMR: RAMSES's level subcycling (level l in 2^l substeps per coarse step) instead of one global dt (every backend: serial, openmp, and the device step per level on cuda/hip)");
  app.add_flag("--phase-timing", o.phase_timing,
               "AMR, GPU backends: time the device step's phases with events (rows amr.ghosts, amr.update, "
               "amr.reflux+finest_restriction, amr.coarser_restrictions+scan); the host backends time them already");
  app.add_flag("--no-reflux", o.no_reflux, "AMR, TEST ONLY: coarse cells keep their own flux at coarse-fine faces (not conservative)");
  if (const int rc = copa::parse_command_line(app, argc, argv); rc >= 0) return rc;
  // --reps R repeats the whole timed run R times from the initial state (samples pooled). Its
  // common default (5) is not applied: every run already times each of its steps.
  if (app.get_option("--reps")->count() > 0) o.reps = o.common.reps;
  copa::halo::parse_transport(o.transport);  // exit 2 for a name this build does not have
  check_output_path("--json", o.common.json);
  check_output_path("--profile", o.profile);
  // Rank 0 checks and creates the --vtk directory; over ranks every rank writes its own piece
  // there, so all wait for it here and share its verdict (every rank exits 2 on a bad --vtk).
  std::string vtk_refused;
  if (copa::mpi::is_root()) try {
      copa::vtk::prepare(o.vtk);
    } catch (const copa::InputError& e) {
      vtk_refused = e.what();
    }
  if (copa::mpi::max_all(vtk_refused.empty() ? 0.0 : 1.0) > 0)
    throw copa::InputError(vtk_refused.empty() ? "--vtk: refused on rank 0" : vtk_refused);

  if (o.common.list) {
    ro::registry().print(std::cout);
    std::cout << "\n";
    ro::amr_registry().print(std::cout);
    std::cout << "  transports (--transport):";
    for (const std::string& t : copa::halo::transports_built()) std::cout << " " << t;
    std::cout << "\n";
    return copa::exit_ok;
  }
  const auto backends = copa::requested_backends(o.common);
  // --variant and --tuning against the table of the run's kind (exit 2 naming the valid values).
  const Plan selections =
      select_variants(o.levels > 0 ? ro::amr_registry() : ro::registry(), o.common, backends, copa::mpi::size());
  if (o.block_size != 0 && (o.block_size < 32 || o.block_size > 1024 || o.block_size % 32 != 0))
    throw copa::InputError("--block-size: " + std::to_string(o.block_size) + " is not a multiple of 32 in [32, 1024]");
  if (o.phase_timing && o.levels == 0)
    throw copa::InputError("--phase-timing: needs --levels >= 1 (it times the AMR device step's phases; the uniform run "
                           "times its kernels already)");
  if (o.subcycle && o.levels == 0)
    throw copa::InputError("--subcycle: needs --levels >= 1 (level subcycling has no meaning on the uniform grid)");
  for (int bs : o.sweep)
    if (bs < 32 || bs > 1024 || bs % 32 != 0)
      throw copa::InputError("--sweep: " + std::to_string(bs) + " is not a multiple of 32 in [32, 1024]");

  // Mesh.
  const int preset = o.common.size == "large" ? 512 : (o.common.size == "medium" ? 128 : 32);
  const int n = o.n > 0 ? o.n : (o.problem == "sod" ? 256 : preset);
  std::array<int, 3> cells = {o.nx > 0 ? o.nx : n, o.ny > 0 ? o.ny : (o.problem == "sod" ? 8 : n),
                              o.nz > 0 ? o.nz : (o.problem == "sod" ? 8 : n)};
  const ro::Boundary bc = o.bc.empty() ? ro::default_boundary(o.problem) : ro::parse_boundary(o.bc);
  if (o.tend == 0 || (o.tend < 0 && app.get_option("--tend")->count() > 0))
    throw copa::InputError("--tend: must be positive");
  for (int a = 0; a < 3; ++a)
    if (cells[a] < 4 || cells[a] % 2 != 0 || cells[a] > (1 << 14))
      throw copa::InputError(std::string(a == 0 ? "--nx/--n" : a == 1 ? "--ny/--n" : "--nz/--n") + ": " +
                             std::to_string(cells[a]) + " is not even in [4, 16384] (octs are 2x2x2 cells)");
  const double ncell = double(cells[0]) * cells[1] * cells[2];
  // Oct indices (neighbour table, tile bases) are 32-bit.
  if (ncell / 8 > double(INT32_MAX))
    throw copa::InputError("--n/--nx/--ny/--nz: " + std::to_string(ncell / 8) + " octs exceed the 32-bit oct index (2^31 - 1)");
  // Host: mesh tables, the initial state, the final state of each backend and a backend's two
  // working copies (serial/OpenMP), 40 bytes per cell each. On several ranks every rank also
  // holds the global oct tables (set-up), and rank 0 the gathered global states (README).
  const int nranks = copa::mpi::size(), me = copa::mpi::rank();
  const bool root = copa::mpi::is_root();
  // A rank's stored octs are its share plus the ghost layer: counted as half its share again
  // (a 256^3 half-cube gets 3%, a 16^3 third 110%: the estimate is for the large runs it guards).
  const double local_cells = ncell / nranks;
  const double host_bytes = nranks == 1 ? ncell * (4 * 40.0 + ro::mesh_bytes_per_oct / 8)
                                        : local_cells * 4 * 40.0 * 1.5 + ncell * ro::mesh_bytes_per_oct / 8 +
                                              (root ? 3 * 40.0 * ncell : 0);
  // --host-resident copies the whole state in at the start of every step, over the ghosts the
  // exchange has just filled on the device.
  if (nranks > 1 && o.host_resident) throw copa::InputError("--host-resident: one rank only");
  if (nranks > 1 && ncell * 1.0 > double(INT32_MAX))
    throw copa::InputError("--n/--nx/--ny/--nz: " + std::to_string(ncell) +
                           " cells exceed the 32-bit counts of the gather to rank 0 on several ranks");
  copa::require_host_memory(static_cast<std::size_t>(host_bytes), "ramses-oct host state");
  const ro::OctMesh mesh = ro::build_mesh(cells, {bc, bc, bc});
  if (o.levels > 0) return run_amr_problem(o, mesh, selections, argc, argv);

  // Several ranks: this rank's contiguous Morton range plus its ghost layer (decomposition.hpp).
  std::optional<ro::Partition> part;
  std::optional<ro::LocalDomain> local;
  if (nranks > 1) {
    part = ro::partition_mesh(mesh, nranks);
    local = ro::build_local_domain(mesh, *part, me);
  }
  const ro::OctMesh& run_mesh = local ? local->mesh : mesh;

  ro::ProblemParams pp;
  pp.name = o.problem;
  pp.gamma = o.gamma;
  pp.energy = o.energy;
  std::vector<double> u0;
  ro::initialise(run_mesh, pp, u0);
  // The initial totals of the global state (rank 0 judges conservation on the gathered state).
  const std::vector<double> u0_global = local ? gather_global(run_mesh, part, u0) : std::vector<double>{};
  const ro::Totals t0 = root ? ro::totals(mesh, local ? u0_global : u0) : ro::Totals{};
  ro::RunConfig cfg = make_config(o, mesh, pp);
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
  for (const auto& [b, offered] : selections) {
    // --backend all: every variant that runs on this mesh; one backend without --variant: the
    // default after the fallback rule (variants.hpp), reported.
    std::vector<copa::Selection> run_variants;
    std::string fallback;
    if (several) {
      for (const copa::Selection& sel : offered)
        if (ro::variant_applies(b, sel.name(), run_mesh)) run_variants.push_back(sel);
    } else if (o.common.variant.empty()) {
      run_variants.push_back(ro::default_selection(b, nranks, run_mesh, &fallback, o.common.tunings));
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
      std::unique_ptr<ro::StepComm> comm = make_comm(local, o.transport, copa::is_gpu(b));
      cfg.comm = comm.get();
      const bool first_run = b == backends.front() && &var == &run_variants.front();
      // Over ranks every rank writes its owned cells as a piece of a .pvtu (nothing gathered);
      // on one rank the whole mesh goes into one .vti (or .vtu with --vtk-cells).
      copa::vtk::Series vtk(first_run ? o.vtk : copa::vtk::Options{}, app_name,
                            local ? "pvtu" : o.vtk_cells ? "vtu" : "vti");
      auto write_vtk = [&](const std::vector<double>& state) {
        return [&](const std::string& path) {
          if (local) ro::write_leaf_cells_pieces(path, ro::leaf_cells(run_mesh, state, o.gamma), vtk.encoding());
          else if (o.vtk_cells) ro::write_leaf_cells_vtk(path, ro::leaf_cells(mesh, state, o.gamma), vtk.encoding());
          else ro::write_uniform_vtk(path, mesh, state, o.gamma, vtk.encoding());
        };
      };
      copa::Progress progress("step", 0, o.common.quiet || !root);
      cfg.after_step = [&](int rep, long step, double t, ro::HydroKernels& k) {
        progress.update(step, std::max(t / cfg.tend, double(step) / double(cfg.max_steps)));
        if (rep > 0 || !vtk.due(step)) return;
        std::vector<double> state;
        k.store(state);
        vtk.at_step(step, t, write_vtk(state));
      };
      const ro::RunResult r = ro::run_backend(b, var, run_mesh, u0, cfg);
      cfg.after_step = nullptr;
      const std::vector<double> u = local ? gather_global(run_mesh, part, r.u) : r.u;
      const RankTimes times = rank_times(r, cfg.warmup);
      nlohmann::json sweep;
      if (copa::is_gpu(b) && !o.sweep.empty()) sweep = block_size_sweep(o, b, var, run_mesh, u0, cfg, root && !o.common.quiet);
      copa::Report rep(app_name, app_version);
      rep.set_backend(b);
      rep.set_selection(var);
      if (!fallback.empty()) rep.extra()["variant_fallback"] = fallback;
      rep.set_threads(threads);
      rep.set_device(device);
      rep.set_command_line(copa::command_line(argc, argv));
      rep.set_variants_built(ro::registry().built_json());
      auto& pj = rep.problem();
      pj = {{"problem", o.problem}, {"cells", cells}, {"octs", mesh.noct}, {"gamma", o.gamma}, {"slope", o.slope},
            {"riemann", o.riemann}, {"courant", o.courant}, {"bc", ro::to_string(bc)}, {"tend", cfg.tend},
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
      const ro::PhysicsVerdict ph = ro::check_physics(mesh, pp, o.slope, u, r.t, t0);
      rep.extra()["physics"] = ph.extra;
      rep.extra()["physics_verdict"] = copa::verdict_line(ph.v);
      rep.extra()["state_checksum"] = ro::hex(ro::state_checksum(u));
      if (!o.common.quiet) std::cout << "state checksum (FNV-1a of the final state's bits): " << ro::hex(ro::state_checksum(u)) << "\n";
      copa::Verification v = ph.v;
      if (b == copa::Backend::serial) oracle = u;
      if (b != copa::Backend::serial && !oracle.empty()) {
        const double l2 = ro::relative_l2(u, oracle);
        rep.extra()["cross_backend"] = {{"relative_l2_vs_serial", l2}, {"tolerance", 1e-12}};
        if (!o.common.quiet) std::cout << copa::verdict_line(ph.v) << "\n";
        // Agreement with the oracle is a check that can fail even where no physics reference applies.
        v = {"serial oracle", "relative_l2_vs_serial", l2, 1e-12, l2 < 1e-12 && (!ph.v.verified || ph.v.passed)};
      }
      if (!sweep.is_null()) rep.extra()["block_size_sweep"] = sweep;
      if (o.compare_one_rank && local) {
        // The one-rank answer, computed here on rank 0 with the same backend and variant: a
        // distributed update uses the same operands in the same order, so the bits must agree.
        ro::RunConfig alone = cfg;
        alone.comm = nullptr;
        const ro::RunResult r1 = ro::run_backend(b, var, mesh, u0_global, alone);
        const bool same = r1.t == r.t && r1.u == u;
        double diff = 0;
        for (std::size_t i = 0; i < u.size(); ++i) diff = std::max(diff, std::fabs(r1.u[i] - u[i]));
        const std::string c1 = ro::hex(ro::state_checksum(r1.u)), cn = ro::hex(ro::state_checksum(u));
        rep.extra()["one_rank_check"] = {{"checksum_one_rank", c1}, {"checksum_ranks", cn}, {"t_one_rank", r1.t},
                                         {"bitwise_equal", same}, {"max_abs_difference", diff}};
        if (!o.common.quiet)
          std::cout << "one-rank check: checksum " << c1 << " alone, " << cn << " on " << nranks << " ranks\n";
        if (!same) v = {"the same run on one rank (bitwise)", "max_abs_difference_vs_one_rank", diff, 0, false};
      }
      if (vtk.enabled()) rep.extra()["vtk"] = {{"files", vtk.files()}, {"mass_total", ro::totals(mesh, u).mass}};
      rep.set_verification(v);
      if (o.common.quiet) std::cout << copa::verdict_line(v) << "\n";
      else rep.print(std::cout);
      if (!o.common.json.empty())
        rep.write_json(variant_path(copa::json_path_for(o.common.json, b, several), run_variants.size() > 1 ? var.label() : ""));
      if (!o.profile.empty() && b == backends.front())
        ro::write_profile(o.profile, o.problem, mesh, u, o.gamma, r.t, ro::sound_wave(mesh, pp));
      if (v.verified && !v.passed) rc = copa::exit_verification_failed;
    }
  }
  // Rank 0 judged the gathered state; every rank returns its verdict.
  return static_cast<int>(copa::mpi::max_all(double(rc)));
}

}  // namespace

int main(int argc, char** argv) {
  copa::mpi::Session mpi_session(argc, argv);
  return copa::guarded_main([&] { return run(argc, argv); });
}
