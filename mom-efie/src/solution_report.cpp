#include "solution_report.hpp"

#include <cmath>
#include <cstdio>

namespace efie {

double relative_difference(const std::vector<std::complex<double>>& a, const std::vector<std::complex<double>>& b) {
  double d = 0, s = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    d += std::norm(a[i] - b[i]);
    s += std::norm(b[i]);
  }
  return std::sqrt(d / s);
}

double rcs_relative_difference(const RcsCuts& a, const RcsCuts& b) {
  double d = 0, s = 0;
  for (std::size_t i = 0; i < b.e_plane.size(); ++i) {
    d += (a.e_plane[i] - b.e_plane[i]) * (a.e_plane[i] - b.e_plane[i]) + (a.h_plane[i] - b.h_plane[i]) * (a.h_plane[i] - b.h_plane[i]);
    s += b.e_plane[i] * b.e_plane[i] + b.h_plane[i] * b.h_plane[i];
  }
  return std::sqrt(d / s);
}

namespace {

nlohmann::json or_null(double v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); }

// Median seconds of the solve: the IRS call, or the FP64 LU and its triangular solves.
double solve_seconds(const SolutionRecord& r) {
  if (r.options.irs()) return r.profile.has("solve.irs") ? r.profile.stats("solve.irs").median : -1;
  if (!r.profile.has("lu") || !r.profile.has("solve")) return -1;
  return r.profile.stats("lu").median + r.profile.stats("solve").median;
}

double lu_seconds(const SolutionRecord& r) {
  if (!r.profile.has("lu") || !r.profile.has("solve")) return -1;
  return r.profile.stats("lu").median + r.profile.stats("solve").median;
}

}  // namespace

nlohmann::json solution_json(const SolutionRecord& r) {
  nlohmann::json j;
  j["solver"] = r.options.solver;
  j["condition_estimate_1norm"] = r.condition_estimate > 0 ? nlohmann::json(r.condition_estimate) : nlohmann::json(nullptr);
  j["solve_s"] = or_null(solve_seconds(r));
  j["lu_solve_s"] = or_null(lu_seconds(r));
  j["rms_db_error"] = or_null(r.rms_db);
  j["rms_db_error_lu"] = or_null(r.rms_db_lu);
  if (!r.options.irs()) {
    j["relative_residual_definition"] = "not measured with --solver lu (it needs a kept copy of the matrix)";
    return j;
  }
  j["refinement"] = r.refinement;
  j["fallback_enabled"] = r.options.fallback;
  j["max_iters"] = r.irs.max_iters;
  j["tolerance"] = "default: ||r||_inf < sqrt(N) ||x||_inf ||A||_inf eps(FP64)";
  j["niters"] = r.irs.niters;
  j["outer_niters"] = r.irs.outer_niters;
  j["converged"] = r.irs.niters > 0;
  j["fell_back"] = r.irs.fell_back;
  j["irs_workspace_bytes"] = r.irs.workspace_bytes;
  j["relative_residual"] = or_null(r.irs.relative_residual);
  j["relative_residual_lu"] = or_null(r.lu_relative_residual);
  j["relative_residual_definition"] = "||b - A x||_inf / (||A||_inf ||x||_inf), FP64, after the solve";
  j["solution_rel_error_vs_lu"] = relative_difference(r.x_irs, r.x_lu);
  j["rcs_rel_error_vs_lu"] = rcs_relative_difference(r.cuts, r.cuts_lu);
  j["speedup_vs_lu"] = solve_seconds(r) > 0 && lu_seconds(r) > 0 ? nlohmann::json(lu_seconds(r) / solve_seconds(r)) : nlohmann::json(nullptr);
  return j;
}

void print_solution(std::ostream& out, const SolutionRecord& r) {
  char line[512];
  std::snprintf(line, sizeof line, "solver %s: solve %.3f ms, condition estimate (1-norm) %.4g\n", r.options.solver.c_str(),
                1e3 * solve_seconds(r), r.condition_estimate);
  out << line;
  if (!r.options.irs()) return;
  const char* state = r.irs.niters > 0 ? "converged" : (r.irs.fell_back ? "fell back to FP64" : "NOT converged (no fallback)");
  std::snprintf(line, sizeof line,
                "  %s refinement: niters %d (%s), residual %.3g (FP64 LU %.3g); vs the FP64 LU (%.3f ms): solution %.3g, RCS %.3g",
                r.refinement.c_str(), r.irs.niters, state, r.irs.relative_residual, r.lu_relative_residual, 1e3 * lu_seconds(r),
                relative_difference(r.x_irs, r.x_lu), rcs_relative_difference(r.cuts, r.cuts_lu));
  out << line;
  if (r.rms_db >= 0) {
    std::snprintf(line, sizeof line, "; Mie %.4f dB (FP64 LU %.4f dB)", r.rms_db, r.rms_db_lu);
    out << line;
  }
  out << "\n";
}

}  // namespace efie
