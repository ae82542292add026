// The verdict of a run (README, "Verification"): Mie for a solved sphere, else the sampled oracle,
// a filled matrix checked against the serial formula without the whole serial matrix: entries
// recomputed on the host from their 4 triangle pairs.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "copa/report.hpp"
#include "kernels.hpp"

namespace efie {

// A_mn = (P_mn + P_nm) / 2 by the pair formula, near pairs from the problem's near list.
complex reference_entry(const Problem& p, long m, long n);

// max |A_e - reference| / max |reference| over `samples` pseudo-random entries plus the diagonal's
// first entries (which hold the singular self terms).
double sampled_entry_error(const Problem& p, Engine& engine, int samples, unsigned seed = 12345);

struct RunCheck {
  const Problem& problem;  // problem.radius: the sphere's when sphere_radius > 0
  Engine& engine;          // refilled (untimed) for the sampled oracle
  const Formulation& form;
  const RcsCuts& cuts;  // of the solver's solution (not used with fill_only)
  double sphere_radius;  // 0: not a sphere (no Mie series)
  bool fill_only;
  int sampled_entries;
  double tolerance_db;
  std::string eps_r, mu_r;  // as given (--eps-r, --mu-r), for the reference's name
  std::string not_sphere;   // why there is no Mie series when sphere_radius is 0
};
// Mie when the run solved a sphere (RMS dB over both cuts <= tolerance_db); otherwise, for the
// EFIE, the sampled oracle (max relative entry error <= 1e-12); otherwise NOT VERIFIED. Adds the
// compared values to `mom` (rms_db_error, monostatic and 90-degree values, sampled error).
copa::Verification check_run(const RunCheck& c, nlohmann::json& mom);

}  // namespace efie
