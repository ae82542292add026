// Regridding (host): flag cells, add a one-cell buffer, enforce 2:1 balance, then build the new
// tree top-down (refined flagged leaves get prolonged sons, refined cells left unflagged lose
// their sons and keep the restriction) and move the state onto it.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "amr/amr_flags_body.hpp"
#include "amr/amr_regrid_body.hpp"
#include "amr/amr_ranks.hpp"
#include "amr/amr_solver.hpp"
#include "amr/amr_tree.hpp"
#include "hydro/hydro_math.hpp"
#include "hydro/problems.hpp"

namespace ro::amr {

struct RefineCriterion {
  // gradient: a cell is flagged where the relative jump 2|q_n - q|/(|q_n| + |q|) to one of its six
  // face neighbours exceeds the threshold, q = density or pressure (RAMSES err_grad_d/err_grad_p).
  // everywhere: every cell (full refinement, a test). band: the cells that overlap
  // band_lo <= x <= band_hi (a static refined band, a test).
  std::string kind = "gradient";
  double density = 0.1, pressure = 0.1;
  double band_lo = 0.25, band_hi = 0.5;
  // Buffer passes (RAMSES's nexpand, --refine-buffer): a flagged cell of level l < L refines with
  // its neighbours up to `buffer` cells of level l away, so the finest level reaches at least
  // 2 buffer fine cells beyond the oct of a flagged fine cell. A feature moves at most C fine cells
  // per step (C the Courant number: no feature outruns the signal speed), so it stays on the
  // finest level for 2 buffer / C steps: the regrid interval may grow with the buffer.
  int buffer = 1;
};

// A regrid in four parts, so that the GPU path runs the two that read the state on the device
// (amr_regrid_body.hpp holds their bodies, shared) and the host sees only the criterion bytes.

// (1) The criterion byte of every cell (amr_flags_body.hpp: 1 flagged; 2 a missing neighbour).
// u may be empty for the kinds that read no state (everywhere, band).
void criterion_flags(const Tree& t, const std::vector<double>& u, const RefineCriterion& rc, double gamma,
                     const Loops& loops, std::vector<char>& crit);
// (2) Flags of every cell of levels < L after the criterion, `buffer` buffer passes and the 2:1
// balance (amr_flags_body.hpp's passes, each over the octs in parallel; the flags do not depend on
// the loops). Exit 3 (RuntimeError, check_flags_error's messages) where the tree was not balanced.
std::vector<char> refinement_flags(const Tree& t, const std::vector<char>& crit, int buffer, const Loops& loops);

// The criterion as the flag bodies take it (dx0: the base level's cell size).
CriterionParams criterion_params(const RefineCriterion& rc, double gamma, double dx0);
// Throws the host regrid's RuntimeError for a flags error word (flags_error_*); nothing for 0.
void check_flags_error(unsigned word);
// The device flags (amr_gpu.cu: the criterion kernel, then the flag kernels) run on the host in
// launch order through the same bodies, the buffer pass from one array into another and the
// balance storing 1 into the coarser level: crit and flag as the device leaves them, and the
// device's error word. It must give criterion_flags and refinement_flags byte for byte (cpu test)
// and is the emulated device's regrid in the GPU-path test.
// combine: where given, called on the criterion bytes before the flags (over MPI ranks: every
// owner's bytes combined, as DeviceStep::set_ranks does on the device).
unsigned emulate_device_flags(const Tree& t, const std::vector<double>& u, const CriterionParams& p,
                              std::vector<char>& crit, std::vector<char>& flag,
                              const std::function<void(std::vector<char>&)>& combine = {});

// (3) The new tree from the flags (t is replaced and relinked) and how its state comes from the
// old tree's. Exit 3 (RuntimeError) when it would exceed max_octs, before it is built.
struct RegridMap {
  std::int64_t old_noct = 0;
  std::vector<std::int32_t> source;  // per new oct: its old oct (>= 0) or -1 - r, prolonged from row r
  std::vector<std::int64_t> src;     // 7 per row: the old father cell, then its -x,+x,-y,+y,-z,+z neighbours
  std::vector<std::uint8_t> flip;    // 7 per row: bits of the axes whose momentum flips
  // Every oct kept in place: the new tree is the old one.
  bool unchanged() const {
    if (static_cast<std::int64_t>(source.size()) != old_noct) return false;
    for (std::size_t i = 0; i < source.size(); ++i)
      if (source[i] != static_cast<std::int32_t>(i)) return false;
    return true;
  }
};
RegridMap rebuild_tree(Tree& t, const std::vector<char>& flag, std::int64_t max_octs, const Loops& loops);
// rebuild_tree's first part (the GPU regrid rebuilds on the device, amr_rebuild_body.hpp):
// t's octs (keys, levels, coordinates, level_begin) are the new tree's, but its father, son,
// neighbour and hash tables are still the old tree's until link(t).
RegridMap rebuild_tree_unlinked(Tree& t, const std::vector<char>& flag, std::int64_t max_octs,
                                const Loops& loops);
// (4) The state on the new tree (move_cell and move_put_son per new cell): u_old over the old tree -> u.
// With owner (over ranks: the new tree, partitioned), only the octs it owns are moved.
void move_state(const RegridMap& m, const std::vector<double>& u_old, double gamma, const Loops& loops,
                std::vector<double>& u, const Tree* owner = nullptr);

// The four parts on the host: the new tree and its state (restricted u in, restricted state out).
// Over ranks (comm): the criterion on the owned octs, combined; the new tree partitioned by comm,
// only its owned octs' state moved, then re-cut where the work is imbalanced (RankComm::rebalance;
// the caller then fills the ghosts of the new tree).
void regrid(Tree& t, std::vector<double>& u, const RefineCriterion& rc, double gamma, std::int64_t max_octs,
            const Loops& loops, RankComm* comm = nullptr);

// The initial tree: L rounds of (regrid, set every cell from the problem at its level, restrict).
void initial_grid(Tree& t, std::vector<double>& u, const ProblemParams& pp, const RefineCriterion& rc,
                  std::int64_t max_octs, const Loops& loops);

}  // namespace ro::amr
