// The JSON `solution` object and the printed lines of a run's linear solve: the solver and its
// settings, what the IRS did (iterations, fallback, residual), its solve time, and how far its
// solution and RCS lie from the FP64 LU's of the same matrix and from Mie.
#pragma once
#include <complex>
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "copa/timing.hpp"
#include "problem.hpp"
#include "solver.hpp"

namespace efie {

struct SolutionRecord {
  const SolverOptions& options;
  std::string refinement;  // the one in force (resolved_refinement)
  const IrsResult& irs;
  double condition_estimate;  // ||A||_1 ||A^-1||_1 estimate, 0 when none
  const copa::Profile& profile;
  const std::vector<std::complex<double>>& x_irs;  // empty for --solver lu
  const std::vector<std::complex<double>>& x_lu;
  const RcsCuts& cuts;  // of the solver's solution
  const RcsCuts& cuts_lu;
  double lu_relative_residual = -1;  // against the kept matrix (--solver irs-*), -1 when not measured
  double rms_db = -1, rms_db_lu = -1;  // against Mie, -1 when there is no Mie reference
};

nlohmann::json solution_json(const SolutionRecord& r);
void print_solution(std::ostream& out, const SolutionRecord& r);

// ||a - b||_2 / ||b||_2 of two solutions, and of two RCS (both cuts together).
double relative_difference(const std::vector<std::complex<double>>& a, const std::vector<std::complex<double>>& b);
double rcs_relative_difference(const RcsCuts& a, const RcsCuts& b);

}  // namespace efie
