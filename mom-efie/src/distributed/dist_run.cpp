#include "distributed/dist_run.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

#include "copa/errors.hpp"
#include "copa/halo.hpp"
#include "copa/mpi.hpp"
#include "copa/report.hpp"
#include "cost_model.hpp"
#include "distributed/dist_engine.hpp"
#include "distributed/owned_fill.hpp"
#include "kernels.hpp"
#include "variants.hpp"
#include "run_report.hpp"
#include "reference.hpp"
#include "verify.hpp"

namespace efie::dist {
namespace {

// Host bytes per triangle of the problem data every rank builds (kernels' engines.cpp value).
constexpr double host_bytes_per_triangle = 2048;

// Refused before the mesh is built (exit 3), from the options alone: this rank's block and the
// problem data on the host (or on the device for the GPU engine), and on rank 0 the one-rank
// comparison's full matrix when it is asked for. Ranks sharing a node each check the free memory
// alone (they do not see each other's share).
void require_rank_memory(const DistOptions& o, copa::Backend b, long nb, ProcGrid grid) {
  const SizeEstimate size = estimate_size(o.problem, wavenumber(o.problem));
  const BlockCyclic est(long(size.unknowns), nb, grid, copa::mpi::rank());
  char what[200];
  std::snprintf(what, sizeof what, "rank %d's %ldx%ld block of the %.4g-unknown EFIE matrix (grid %dx%d, nb %ld)",
                copa::mpi::rank(), est.local_rows, est.local_cols, size.unknowns, grid.p, grid.q, nb);
  if (size.unknowns > 2147483647.0) throw copa::RuntimeError(std::string(what) + ": N exceeds the 32-bit dimensions of the LU");
  double host = host_bytes_per_triangle * size.triangles;
  if (!copa::is_gpu(b)) host += 16.0 * est.local_entries() + 8.0 * double(est.local_rows + nb);
  if (o.compare_one_rank && copa::mpi::is_root()) host += 16.0 * size.unknowns * size.unknowns;
  copa::require_host_memory(std::size_t(std::min(host, 1e19)), std::string(what) + " on the host");
  if (copa::is_gpu(b)) gpu_dist_require_memory(est, std::string(what) + " on the device");
}

// Owned entries against the serial pair formula (verify.hpp): the diagonal entries this rank owns
// (up to 8) and `samples` others, with a near neighbour each; max |diff| / max |reference| over ranks.
double sampled_owned_error(const Problem& p, const BlockCyclic& layout, DistEngine& engine, int samples) {
  std::vector<std::array<long, 2>> at;
  for (long l = 0; l < layout.local_rows && at.size() < 8; ++l) {
    const long g = layout.global_row(l), c = layout.local_col(g);
    if (c >= 0) at.push_back({l, c});
  }
  if (layout.local_rows > 0 && layout.local_cols > 0) {
    std::mt19937_64 rng(12345 + copa::mpi::rank());
    std::uniform_int_distribution<long> row(0, layout.local_rows - 1), col(0, layout.local_cols - 1);
    for (int s = 0; s < samples; ++s) {
      const long r = row(rng);
      at.push_back({r, col(rng)});
      // a column of a near neighbour of the row's unknown, when this rank owns it
      const Triangle& t = p.triangles[p.rwg[layout.global_row(r)].tri[0]];
      for (int b : t.basis)
        if (b >= 0 && layout.local_col(b) >= 0) at.push_back({r, layout.local_col(b)});
    }
  }
  const auto got = engine.local_entries(at);
  double max_diff = 0, max_ref = 0;
  for (std::size_t e = 0; e < at.size(); ++e) {
    const complex ref = reference_entry(p, layout.global_row(at[e][0]), layout.global_col(at[e][1]));
    max_diff = std::max(max_diff, std::abs(got[e] - ref));
    max_ref = std::max(max_ref, std::abs(ref));
  }
  max_diff = copa::mpi::max_all(max_diff);
  max_ref = copa::mpi::max_all(max_ref);
  return max_ref > 0 ? max_diff / max_ref : 0.0;
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b, double& scale) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::fabs(a[i] - b[i]));
    scale = std::max(scale, std::fabs(b[i]));
  }
  return d;
}

struct OneRankCheck {
  double solution_rel = 0, rcs_rel = 0;
  bool passed = true;
};

