// ramses-oct: the oct-based hydro proxy of RAMSES (README.md). The command line: options checked,
// the mesh built, --variant and --tuning resolved against the table of the run's kind, then the
// uniform run (uniform/uniform_run.hpp) or the AMR run (amr/amr_run.hpp).
#include <algorithm>
#include <array>
#include <climits>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "amr/amr_run.hpp"
#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "copa/halo.hpp"
#include "copa/machine.hpp"
#include "copa/mpi.hpp"
#include "copa/output.hpp"
#include "copa/vtk.hpp"
#include "hydro/mesh.hpp"
#include "hydro/run_options.hpp"
#include "uniform/uniform_run.hpp"
#include "variants.hpp"

namespace {

using ro::Options;
using ro::Plan;

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

int run(int argc, char** argv) {
  Options o;
  CLI::App app{"ramses-oct: oct-based hydro proxy of RAMSES (unsplit MUSCL-Hancock on 2x2x2-cell octs)"};
  copa::add_common_options(app, o.common);
  app.add_option("--problem", o.problem, "sod | sedov | sound")->check(CLI::IsMember({"sod", "sedov", "sound"}))->capture_default_str();
  app.add_option("--n", o.n, "Cells per side (even, >= 4); default from --size (32/128/512), sod 256")
      ->check(copa::cli::count(4, 16384));
  app.add_option("--nx", o.nx, "Cells along x (brick root domain; overrides --n)")
      ->check(copa::cli::count(4, 16384));
  app.add_option("--ny", o.ny, "Cells along y (default --n; sod 8)")
      ->check(copa::cli::count(4, 16384));
  app.add_option("--nz", o.nz, "Cells along z (default --n; sod 8)")
      ->check(copa::cli::count(4, 16384));
  app.add_option("--gamma", o.gamma, "Ratio of specific heats")->check(copa::cli::range_open_low(1, 10))->capture_default_str();
  app.add_option("--slope", o.slope, "Slope limiter minmod | mc")->check(CLI::IsMember({"minmod", "mc"}))->capture_default_str();
  app.add_option("--riemann", o.riemann, "Riemann solver hll | hllc | llf")->check(CLI::IsMember({"hll", "hllc", "llf"}))->capture_default_str();
  app.add_option("--courant", o.courant, "CFL number C in dt = C dx / max sum_i(|u_i| + c_s)")->check(copa::cli::range_open_low(0, 1))->capture_default_str();
  app.add_option("--bc", o.bc, "Boundaries on every face: periodic | reflecting | outflow (default: sod outflow, else periodic)");
  app.add_option("--tend", o.tend, "End time (default: sod 0.2, sedov 0.05, sound one period)")
      ->check(copa::cli::positive());
  app.add_option("--steps", o.steps, "Maximum number of steps")->check(copa::cli::count(1, 1000000000))->capture_default_str();
  app.add_option("--energy", o.energy, "Sedov blast energy")->check(copa::cli::positive())->capture_default_str();
  app.add_option("--profile", o.profile, "CSV: sod x,rho,u,p along x; sedov r,rho,p binned; sound x,rho,rho_exact");
  app.add_flag("--host-resident", o.host_resident, "GPU: copy the grid to the device and back every step (the seed's way)");
  app.add_option("--block-size", o.block_size, "GPU threads per block (multiple of the warp size, <= 1024; 0 = variant default)")
      ->check(copa::cli::count(0, 1024));
  app.add_option("--transport", o.transport, "Halo exchange between MPI ranks: host | cuda-aware | nccl | ipc")
      ->capture_default_str();
  app.add_flag("--compare-one-rank", o.compare_one_rank,
               "Several ranks: rank 0 also runs the problem alone and requires the same bits (exit 1 otherwise)");
  app.add_option("--sweep", o.sweep, "GPU: block sizes to sweep (time per step against threads per block)")->delimiter(',')
      ->check(copa::cli::count(32, 1024));
  copa::vtk::add_options(app, o.vtk);
  app.add_flag("--vtk-cells", o.vtk_cells, "--vtk: write the leaf cells as hexahedra (.vtu, the AMR form) instead of the uniform grid (.vti)");
  app.add_option("--levels", o.levels, "AMR: refined levels above the base grid of --n (0: the uniform run)")
      ->check(copa::cli::count(0, 8))->capture_default_str();
  app.add_option("--refine-threshold", o.refine_threshold, "AMR: relative-jump threshold for density and pressure (sets both)")
      ->check(copa::cli::positive());
  app.add_option("--refine-density", o.refine_density, "AMR: relative density jump 2|d_n - d|/(d_n + d) that flags a cell")
      ->check(copa::cli::positive())->capture_default_str();
  app.add_option("--refine-pressure", o.refine_pressure, "AMR: relative pressure jump that flags a cell")
      ->check(copa::cli::positive())->capture_default_str();
  app.add_option("--refine", o.refine, "AMR criterion: gradient | everywhere | band (the last two for tests)")
      ->check(CLI::IsMember({"gradient", "everywhere", "band"}))->capture_default_str();
  app.add_option("--refine-band", o.refine_band, "AMR --refine band: x range lo,hi refined to the finest level")->delimiter(',')
      ->check(copa::cli::range(0, 1));
  app.add_option("--regrid-every", o.regrid_every, "AMR: steps between regrids (0: keep the initial grid)")->capture_default_str()
      ->check(copa::cli::count(0, 1000000000));
  app.add_option("--refine-buffer", o.refine_buffer,
                 "AMR: buffer cells around the flagged cells on every level (RAMSES's nexpand; a feature stays on "
                 "the finest level for about 2 x buffer / Courant steps, the regrid interval's bound)")
      ->check(copa::cli::count(0, 8))->capture_default_str();
  app.add_option("--max-octs", o.max_octs, "AMR: cap on the octs of all levels (default: full refinement); exit 3 beyond it")
      ->check(copa::cli::count(8, 2147483647));
  app.add_option("--amr-imbalance", o.amr_imbalance,
                 "AMR, several MPI ranks: max/mean work above which a regrid re-cuts the ranks' ranges and migrates octs")
      ->check(copa::cli::range(1, 100))->capture_default_str();
  app.add_flag("--subcycle", o.subcycle, "AMR: RAMSES's level subcycling (level l in 2^l substeps per coarse step) instead of one global dt (every backend: serial, openmp, and the device step per level on cuda/hip)");
  app.add_flag("--phase-timing", o.phase_timing,
               "AMR, GPU backends: time the device step's phases with events (rows amr.ghosts, amr.update, "
               "amr.reflux+finest_restriction, amr.coarser_restrictions+scan); the host backends time them already");
  app.add_flag("--no-reflux", o.no_reflux, "AMR, TEST ONLY: coarse cells keep their own flux at coarse-fine faces (not conservative)");
  if (const int rc = copa::parse_command_line(app, argc, argv); rc >= 0) return rc;
  // --reps R repeats the whole timed run R times from the initial state (samples pooled). Its
  // common default (5) is not applied: every run already times each of its steps.
  if (app.get_option("--reps")->count() > 0) o.reps = o.common.reps;
  if (app.count("--energy") && o.problem != "sedov")
    throw copa::InputError("--energy: only the sedov problem has a blast energy (--problem " + o.problem + ")");
  copa::halo::parse_transport(o.transport);  // exit 2 for a name this build does not have
  copa::require_writable_output("--json", o.common.json);
  copa::require_writable_output("--profile", o.profile);
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
  // A count given on the command line is used as given (a zero or negative one is refused below,
  // never replaced by the default).
  auto given = [&](const char* name) { return app.get_option(name)->count() > 0; };
  const int n = given("--n") ? o.n : (o.problem == "sod" ? 256 : preset);
  std::array<int, 3> cells = {given("--nx") ? o.nx : n, given("--ny") ? o.ny : (o.problem == "sod" ? 8 : n),
                              given("--nz") ? o.nz : (o.problem == "sod" ? 8 : n)};
  const ro::Boundary bc = o.bc.empty() ? ro::default_boundary(o.problem) : ro::parse_boundary(o.bc);
  if (given("--tend") && !(o.tend > 0)) {
    std::ostringstream os;
    os << "--tend: " << o.tend << " is not a positive end time";
    throw copa::InputError(os.str());
  }
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
  // holds the global oct tables (set-up), and rank 0 the gathered global states.
  const int nranks = copa::mpi::size();
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
  if (o.levels > 0) return ro::amr::run_amr_problem(o, mesh, selections, argc, argv);

  return ro::run_uniform(o, mesh, selections, ro::registry(), argc, argv);
}

}  // namespace

int main(int argc, char** argv) {
  copa::mpi::Session mpi_session(argc, argv);
  return copa::guarded_main([&] { return run(argc, argv); });
}
