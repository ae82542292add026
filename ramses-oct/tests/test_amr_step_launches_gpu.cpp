// The device step's tail in fewer launches: the reflux with the
// finest restriction in one launch, one launch per middle level, the coarsest restriction with the
// next step's scan, whose last block hands the words out through host-mapped memory and zeroes
// them. Each tree below takes one path: nothing refined (no restriction: the scan alone), one
// refined level (the restriction shares the reflux launch, the scan runs alone), two levels (the
// coarsest restriction with the scan), three (a middle restriction), three without reflux (the
// restriction alone in the first launch). Each run must equal the serial oracle: the same tree,
// the same end time (every dt comes from a device scan: a word left from the step before, or a
// scan whose last block did not hand its words out, changes it far beyond 1e-12) and the state to
// 1e-12. --phase-timing (AmrConfig::phase_timing): the four phase rows, one sample per step, and
// none without it. gpu label: CUDA or HIP builds.
#include <array>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "amr/amr_driver.hpp"
#include "amr/amr_gpu.hpp"
#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "test_amr_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

struct LaunchCase {
  const char* name;
  const char* problem;
  std::array<int, 3> base;
  Boundary bc;
  int levels;
  double threshold;  // density and pressure criterion; 1e9: nothing is ever refined
  bool reflux;
  long steps;
  int refined_levels;  // levels above the base that hold octs at the end
};

amr::AmrConfig gpu_levels(const LaunchCase& c) {
  amr::AmrConfig ac = amr_levels(c.levels, "gradient", 2);
  ac.criterion.density = ac.criterion.pressure = c.threshold;
  ac.reflux = c.reflux;
  return ac;
}

void use_gpu_step(amr::AmrConfig& ac) {
  ac.device = [](const HydroParams& hp, bool reflux) { return amr::make_gpu_amr_step(hp, reflux); };
}

}  // namespace

TEST(Amr, amr_gpu_step_launch_paths_equal_oracle) {
  const LaunchCase cases[] = {
      {"nothing refined", "sedov", {8, 8, 8}, Boundary::periodic, 1, 1e9, true, 8, 0},
      {"one level", "sod", {32, 4, 4}, Boundary::reflecting, 1, 0.1, true, 20, 1},
      {"two levels", "sedov", {8, 8, 8}, Boundary::periodic, 2, 0.1, true, 10, 2},
      {"three levels", "sedov", {8, 8, 8}, Boundary::reflecting, 3, 0.1, true, 12, 3},
      {"three levels, no reflux", "sedov", {8, 8, 8}, Boundary::reflecting, 3, 0.1, false, 12, 3}};
  for (const LaunchCase& c : cases) {
    const OctMesh base = build_mesh(c.base, {c.bc, c.bc, c.bc});
    const RunConfig cfg = amr_config(c.problem, 1.0, c.steps);
    amr::AmrConfig ac = gpu_levels(c);
    const auto oracle = amr::run_amr(copa::Backend::serial, base, cfg, ac);
    int refined = 0;
    const std::vector<std::int64_t> octs = oracle.tree.octs_per_level();
    for (std::size_t l = 1; l < octs.size(); ++l)
      if (octs[l] > 0) refined = static_cast<int>(l);
    ASSERT_EQ(refined, c.refined_levels) << c.name << ": the case does not take the path it is for";
    use_gpu_step(ac);
    const auto dev = amr::run_amr(copa::Backend::serial, base, cfg, ac);
    const double l2 = relative_l2(dev.u, oracle.u);
    std::cerr << c.name << ": " << dev.steps << " steps to t = " << dev.t << " (oracle " << oracle.t
              << "), state vs oracle relative L2 " << l2 << "\n";
    ASSERT_EQ(dev.tree.key, oracle.tree.key) << c.name;
    EXPECT_EQ(dev.steps, oracle.steps) << c.name;
    EXPECT_LE(std::fabs(dev.t - oracle.t), 1e-12 * oracle.t) << c.name;
    EXPECT_LT(l2, 1e-12) << c.name;
  }
}

TEST(Amr, amr_gpu_phase_timing_rows) {
  const LaunchCase c{"two levels", "sedov", {8, 8, 8}, Boundary::periodic, 2, 0.1, true, 6, 2};
  const OctMesh base = build_mesh(c.base, {c.bc, c.bc, c.bc});
  const RunConfig cfg = amr_config(c.problem, 1.0, c.steps);
  const char* rows[] = {"amr.ghosts", "amr.update", "amr.reflux+finest_restriction", "amr.coarser_restrictions+scan"};
  for (bool timed : {false, true}) {
    amr::AmrConfig ac = gpu_levels(c);
    use_gpu_step(ac);
    ac.phase_timing = timed;
    const auto r = amr::run_amr(copa::Backend::serial, base, cfg, ac);
    for (const char* row : rows) {
      ASSERT_EQ(r.profile.has(row), timed) << row << (timed ? " missing with" : " present without") << " phase timing";
      if (!timed) continue;
      const std::vector<double>& s = r.profile.samples(row);
      EXPECT_EQ(static_cast<long>(s.size()), r.steps) << row;
      for (double x : s) EXPECT_GE(x, 0.0) << row;
    }
  }
}