// Rank 0: the same problem on one rank (the host engine: serial fill in oracle order, LAPACK
// zgetrf/zgetrs), compared with the distributed solution and RCS.
OneRankCheck compare_one_rank(const Problem& p, const std::vector<complex>& rhs, const std::vector<complex>& x,
                              const RcsCuts& cuts) {
  OneRankCheck c;
  auto engine = make_engine(copa::Backend::serial, default_selection(copa::Backend::serial), p.unknowns(), p.triangle_count());
  engine->upload(p);
  copa::Profile scratch;
  auto timer = engine->make_timer(scratch);
  engine->fill(*timer);
  engine->factor(*timer);
  std::vector<complex> x1 = rhs;
  engine->solve(x1, *timer);
  double dx = 0, sx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    dx = std::max(dx, std::abs(x[i] - x1[i]));
    sx = std::max(sx, std::abs(x1[i]));
  }
  c.solution_rel = dx / sx;
  const RcsCuts c1 = bistatic_rcs(p, x1);
  double scale = 0;
  const double de = max_abs_diff(cuts.e_plane, c1.e_plane, scale), dh = max_abs_diff(cuts.h_plane, c1.h_plane, scale);
  c.rcs_rel = std::max(de, dh) / scale;
  c.passed = c.solution_rel <= 1e-10 && c.rcs_rel <= 1e-8;
  return c;
}

copa::KernelCost cost_of(const std::string& region, double n, double ranks, double pair_evaluations) {
  copa::KernelCost c;
  if (region == "fill" || region == "fill.owned") {
    c.flops = flops_per_triangle_pair * pair_evaluations;
    c.bytes_written = 16 * n * n / ranks;
  } else if (region == "lu") {
    c.flops = 8.0 / 3.0 * n * n * n / ranks;
    c.bytes_read = c.bytes_written = 16 * n * n / ranks;
    c.precision = copa::Precision::fp64_matrix;
  } else if (region == "solve") {
    c.flops = 8 * n * n / ranks;
    c.bytes_read = 16 * n * n / ranks;
  }
  return c;
}

}  // namespace

long default_block_size(copa::Backend b) { return copa::is_gpu(b) ? 512 : 64; }

