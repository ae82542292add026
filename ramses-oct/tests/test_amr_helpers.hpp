// Run configurations and test states shared by the AMR tests (test_amr_*.cpp and the slow
// test_amr_slow.cpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "amr/amr_driver.hpp"
#include "amr/amr_solver.hpp"
#include "hydro/verification.hpp"

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

// amr_levels with level subcycling (--subcycle): level l steps with dt_0 / 2^l.
inline amr::AmrConfig subcycled(int levels, const std::string& kind, int regrid_every) {
  amr::AmrConfig ac = amr_levels(levels, kind, regrid_every);
  ac.subcycle = true;
  return ac;
}

// A test case's label in failure messages: its problem and boundary kind.
template <class Case>
std::string case_label(const Case& c) {
  return std::string(c.problem) + " bc " + std::to_string(int(c.bc));
}

// OpenMP = serial bit for bit (tree, state, time): Sedov on a reflecting 16^3 base to t = 0.02 or
// `steps` steps with the AMR configuration ac (a no-op without OpenMP).
inline void expect_openmp_equals_serial(const amr::AmrConfig& ac, long steps) {
#if defined(COPA_HAVE_OPENMP)
  const OctMesh base = build_mesh({16, 16, 16}, {Boundary::reflecting, Boundary::reflecting, Boundary::reflecting});
  const RunConfig cfg = amr_config("sedov", 0.02, steps);
  const auto s = amr::run_amr(copa::Backend::serial, base, cfg, ac);
  const auto o = amr::run_amr(copa::Backend::openmp, base, cfg, ac);
  EXPECT_TRUE(s.tree.key == o.tree.key);
  EXPECT_TRUE(s.u == o.u);
  EXPECT_TRUE(s.t == o.t);
#else
  (void)ac;
  (void)steps;
#endif
}

// Sedov on a periodic 16^3 base + 1 level (32^3 finest) to t = 0.03 with the AMR configuration
// ac, and the reference verdict (the blast radius) of its state projected on the finest mesh. The
// run's tree points to the base mesh held here: not copyable.
struct SedovOneLevel {
  explicit SedovOneLevel(const amr::AmrConfig& ac)
      : base(build_mesh({16, 16, 16}, {Boundary::periodic, Boundary::periodic, Boundary::periodic})),
        cfg(amr_config("sedov", 0.03, 100000)),
        r(amr::run_amr(copa::Backend::serial, base, cfg, ac)),
        fine(build_mesh({32, 32, 32}, base.bc)),
        v(reference_verdict(fine, cfg.problem, "minmod", amr::project_to_finest(r.tree, fine, r.u), r.t, extra)) {}
  SedovOneLevel(const SedovOneLevel&) = delete;
  SedovOneLevel& operator=(const SedovOneLevel&) = delete;
  OctMesh base;
  RunConfig cfg;
  amr::AmrResult r;
  OctMesh fine;
  nlohmann::json extra;
  copa::Verification v;
};

// A smooth random state: density, velocity and pressure as sums of three sines of random phase
// and amplitude per field, periodic on the box.
inline void random_smooth_state(const amr::Tree& t, std::vector<double>& u, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> phase(0, 2 * M_PI), amp(0.02, 0.08);
  double ph[5][3][3], am[5][3];
  for (int f = 0; f < 5; ++f)
    for (int m = 0; m < 3; ++m) {
      am[f][m] = amp(gen);
      for (int a = 0; a < 3; ++a) ph[f][m][a] = phase(gen);
    }
  const std::int64_t stride = t.noct() * 8;
  for (std::int64_t o = 0; o < t.noct(); ++o)
    for (int c = 0; c < 8; ++c) {
      const auto ic = t.cell_coords(o, c);
      const double dx = t.dx(t.level[o]);
      const double x[3] = {(ic[0] + 0.5) * dx, (ic[1] + 0.5) * dx, (ic[2] + 0.5) * dx};
      double q[5];
      for (int f = 0; f < 5; ++f) {
        double s = 0;
        for (int m = 0; m < 3; ++m)
          s += am[f][m] * std::sin(2 * M_PI * (m + 1) * x[m % 3] / (t.base->cells[m % 3] * t.base->dx) + ph[f][m][0]) *
               std::cos(2 * M_PI * x[(m + 1) % 3] / (t.base->cells[(m + 1) % 3] * t.base->dx) + ph[f][m][1]);
        q[f] = (f == 0 || f == 4) ? 1.0 + s : s;
      }
      const double e = q[4] / 0.4 + 0.5 * q[0] * (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      const double cons[5] = {q[0], q[0] * q[1], q[0] * q[2], q[0] * q[3], e};
      for (int f = 0; f < 5; ++f) u[f * stride + o * 8 + c] = cons[f];
    }
}

// The static-band wave (test_amr_leaf_update.cpp, test_amr_subcycle.cpp): rho = 1 + 0.2 sin(2 pi x), u = 1,
// p = 1 as exact cell averages of the density, so the error measures the scheme.
inline void band_wave_state(const amr::Tree& t, std::vector<double>& u) {
  const std::int64_t stride = t.noct() * 8;
  for (std::int64_t o = 0; o < t.noct(); ++o)
    for (int c = 0; c < 8; ++c) {
      const double dx = t.dx(t.level[o]);
      const double x0 = t.cell_coords(o, c)[0] * dx;
      const double rho = 1 + 0.2 * (std::cos(2 * M_PI * x0) - std::cos(2 * M_PI * (x0 + dx))) / (2 * M_PI * dx);
      const double cons[5] = {rho, rho, 0, 0, 1 / 0.4 + 0.5 * rho};
      for (int f = 0; f < 5; ++f) u[f * stride + o * 8 + c] = cons[f];
    }
}

// Volume-weighted L1 density error of the band wave at t = 0.5 away from the band (leaf cells
// outside 0.15 < x < 0.6), against the initial cell averages shifted by u t; with other != null,
// the L1 difference of the density from the state other over the same cells instead.
inline double band_wave_error(const amr::Tree& t, const std::vector<double>& u, const std::vector<double>* other) {
  double sum = 0, vol = 0;
  for (std::int64_t o = 0; o < t.noct(); ++o)
    for (int c = 0; c < 8; ++c) {
      const std::int64_t g = o * 8 + c;
      if (t.son[g] >= 0) continue;
      const double dx = t.dx(t.level[o]);
      const double x0 = t.cell_coords(o, c)[0] * dx;
      if (x0 + dx > 0.15 && x0 < 0.6) continue;
      const double xs = x0 - 0.5;
      const double exact = 1 + 0.2 * (std::cos(2 * M_PI * xs) - std::cos(2 * M_PI * (xs + dx))) / (2 * M_PI * dx);
      sum += std::fabs(u[g] - (other ? (*other)[g] : exact)) * dx * dx * dx;
      vol += dx * dx * dx;
    }
  return sum / vol;
}

inline double rel_change(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

// The conservation tests' verdict on two runs' relative changes of mass and energy: with refluxing
// every change below 1e-12; without it, each run must show one above 1e-10 (the test sees the bug).
inline void expect_conservation_as_reflux(bool reflux, double dm, double de, double gm, double ge) {
  if (reflux) {
    EXPECT_TRUE(dm < 1e-12 && de < 1e-12 && gm < 1e-12 && ge < 1e-12);
  } else {
    EXPECT_TRUE(std::max(dm, de) > 1e-10 && std::max(gm, ge) > 1e-10);
  }
}

}  // namespace ro::amr_test
