// Run configurations shared by the AMR tests (test_amr.cpp, and the slow test_amr_slow.cpp).
#pragma once
#include <cmath>
#include <string>

#include "amr_driver.hpp"

namespace ro::amr_test {

inline RunConfig amr_config(const std::string& problem, double tend, long steps, int slope = 1) {
  RunConfig cfg;
  cfg.problem.name = problem;
  cfg.hydro.slope_type = slope;
  cfg.tend = tend;
  cfg.max_steps = steps;
  return cfg;
}

inline amr::AmrConfig amr_levels(int levels, const std::string& kind, int regrid_every) {
  amr::AmrConfig ac;
  ac.levels = levels;
  ac.criterion.kind = kind;
  ac.regrid_every = regrid_every;
  ac.max_octs = 1 << 26;
  return ac;
}

inline double rel_change(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

}  // namespace ro::amr_test
