// The verdict of a run: the external reference of its problem evaluated at the time the run
// reached (the exact Riemann solution, the Sedov-Taylor radius and the linear sound wave exist at
// any t), where that reference applies; conservation of mass and energy with closed boundaries;
// NOT VERIFIED, with the reason, when neither applies.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "copa/report.hpp"
#include "hydro/mesh.hpp"
#include "hydro/problems.hpp"
#include "hydro/reference.hpp"

namespace ro {

struct PhysicsVerdict {
  copa::Verification v;
  nlohmann::json extra;  // the figures behind the verdict (JSON "physics")
};

// The problem's reference at time t, or not_verified(reason) where it does not apply (Sod with a
// periodic tube or waves at the tube's ends, Sedov without xi0 for gamma, unresolved or leaving the
// box, the sound wave without periodic boundaries). accuracy_dx (0: m's dx) is the cell size that
// sets the sound wave's tolerance: an AMR run sampled on its finest mesh passes the dx of its
// coarsest level that holds leaves, since a smooth wave's L1 error over the box is that level's.
copa::Verification reference_verdict(const OctMesh& m, const ProblemParams& pp, const std::string& slope,
                                     const std::vector<double>& u, double t, nlohmann::json& extra,
                                     double accuracy_dx = 0);

// The reference verdict combined with the conservation check (closed boundaries: every face
// periodic or reflecting). t0 holds the initial totals.
PhysicsVerdict check_physics(const OctMesh& m, const ProblemParams& pp, const std::string& slope,
                             const std::vector<double>& u, double t, const Totals& t0, double accuracy_dx = 0);

// The verdict of backend b's final state u: the physics verdict ph on the serial oracle (whose state
// is kept in oracle); on every other backend the relative L2 distance to the oracle below
// cross_backend_tolerance, with the physics reference passed where one applies (agreement with the
// oracle is a check that can fail even where no physics reference applies). Records the distance as
// the report's "cross_backend" and, unless quiet, prints the physics verdict it replaces.
copa::Verification backend_verdict(copa::Backend b, const std::vector<double>& u, std::vector<double>& oracle,
                                   const PhysicsVerdict& ph, copa::Report& rep, bool quiet);
inline constexpr double cross_backend_tolerance = 1e-12;

// --compare-one-rank: records the check (checksums alone and over ranks, the one-rank end time,
// bitwise equality, largest difference) in the report, prints it unless quiet, and makes v a
// failure when the bits differ.
void record_one_rank_check(copa::Report& rep, copa::Verification& v, const std::string& checksum_one_rank,
                           const std::string& checksum_ranks, double t_one_rank, bool same, double diff, int nranks,
                           bool quiet);

// Relative change of mass and energy allowed with closed boundaries (compensated totals: README).
inline constexpr double conservation_tolerance = 1e-12;
// Sedov: the shock must span this many cells before the binned-density peak measures the
// self-similar radius.
inline constexpr double sedov_min_radius_cells = 6.0;

}  // namespace ro
