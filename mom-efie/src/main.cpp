// mom-efie: method-of-moments proxy. Mesh -> RWG -> dense complex fill over triangle pairs (EFIE,
// MFIE, CFIE for a PEC body; PMCHWT, Mueller for a dielectric one) -> LU -> currents -> bistatic
// RCS, verified against the Mie series of the PEC or dielectric sphere.
#include <algorithm>
#include <cmath>
#include <complex>
#include <iostream>

#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "copa/halo.hpp"
#include "copa/mpi.hpp"
#include "copa/output.hpp"
#include "copa/progress.hpp"
#include "copa/report.hpp"
#include "copa/timing.hpp"
#include "copa/vtk.hpp"
#include "cost_model.hpp"
#include "dielectric.hpp"
#include "distributed/block_cyclic.hpp"
#include "distributed/dist_run.hpp"
#include "kernels.hpp"
#include "reference.hpp"
#include "run_report.hpp"
#include "setup.hpp"
#include "solution_report.hpp"
#include "variants.hpp"
#include "verify.hpp"
#include "vtk_output.hpp"

namespace {

using namespace efie;

struct AppOptions {
  copa::CommonOptions common;
  ProblemOptions problem;
  std::string rcs_file;
  double tolerance_db = 0.5;
  bool fill_only = false;
  int sampled_entries = 64;
  std::string lu_method = lu_methods().front();
  std::string formulation = "efie";
  double cfie_alpha = 0.5;
  std::string eps_r = "1", mu_r = "1";  // of the body (pmchwt, muller): "re" or "re,im"
  SolverOptions solver;
  copa::vtk::Options vtk;               // ParaView output of the currents (first backend of a run)
  // More than one MPI rank (src/distributed/): the block-cyclic matrix.
  std::string proc_grid, transport = "host";
  long block_size = 0;
  bool compare_one_rank = false;
  std::string dist_lu;
  int lookahead = 1;
};

// The mesh resolves the shortest wavelength of the problem: inside a dielectric body it is
// |sqrt(eps_r mu_r)| times shorter (mesh_k_factor), so --elements-per-wavelength and the presets'
// 10 per wavelength refer to it.
Problem build_problem(const AppOptions& o, double mesh_k_factor) {
  const double k = wavenumber(o.problem);
  Mesh mesh = build_mesh(o.problem, k * mesh_k_factor);
  return make_problem(std::move(mesh), k, o.problem.radius, plane_wave(o.problem));
}

int run_backend(const AppOptions& o, copa::Backend backend, bool several, int argc, char** argv) {
  const copa::Selection variant = select_variant(o.common, backend, 1);
  const Formulation form = make_formulation(o.formulation, o.cfie_alpha, parse_complex(o.eps_r, "--eps-r"), parse_complex(o.mu_r, "--mu-r"));
  const int threads = copa::apply_threads(o.common.threads);
  int device = -1;
  if (copa::is_gpu(backend)) device = copa::select_device(o.common.device);

  // The size from the options alone: a problem that cannot fit is refused before the mesh.
  const double mesh_k_factor = form.dielectric() ? std::abs(std::sqrt(form.eps_r * form.mu_r)) : 1.0;
  const SizeEstimate size = estimate_size(o.problem, wavenumber(o.problem) * std::max(1.0, mesh_k_factor));
  const double unknowns_per_edge = form.dielectric() ? 2 : 1;  // J and M
  require_memory(backend, variant, unknowns_per_edge * size.unknowns, size.triangles);
  Problem problem = build_problem(o, std::max(1.0, mesh_k_factor));
  const long n = problem.unknowns(), nt = problem.triangle_count();
  if (form.name != "efie") {
    // The MFIE holds for closed surfaces with outward normals only (the n x H limit from outside).
    if (!problem.summary.closed)
      throw copa::InputError("--formulation " + form.name + " needs a closed surface (the MFIE does not hold on an open one)");
    if (signed_volume6(problem.mesh) <= 0)
      throw copa::InputError("--formulation " + form.name + ": the mesh's normals point inwards (the MFIE needs outward normals)");
  }
  const long n_matrix = form.dielectric() ? 2 * n : n;
  auto engine = make_engine(backend, variant, n_matrix, nt);
  engine->set_lu_method(o.lu_method);
  engine->set_formulation(form);
  const auto rhs = form.dielectric() ? dielectric_rhs(problem) : excitation(problem, form.alpha);

  std::string not_sphere;
  const double sphere_r = sphere_radius_for_mie(o.problem, problem, not_sphere);
  if (sphere_r > 0) problem.radius = sphere_r;
  const double ka = problem.k * problem.radius;
  if ((form.name == "efie" || form.name == "mfie") && sphere_r > 0 && distance_to_resonance(ka) < 0.05 && !o.common.quiet)
    std::cerr << "warning: ka = " << ka << " is within 0.05 of an interior resonance of the sphere; the " << form.name
              << " is ill-posed there (--formulation cfie is not)\n";

  copa::announce(o.common.quiet, std::to_string(n_matrix) + " unknowns (" + form.name + "), " + std::to_string(nt) +
                                     " triangles, ka " + std::to_string(ka),
                 std::to_string(o.common.warmup) + " warm-up + " + std::to_string(o.common.reps) + " timed repetitions of " +
                     (o.fill_only ? "mesh and fill" : "mesh, fill, LU, solve and RCS"));
  copa::Progress progress("repetition", o.common.warmup + o.common.reps, o.common.quiet);
  copa::Profile profile, warm_profile;
  RcsCuts cuts, cuts_lu;
  std::vector<complex> x_lu, x_irs;
  IrsResult irs;
  std::vector<double> e2e;
  for (int it = 0; it < o.common.warmup + o.common.reps; ++it) {
    const bool timed = it >= o.common.warmup;
    auto timer = engine->make_timer(timed ? profile : warm_profile);
    const double t0 = copa::host_seconds();
    if (it > 0) problem = build_problem(o, std::max(1.0, mesh_k_factor));  // the end-to-end time starts from the mesh
    if (sphere_r > 0) problem.radius = sphere_r;
    engine->upload(problem);
    {
      copa::Region r(*timer, "fill");
      engine->fill(*timer);
    }
    if (!o.fill_only) {
      auto rcs_of = [&](const std::vector<complex>& x) { return form.dielectric() ? bistatic_rcs_jm(problem, x) : bistatic_rcs(problem, x); };
      // --solver irs-*: the mixed-precision solve, then the FP64 LU of the same matrix to compare with.
      if (o.solver.irs()) {
        x_irs = rhs;
        irs = engine->solve_irs(o.solver, x_irs, *timer);
      }
      x_lu = rhs;
      engine->factor(*timer);
      engine->solve(x_lu, *timer);
      cuts_lu = rcs_of(x_lu);
      cuts = o.solver.irs() ? rcs_of(x_irs) : cuts_lu;
    }
    timer->flush();
    if (timed) e2e.push_back(copa::host_seconds() - t0);
    progress.update(it + 1);
  }

  copa::Report report = start_report(o.common, backend, variant, threads, device, argc, argv);
  describe_problem(report, o.problem, problem, form, mesh_k_factor, o.fill_only);

  for (const auto& name : profile.names()) report.add_kernel(name, profile.stats(name), cost_of(name, problem, n_matrix, form));
  if (!e2e.empty()) report.add_kernel(o.fill_only ? "end_to_end(mesh..fill)" : "end_to_end(mesh..rcs)", copa::summarize(e2e), {});

  nlohmann::json mom = fill_rates_json(problem, variant, form, n_matrix, profile, engine->workspace_bytes());
  if (profile.has("lu")) mom["lu_method"] = copa::is_gpu(backend) ? o.lu_method : std::string("LAPACKE zgetrf");
  // The serial backend's roofline is the one-thread ceiling: its LAPACK ran on one OpenBLAS thread,
  // or on the library's default where the library is not OpenBLAS.
  if (profile.has("lu") && !copa::is_gpu(backend))
    mom["lu_blas_threads"] = backend == copa::Backend::serial && efie::BlasThreads::last_set() == 1
                                 ? nlohmann::json(1) : nlohmann::json("library default");
  // ||C||_1 ||C^-1||_1 estimated from the LU (host: LAPACK zgecon; GPU: Hager/Higham with getrs).
  if (engine->condition_estimate() > 0)
    mom["condition_number_1norm_estimate"] = engine->condition_estimate();
  else
    mom["condition_number_1norm_estimate"] = nullptr;
  const copa::Verification v = check_run({problem, *engine, form, cuts, sphere_r, o.fill_only, o.sampled_entries, o.tolerance_db, o.eps_r, o.mu_r, not_sphere}, mom);
  const bool mie_check = sphere_r > 0 && !o.fill_only;
  copa::vtk::Series vtk(o.vtk, "mom-efie", "vtu");
  vtk.at_end(0, 0.0, [&](const std::string& path) { write_currents_vtk(path, problem, o.solver.irs() ? x_irs : x_lu, form.dielectric(), vtk.encoding()); });
  if (vtk.enabled()) mom["vtk_files"] = vtk.files();
  report.extra()["mom"] = mom;
  if (!o.fill_only) {
    SolutionRecord rec{o.solver, resolved_refinement(o.solver, backend), irs, engine->condition_estimate(), profile, x_irs, x_lu, cuts, cuts_lu};
    if (o.solver.irs()) rec.lu_relative_residual = engine->relative_residual(x_lu, rhs);
    if (mie_check) {
      rec.rms_db = mom["rms_db_error"].get<double>();
      rec.rms_db_lu = form.dielectric() ? rms_db_error_dielectric(cuts_lu, ka, Dielectric{form.eps_r, form.mu_r}) : rms_db_error(cuts_lu, ka);
    }
    report.extra()["solution"] = solution_json(rec);
    if (irs.fell_back)
      report.add_fallback("precision", o.solver.solver + " (" + rec.refinement + " refinement)", "FP64 LU",
                          "the refinement did not converge in " + std::to_string(irs.max_iters) + " iterations");
    if (!o.common.quiet) print_solution(std::cout, rec);
  }
  report.set_verification(v);
  report.set_fom({"fill triangle pairs per second", mom["triangle_pairs_per_s"].get<double>() * 1e-9, "Gpairs/s"});

  if (!o.rcs_file.empty() && !o.fill_only) write_rcs_csv(several ? copa::json_path_for(o.rcs_file, backend, true) : o.rcs_file, cuts);
  if (!o.common.quiet) report.print(std::cout);
  else report.print_verdict(std::cout);
  if (!o.common.json.empty()) report.write_json(copa::json_path_for(o.common.json, backend, several));
  return !v.verified || v.passed ? copa::exit_ok : copa::exit_verification_failed;
}

}  // namespace

