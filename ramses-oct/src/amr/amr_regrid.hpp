// Regridding (host): flag cells, add a one-cell buffer, enforce 2:1 balance, then build the new
// tree top-down (refined flagged leaves get prolonged sons, refined cells left unflagged lose
// their sons and keep the restriction) and move the state onto it. README, "AMR".
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "amr_solver.hpp"
#include "amr_tree.hpp"
#include "hydro_math.hpp"
#include "problems.hpp"

namespace ro::amr {

struct RefineCriterion {
  // gradient: a cell is flagged where the relative jump 2|q_n - q|/(|q_n| + |q|) to one of its six
  // face neighbours exceeds the threshold, q = density or pressure (RAMSES err_grad_d/err_grad_p).
  // everywhere: every cell (full refinement, a test). band: the cells that overlap
  // band_lo <= x <= band_hi (a static refined band, a test).
  std::string kind = "gradient";
  double density = 0.1, pressure = 0.1;
  double band_lo = 0.25, band_hi = 0.5;
};

// Flags of every cell of levels < L after the criterion, the buffer and the 2:1 balance.
std::vector<char> refinement_flags(const Tree& t, const std::vector<double>& u, const RefineCriterion& rc,
                                   double gamma, const Loops& loops);

// The new tree and its state (restricted u in, restricted state out). Exit 3 (RuntimeError) when
// the new tree would exceed max_octs, before it is allocated.
void regrid(Tree& t, std::vector<double>& u, const RefineCriterion& rc, double gamma, std::int64_t max_octs,
            const Loops& loops);

// The initial tree: L rounds of (regrid, set every cell from the problem at its level, restrict).
void initial_grid(Tree& t, std::vector<double>& u, const ProblemParams& pp, const RefineCriterion& rc,
                  std::int64_t max_octs, const Loops& loops);

}  // namespace ro::amr