int run_distributed(const DistOptions& o, copa::Backend backend, bool several, int argc, char** argv) {
  const int ranks = copa::mpi::size(), rank = copa::mpi::rank();
  const bool gpu = copa::is_gpu(backend);
  if (o.formulation != "efie")
    throw copa::InputError("--formulation " + o.formulation + " on " + std::to_string(ranks) +
                           " ranks: the distributed matrix is the EFIE's only (run the other formulations on one rank)");
  const copa::Selection variant = select_variant(o.common, backend, ranks);
  // The Pliris-style LU's default grid is 1 x ranks (panel pivoting local to the owner, lookahead);
  // P x Q grids with P > 1 pivot across the process rows (pliris_lu_2d.hpp).
  const bool one_row = gpu || o.dist_lu == "pliris";
  const ProcGrid grid = one_row && o.proc_grid.empty() ? ProcGrid{1, ranks} : parse_proc_grid(o.proc_grid, ranks);
  const long nb = o.block_size > 0 ? o.block_size : default_block_size(backend);
  const auto tr = copa::halo::parse_transport(o.transport);
  if (!gpu && tr != copa::halo::Transport::host)
    throw copa::InputError("--transport " + o.transport + ": the CPU backends' distributed LU (ScaLAPACK or pliris) communicates "
                           "by host MPI: use host");
  if (gpu && !gpu_dist_built())
    throw copa::InputError("--backend " + copa::to_string(backend) + " on " + std::to_string(ranks) +
                           " ranks: this build has no distributed GPU LU (a CUDA + MPI build has it)");
  const std::string lu = o.dist_lu.empty() ? (gpu ? "pliris" : "scalapack") : o.dist_lu;
  if (lu != "scalapack" && lu != "pliris") throw copa::InputError("--dist-lu must be scalapack or pliris (got '" + lu + "')");
  if (gpu && lu != "pliris") throw copa::InputError("--dist-lu " + lu + ": the GPU backends' distributed LU is pliris");
  const int threads = copa::apply_threads(o.common.threads);
  int device = -1;
  if (gpu) device = copa::select_device(o.common.device);
  require_rank_memory(o, backend, nb, grid);

  auto build = [&] {
    Mesh mesh = build_mesh(o.problem, wavenumber(o.problem));
    return make_problem(std::move(mesh), wavenumber(o.problem), o.problem.radius, plane_wave(o.problem));
  };
  Problem problem = build();
  std::string not_sphere;
  const double sphere_r = sphere_radius_for_mie(o.problem, problem, not_sphere);
  if (sphere_r > 0) problem.radius = sphere_r;
  const long n = problem.unknowns(), nt = problem.triangle_count();
  const BlockCyclic layout(n, nb, grid, rank);
  const OwnedTriangles owned = owned_triangles(problem, layout);
  auto engine = gpu ? make_gpu_dist_engine(layout, o.transport, o.lookahead) : make_host_dist_engine(layout, threads, lu, o.lookahead);
  const std::vector<complex> rhs = plane_wave_rhs(problem);

  copa::Profile profile, warm_profile;
  RcsCuts cuts;
  std::vector<complex> x;
  std::vector<double> e2e;
  for (int it = 0; it < o.common.warmup + o.common.reps; ++it) {
    const bool timed = it >= o.common.warmup;
    copa::mpi::barrier();  // every rank starts the end-to-end clock together
    auto timer = engine->make_timer(timed ? profile : warm_profile);
    const double t0 = copa::host_seconds();
    if (it > 0) {
      problem = build();
      if (sphere_r > 0) problem.radius = sphere_r;
    }
    {
      copa::Region r(*timer, "fill");
      engine->fill(problem, *timer);
    }
    if (!o.fill_only) {
      x = engine->solve(rhs, *timer);
      cuts = bistatic_rcs(problem, x);
    }
    timer->flush();
    if (timed) e2e.push_back(copa::host_seconds() - t0);
  }
  // The solve factored the block in place: refill (untimed) for the sampled-entry check.
  if (!o.fill_only) {
    copa::Profile scratch;
    auto timer = engine->make_timer(scratch);
    engine->fill(problem, *timer);
    timer->flush();
  }
  const double sample_err = sampled_owned_error(problem, layout, *engine, 32);

  copa::Report report = start_report(o.common, backend, variant, threads, device, argc, argv);
  report.set_mpi(ranks);
  report.set_transport(gpu ? o.transport : lu == "pliris" ? std::string("host") : std::string("host (ScaLAPACK/BLACS over MPI)"));
  const std::string grid_text = std::to_string(grid.p) + "x" + std::to_string(grid.q) + " nb=" + std::to_string(nb);
  nlohmann::json decomposition = copa::Report::make_decomposition(grid_text, layout.local_entries(), "owned matrix entries");
  {
    const auto& w = decomposition["local_work"];
    double sum = 0, mx = 0;
    for (const auto& v : w) {
      sum += v.get<double>();
      mx = std::max(mx, v.get<double>());
    }
    decomposition["imbalance"] = sum > 0 ? mx / (sum / double(w.size())) : 1.0;
    decomposition["grid"] = {grid.p, grid.q};
    decomposition["block_size"] = nb;
    decomposition["pair_evaluations"] = copa::mpi::gather_all(owned.pair_evaluations());
  }
  report.set_decomposition(decomposition);
  auto& pj = report.problem();
  pj["geometry"] = o.problem.mesh_file.empty() ? o.problem.geometry : ("mesh " + o.problem.mesh_file);
  pj["size"] = o.problem.size;
  pj["unknowns"] = n;
  pj["triangles"] = nt;
  pj["k"] = problem.k;
  pj["radius"] = problem.radius;
  pj["ka"] = problem.k * problem.radius;
  pj["mean_edge"] = problem.summary.mean_edge;
  pj["elements_per_wavelength"] = 2 * M_PI / problem.k / problem.summary.mean_edge;
  pj["near_factor"] = near_factor;
  pj["fill_only"] = o.fill_only;
  pj["formulation"] = "efie";

  for (const auto& name : profile.names())
    report.add_kernel(profile, name, cost_of(name, double(n), double(ranks), owned.pair_evaluations()));
  copa::Profile e2e_profile;
  for (double t : e2e) e2e_profile.add(o.fill_only ? "end_to_end(mesh..fill)" : "end_to_end(mesh..rcs)", t);
  for (const auto& name : e2e_profile.names()) report.add_kernel(e2e_profile, name, {});
  report.reduce_over_ranks();  // every row's time is now the MAX over ranks

  auto median_of = [&](const std::string& name) {
    for (const auto& k : report.kernels())
      if (k.name == name) return k.time.median;
    return 0.0;
  };
  const double t_fill = median_of("fill"), pairs = double(nt) * double(nt);
  nlohmann::json mom;
  mom["triangle_pairs"] = pairs;
  mom["triangle_pairs_per_s"] = pairs / t_fill;
  mom["pair_evaluations_all_ranks"] = copa::mpi::sum(owned.pair_evaluations());
  mom["fill_model"] =
      "each rank evaluates the triangle pairs (t, s) with t touching an owned row and s an owned column, both ways "
      "round (P_mn and P_nm of A = (P + P^T)/2): 2 |T_rows| |T_cols| pairs (decomposition.pair_evaluations), "
      "2335 FLOPs each (the study count); the FOM counts N_T^2 pairs over the slowest rank's fill";
  mom["matrix_bytes_per_rank"] = copa::mpi::gather_all(16.0 * layout.local_entries());
  if (!o.fill_only) {
    const double t_lu = median_of("lu");
    mom["lu_tflops"] = 8.0 / 3.0 * double(n) * double(n) * double(n) / t_lu * 1e-12;
    mom["lu_flop_model"] = "complex LU: (8/3) N^3 real FLOPs (4 real FLOPs per complex multiply-add x (2/3) N^3), "
                           "over the slowest rank's time";
    mom["lu_method"] = engine->lu_name();
  }
  mom["sampled_entry_rel_error_vs_serial"] = sample_err;
  mom["distributed"] = engine->details();

  copa::Verification v;
  const bool mie_check = sphere_r > 0 && !o.fill_only;
  const double ka = problem.k * problem.radius;
  if (mie_check) {
    const double rms = rms_db_error(cuts, ka);
    mom["rms_db_error"] = rms;
    mom["monostatic_sigma_over_pia2"] = {{"efie", 0.5 * (cuts.e_plane.back() + cuts.h_plane.back())}, {"mie", mie_monostatic(ka)}};
    v = {"Mie series (PEC sphere)", "rms_db_error", rms, o.tolerance_db, rms <= o.tolerance_db};
  } else {
    v = {"serial pair formula (sampled owned entries)", "max_rel_entry_error", sample_err, 1e-12, sample_err <= 1e-12};
  }
  // The owned entries must match the serial formula whatever the verdict's reference.
  if (sample_err > 1e-12) v = {"serial pair formula (sampled owned entries)", "max_rel_entry_error", sample_err, 1e-12, false};
  if (o.compare_one_rank && !o.fill_only && copa::mpi::is_root()) {
    const OneRankCheck c = compare_one_rank(problem, rhs, x, cuts);
    mom["one_rank_check"] = {{"reference", "one rank: serial fill, LAPACK zgetrf/zgetrs"},
                             {"solution_max_rel_diff", c.solution_rel}, {"solution_tolerance", 1e-10},
                             {"rcs_max_rel_diff", c.rcs_rel}, {"rcs_tolerance", 1e-8}, {"passed", c.passed}};
    if (!o.common.quiet)
      std::cout << "one-rank check: solution max rel diff " << c.solution_rel << " (tolerance 1e-10), RCS max rel diff "
                << c.rcs_rel << " (tolerance 1e-8)\n";
    if (c.solution_rel > 1e-10)
      v = {"one rank (LAPACK zgetrf/zgetrs)", "solution_max_rel_diff", c.solution_rel, 1e-10, false};
    else if (c.rcs_rel > 1e-8)
      v = {"one rank (LAPACK zgetrf/zgetrs)", "rcs_max_rel_diff", c.rcs_rel, 1e-8, false};
    v.one_rank_check = copa::Verification::OneRankCheck{c.solution_rel == 0 && c.rcs_rel == 0, "solution_max_rel_diff",
                                                        c.solution_rel};
  }
  report.extra()["mom"] = mom;
  report.set_verification(v);
  report.set_fom({"fill triangle pairs per second", pairs / t_fill * 1e-9, "Gpairs/s"});

  if (copa::mpi::is_root()) {
    if (!o.rcs_file.empty() && !o.fill_only) write_rcs_csv(several ? copa::json_path_for(o.rcs_file, backend, true) : o.rcs_file, cuts);
    if (!o.common.quiet) {
      std::cout << "distributed: " << ranks << " ranks, grid " << grid_text << ", local block " << layout.local_rows << " x "
                << layout.local_cols << " on rank 0, LU " << (o.fill_only ? std::string("none (--fill-only)") : engine->lu_name())
                << "\n";
      report.print(std::cout);
      if (!o.fill_only) {
        std::cout << "LU: " << mom["lu_tflops"].get<double>() << " TFLOP/s ((8/3) N^3 over the slowest rank's time)";
        const auto& d = mom["distributed"];
        if (d.contains("panels"))
          std::cout << "; panel broadcast (" << d["transport"].get<std::string>() << ", rank 0): " << d["panels"].get<long>()
                    << " panels, " << 1e3 * d["panel_broadcast_seconds_mean"].get<double>() << " ms per panel, "
                    << 1e3 * d["panel_broadcast_seconds_total"].get<double>() << " ms in all";
        std::cout << "\n";
      }
    } else {
      report.print_verdict(std::cout);  // --quiet: the verdict line only, as on one rank
    }
    if (!o.common.json.empty()) report.write_json(copa::json_path_for(o.common.json, backend, several));
  }
  const int rc = !v.verified || v.passed ? copa::exit_ok : copa::exit_verification_failed;
  return int(copa::mpi::max_all(double(rc)));
}

}  // namespace efie::dist
