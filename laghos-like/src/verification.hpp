// The verdict of a run (README "Verification"): against Laghos's table, the serial oracle of the
// same run, a one-rank run of the same mesh, or total-energy conservation; NOT VERIFIED where no
// reference could fail. Also the state checksum that compares runs bit for bit.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "copa/backend.hpp"
#include "copa/report.hpp"
#include "copa/variants.hpp"
#include "discretization.hpp"
#include "hydro.hpp"
#include "mesh.hpp"
#include "reference.hpp"

namespace laghos {

// N ranks against one: the same step count and |e| to this relative difference (interface sums
// and dots change the association, not the algorithm).
inline constexpr double kOneRankTolerance = 1e-10;
// A backend against the serial oracle of the same run (relative |e|).
inline constexpr double kSerialTolerance = 1e-10;

// FNV-1a (64-bit) over the bytes of the final state (x, v, e), as 16 hex digits.
std::string state_checksum(const std::vector<double>& state);
// Largest of max |a - b| / max |b| over the fields x, v and e (vs = H1 vector size); infinity when
// the sizes differ.
double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b, std::size_t vs);

// The one-rank run that --compare-one-rank holds an N-rank run to (rank 0's values, on every rank).
struct OneRankRun {
  long long steps = 0;
  double e_norm = 0.0;
  double state_difference = 0.0;  // max_relative_difference of the gathered state
};
// Rank 0 runs the whole mesh alone on the same backend and selection, compares the gathered state
// (global_state) with its own (solution.state_vs_one_rank in `sol`, printed); the other ranks wait.
// Every rank returns rank 0's values. Collective.
OneRankRun run_one_rank(const CartesianMesh& mesh, const ProblemSpec& spec, RunOptions run, copa::Backend backend,
                        const copa::Selection& selection, const std::vector<double>& global_state,
                        nlohmann::json& sol);

// What the verdict is chosen from.
struct VerdictInput {
  const RunResult* result = nullptr;
  std::optional<OneRankRun> one_rank;  // --compare-one-rank
  std::optional<LaghosRun> reference;  // --laghos-run N, not truncated
  double table_tolerance = 1e-8;       // --tolerance
  double serial_e = 0.0;               // the serial oracle's |e| in this run (NaN: none yet)
  bool against_serial = false;         // a non-serial backend of a --backend all run
  bool taylor_source = false;          // energy is injected: no conservation check
  double energy_bound = -1.0;          // <= 0: none
  double energy_relative_change = 0.0;
};
copa::Verification verdict(const VerdictInput& in);

}  // namespace laghos