int main(int argc, char** argv) {
  copa::mpi::Session mpi_session(argc, argv);
  return copa::guarded_main([&]() -> int {
    AppOptions o;
    CLI::App app{"mom-efie: method-of-moments EFIE / MFIE / CFIE / PMCHWT / Mueller proxy (RWG fill over triangle pairs, "
                 "dense complex LU), verified against the Mie series of a PEC or dielectric sphere"};
    copa::add_common_options(app, o.common);
    auto& p = o.problem;
    app.add_option("--geometry", p.geometry, "built-in surface: sphere | cube | plate (open)")->capture_default_str();
    app.add_option("--mesh", p.mesh_file, "Gmsh ASCII mesh (format 2.2 or 4.1) of triangles, instead of --geometry");
    app.add_option("--radius", p.radius, "sphere radius; half side of cube and plate (m)")->capture_default_str()
      ->check(copa::cli::positive());
    app.add_option("--ka", p.ka, "electrical size k * radius (default 2)")
      ->check(copa::cli::positive());
    app.add_option("--frequency", p.frequency, "frequency in Hz (instead of --ka)")
      ->check(copa::cli::positive());
    app.add_option("--elements-per-wavelength", p.elements_per_wavelength, "mesh density (mean edge = wavelength / value); overrides --size")
      ->check(copa::cli::positive());
    app.add_option("--edge-length", p.edge_length, "target mean edge length (m); overrides --size")
      ->check(copa::cli::positive());
    app.add_option("--incidence", p.incidence, "propagation direction theta,phi in degrees")->capture_default_str();
    app.add_option("--polarisation", p.polarisation, "E direction x,y,z (default: theta-hat of the incidence)");
    app.add_option("--rcs", o.rcs_file, "write the bistatic RCS cuts: theta_deg,sigma_E_over_pia2,sigma_H_over_pia2");
    app.add_option("--tolerance-db", o.tolerance_db, "RMS dB bound against Mie")->capture_default_str()
      ->check(copa::cli::positive());
    app.add_flag("--fill-only", o.fill_only, "time the fill only (no LU, no RCS; verification by sampled entries)");
    app.add_option("--sampled-entries", o.sampled_entries, "entries recomputed by the serial formula when Mie does not apply (fill only, not a sphere)")
        ->capture_default_str()
      ->check(copa::cli::count(0, 1000000));
    app.add_option("--lu", o.lu_method, "device LU routine: getrf (cuSOLVER 32-bit API) | xgetrf-alg0 | xgetrf-alg1 "
                                        "(64-bit cusolverDnXgetrf, CUSOLVER_ALG_0/1); host backends use LAPACK")
        ->capture_default_str();
    app.add_option("--solver", o.solver.solver, "lu (FP64 LU) | irs-fp32 | irs-tf32 | irs-fp16 | irs-bf16 (iterative refinement to FP64 "
                                                "from an LU in that precision; host: irs-fp32 only, by LAPACK zcgesv)")
        ->capture_default_str();
    app.add_option("--refinement", o.solver.refinement, "IRS refinement: classical | gmres (default: gmres on cuda, classical on "
                                                         "the host, zcgesv's only one)");
    app.add_option("--irs-max-iters", o.solver.max_iters, "IRS iteration limit (cuda; zcgesv's is fixed at 30)")->capture_default_str()
      ->check(copa::cli::count(1, 1000000));
    std::string fallback = "on";
    app.add_option("--irs-fallback", fallback, "on | off: solve in FP64 when the refinement does not converge (cuda; zcgesv always does)")
        ->capture_default_str();
    app.add_option("--formulation", o.formulation, "integral equation: efie | mfie | cfie (closed PEC surfaces) | pmchwt | muller "
                                                    "(closed dielectric body, --eps-r, --mu-r)")
        ->capture_default_str();
    app.add_option("--eps-r", o.eps_r, "relative permittivity of the body (pmchwt, muller): eps' or eps',-eps'' "
                                       "(exp(+jwt): eps' - j eps'', loss eps'' >= 0)")->capture_default_str();
    app.add_option("--mu-r", o.mu_r, "relative permeability of the body (pmchwt, muller): mu' or mu',-mu''")->capture_default_str();
    app.add_option("--cfie-alpha", o.cfie_alpha, "CFIE weight: alpha EFIE + (1 - alpha) eta MFIE, 0 < alpha < 1")->capture_default_str()
      ->check(copa::cli::open_range(0, 1));
    copa::vtk::add_options(app, o.vtk);
    app.add_option("--proc-grid", o.proc_grid, "more than one MPI rank: process grid PxQ of the block-cyclic matrix "
                                               "(default: the most square with P <= Q, as MPI_Dims_create; 1 x ranks for --dist-lu pliris)");
    app.add_option("--block-size", o.block_size, "more than one MPI rank: block size nb of the block-cyclic layout "
                                                 "(default 64 on the CPU, 512 on the GPU)")
      ->check(copa::cli::count(1, 1048576));
    app.add_option("--transport", o.transport, "more than one MPI rank, GPU LU: panel broadcast by host | cuda-aware | nccl | ipc")
        ->capture_default_str();
    app.add_flag("--compare-one-rank", o.compare_one_rank,
                 "more than one MPI rank: rank 0 also solves the problem alone (serial fill, LAPACK) and compares the "
                 "solution (1e-10 relative) and the RCS (1e-8 relative)");
    app.add_option("--dist-lu", o.dist_lu, "more than one MPI rank: scalapack (CPU default) | pliris (the GPU's right-looking "
                                           "LU with the right-hand side appended, any PxQ grid; on the CPU too)");
    app.add_option("--lookahead", o.lookahead, "more than one MPI rank, --dist-lu pliris: 1 = factor and send the next panel "
                                               "before the trailing GEMM, 0 = after it")
        ->capture_default_str()
      ->check(copa::cli::count(0, 1));
    if (const int rc = copa::parse_command_line(app, argc, argv); rc >= 0) return rc;
    if (fallback != "on" && fallback != "off") throw copa::InputError("--irs-fallback must be on or off (got '" + fallback + "')");
    o.solver.fallback = fallback == "on";
    o.solver.fallback_given = app.count("--irs-fallback") > 0;
    o.solver.max_iters_given = app.count("--irs-max-iters") > 0;
    if (o.fill_only && o.solver.irs()) throw copa::InputError("--solver " + o.solver.solver + " with --fill-only: there is no solve to run it");
    if (o.lookahead != 0 && o.lookahead != 1) throw copa::InputError("--lookahead must be 0 or 1");
    efie::dist::parse_proc_grid(o.proc_grid, copa::mpi::size());
    if (app.count("--block-size") && o.block_size < 1) throw copa::InputError("--block-size must be at least 1");
    copa::halo::parse_transport(o.transport);
    if (!o.dist_lu.empty() && o.dist_lu != "scalapack" && o.dist_lu != "pliris")
      throw copa::InputError("--dist-lu must be scalapack or pliris (got '" + o.dist_lu + "')");
    if (o.solver.irs() && copa::mpi::size() > 1)
      throw copa::InputError("--solver " + o.solver.solver + ": the mixed-precision solve runs on one rank (the distributed LU is FP64)");
    // bad names and values exit 2 before any work
    make_formulation(o.formulation, o.cfie_alpha, parse_complex(o.eps_r, "--eps-r"), parse_complex(o.mu_r, "--mu-r"));
    if (o.formulation != "efie" && (o.problem.geometry == "plate" && o.problem.mesh_file.empty()))
      throw copa::InputError("--formulation " + o.formulation + " needs a closed surface: --geometry plate is open");
    {
      const auto m = lu_methods();
      if (std::find(m.begin(), m.end(), o.lu_method) == m.end())
        throw copa::InputError("--lu must be one of getrf, xgetrf-alg0, xgetrf-alg1 (got '" + o.lu_method + "')");
    }
    // --size is a common option; validate it here so that a bad value names the option.
    size_target_unknowns(p.size = o.common.size);
    if (o.common.reps < 1) throw copa::InputError("--reps must be at least 1");
    if (o.common.warmup < 0) throw copa::InputError("--warmup must be non-negative");
    if (o.tolerance_db <= 0) throw copa::InputError("--tolerance-db must be positive");
    // Each sampled entry is recomputed on the host from 8 triangle pairs and read back one by one.
    if (o.sampled_entries < 0 || o.sampled_entries > 1000000) throw copa::InputError("--sampled-entries must be in [0, 1000000]");
    copa::require_writable_output("--json", o.common.json);
    copa::require_writable_output("--rcs", o.rcs_file);
    if (o.vtk.every > 0) throw copa::InputError("--vtk-every: mom-efie has no time steps (--vtk writes the solved currents)");
    if (o.vtk.enabled() && o.fill_only) throw copa::InputError("--vtk: --fill-only solves for no currents");
    if (o.vtk.enabled() && copa::mpi::size() > 1) throw copa::InputError("--vtk: not done over MPI ranks; run on one rank");
    copa::vtk::prepare(o.vtk);
    if (o.common.list) {
      registry().print(std::cout);
      return 0;
    }
    const auto backends = copa::requested_backends(o.common);
    for (auto b : backends) {  // every backend's refusal before any work
      check_solver(o.solver, b);
      select_variant(o.common, b, copa::mpi::size());
    }
    int rc = 0, ran = 0;
    if (copa::mpi::size() > 1) {
      const efie::dist::DistOptions d{o.common, o.problem, o.formulation, o.rcs_file, o.tolerance_db, o.fill_only,
                                      o.proc_grid, o.block_size, o.transport, o.compare_one_rank, o.dist_lu,
                                      o.lookahead == 1};
      for (auto b : backends) {
        rc = std::max(rc, efie::dist::run_distributed(d, b, backends.size() > 1, argc, argv));
        ++ran;
      }
    } else {
      for (auto b : backends) {
        AppOptions ob = o;  // the first backend writes the ParaView output
        if (b != backends.front()) ob.vtk = {};
        rc = std::max(rc, run_backend(ob, b, backends.size() > 1, argc, argv));
        ++ran;
      }
    }
    // --backend all: one run per backend built, none skipped (a refusal stops the run before any work).
    if (backends.size() > 1 && copa::mpi::is_root()) std::cout << copa::runs_line(ran, {}) << "\n";
    return rc;
  });
}
