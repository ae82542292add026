// AMR level subcycling (--subcycle, amr_subcycle.hpp): conservation with and without refluxing,
// Sedov's radius, the band wave's order, closeness to the global-dt run, OpenMP = serial (the
// device step's subcycling: test_amr_subcycle_device.cpp, test_amr_subcycle_gpu.cpp).
#include <cmath>

#include "amr/amr_driver.hpp"
#include "amr/amr_subcycle.hpp"
#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "test_amr_helpers.hpp"
#include "test_helpers.hpp"
#include "hydro/verification.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

amr::AmrConfig subcycled(int levels, const std::string& kind, int regrid_every) {
  amr::AmrConfig ac = amr_levels(levels, kind, regrid_every);
  ac.subcycle = true;
  return ac;
}

}  // namespace

TEST(AmrSubcycle, amr_subcycle_dt_is_the_coarse_step_of_every_level) {
  // Per level l the substep dt_0 / 2^l must meet level l's CFL limit, and one level sets it.
  const OctMesh base = build_mesh({8, 8, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  const amr::Tree t = amr::base_tree(base, 2);
  amr::LeafScan s;
  s.max_speed = {1.0, 3.0, 5.0};
  const double dt0 = amr::subcycle_dt(t, s, 0.5);
  for (int l = 0; l <= 2; ++l) EXPECT_LE(dt0 / double(1 << l), 0.5 * t.dx(l) / s.max_speed[l] * (1 + 1e-15));
  COPA_EXPECT_NEAR_REL(dt0, 0.5 * t.dx(0) / 5.0, 1e-15);
  // The global dt is the finest level's: dt_0 is 2^2 times it here.
  COPA_EXPECT_NEAR_REL(dt0, 4 * amr::cfl_dt(t, s, 0.5), 1e-15);
}

TEST(AmrSubcycle, amr_subcycle_conservation_with_and_without_reflux) {
  // Periodic Sedov on three levels regridded as the blast grows: mass and energy to 1e-12.
  const OctMesh base16 = build_mesh({16, 16, 16}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  const auto s = amr::run_amr(copa::Backend::serial, base16, amr_config("sedov", 0.02, 30), subcycled(2, "gradient", 2));
  EXPECT_TRUE(s.regrids > 0 && s.tree.octs_at(2) > 0);
  const double sm = rel_change(s.final.mass, s.initial.mass), se = rel_change(s.final.energy, s.initial.energy);
  std::cerr << "subcycled sedov 16+2: mass " << sm << " energy " << se << " (" << s.steps << " coarse steps, "
            << s.regrids << " regrids)\n";
  EXPECT_TRUE(sm < 1e-12 && se < 1e-12);
  // With and without refluxing (the cases of test_amr.cpp's global-dt test): Sedov on its initial
  // grid (the blast crosses the coarse-fine faces) and a random smooth state whose refined region
  // moves with the flow. Without refluxing the coarse side keeps its own flux: not conservative.
  const OctMesh base8 = build_mesh({8, 8, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  for (bool reflux : {true, false}) {
    amr::AmrConfig ac = subcycled(2, "gradient", 0);
    ac.reflux = reflux;
    const auto st = amr::run_amr(copa::Backend::serial, base8, amr_config("sedov", 0.03, 100000), ac);
    const double dm = rel_change(st.final.mass, st.initial.mass), de = rel_change(st.final.energy, st.initial.energy);
    amr::AmrConfig ar = subcycled(2, "gradient", 2);
    ar.criterion.density = ar.criterion.pressure = 0.03;
    ar.reflux = reflux;
    ar.set_state = [](const amr::Tree& t, std::vector<double>& u) { random_smooth_state(t, u, 11); };
    const auto g = amr::run_amr(copa::Backend::serial, base16, amr_config("sedov", 1.0, 6), ar);
    const double gm = rel_change(g.final.mass, g.initial.mass), ge = rel_change(g.final.energy, g.initial.energy);
    std::cerr << "subcycled, reflux " << reflux << ": static sedov mass " << dm << " energy " << de << " ("
              << st.steps << " coarse steps); random state mass " << gm << " energy " << ge << " (octs per level "
              << g.tree.octs_at(0) << "/" << g.tree.octs_at(1) << "/" << g.tree.octs_at(2) << ", " << g.regrids
              << " regrids)\n";
    EXPECT_TRUE(st.tree.octs_at(2) > 0 && st.tree.octs_at(2) < 8 * st.tree.octs_at(1));
    EXPECT_TRUE(g.regrids > 0 && g.tree.octs_at(1) > 0 && g.tree.octs_at(1) < 8 * g.tree.octs_at(0));
    expect_conservation_as_reflux(reflux, dm, de, gm, ge);
  }
}

TEST(AmrSubcycle, amr_subcycle_openmp_equals_serial) {
#if defined(COPA_HAVE_OPENMP)
  const OctMesh base = build_mesh({16, 16, 16}, {Boundary::reflecting, Boundary::reflecting, Boundary::reflecting});
  const RunConfig cfg = amr_config("sedov", 0.02, 8);
  const auto s = amr::run_amr(copa::Backend::serial, base, cfg, subcycled(2, "gradient", 2));
  const auto o = amr::run_amr(copa::Backend::openmp, base, cfg, subcycled(2, "gradient", 2));
  EXPECT_TRUE(s.tree.key == o.tree.key);
  EXPECT_TRUE(s.u == o.u);
  EXPECT_TRUE(s.t == o.t);
#endif
}

TEST(AmrSubcycle, amr_subcycle_sedov_16_one_level) {
  // Sedov base 16^3 + 1 level (32^3 finest) to t = 0.03: the radius within 3%, as the global dt.
  const OctMesh base = build_mesh({16, 16, 16}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  RunConfig cfg = amr_config("sedov", 0.03, 100000);
  const auto r = amr::run_amr(copa::Backend::serial, base, cfg, subcycled(1, "gradient", 2));
  const OctMesh fine = build_mesh({32, 32, 32}, base.bc);
  nlohmann::json extra;
  const copa::Verification v =
      reference_verdict(fine, cfg.problem, "minmod", amr::project_to_finest(r.tree, fine, r.u), r.t, extra);
  std::cerr << "subcycled sedov 16+1: radius error " << v.value << ", " << r.steps << " coarse steps, leaf cells "
            << r.tree.leaf_cells() << " of " << fine.ncell() << "\n";
  EXPECT_TRUE(v.verified && v.passed);
  EXPECT_TRUE(std::fabs(r.t - 0.03) < 1e-14);
  EXPECT_TRUE(r.tree.leaf_cells() < fine.ncell() * 6 / 10);
  EXPECT_TRUE(rel_change(r.final.mass, r.initial.mass) < 1e-12 && rel_change(r.final.energy, r.initial.energy) < 1e-12);
}

TEST(AmrSubcycle, amr_subcycle_wave_across_static_band) {
  // The band wave of test_amr.cpp with subcycling: the band's level takes two substeps per coarse
  // step. Mass to round-off; second order away from the band; and the subcycled run is close to
  // the global-dt run: their difference is well below either's error against the exact solution,
  // and the two errors are within a factor 2. They differ because the coarse level steps at twice
  // the global dt (Courant number C instead of C / 2: MUSCL-Hancock's error on an advected wave
  // changes with the Courant number) and because the band's ghost cells see the coarse level at
  // its old time in both substeps (no time interpolation, as RAMSES).
  double err[2], err_global = 0, diff = 0;
  for (int r = 0; r < 2; ++r) {
    const int nx = 32 << r;
    const OctMesh base = build_mesh({nx, 4, 4}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
    amr::AmrConfig ac = subcycled(1, "band", 0);
    ac.set_state = band_wave_state;
    const RunConfig cfg = amr_config("sound", 0.5, 100000, 2);
    const auto res = amr::run_amr(copa::Backend::serial, base, cfg, ac);
    EXPECT_TRUE(std::fabs(res.t - 0.5) < 1e-14);
    EXPECT_TRUE(rel_change(res.final.mass, res.initial.mass) < 1e-13);
    EXPECT_TRUE(res.tree.octs_at(1) > 0);
    err[r] = band_wave_error(res.tree, res.u, nullptr);
    if (r == 0) {
      ac.subcycle = false;
      const auto glob = amr::run_amr(copa::Backend::serial, base, cfg, ac);
      EXPECT_TRUE(glob.tree.key == res.tree.key);
      EXPECT_TRUE(glob.steps > res.steps);
      err_global = band_wave_error(glob.tree, glob.u, nullptr);
      diff = band_wave_error(res.tree, res.u, &glob.u);
      std::cerr << "band wave 32: " << res.steps << " coarse steps subcycled, " << glob.steps << " global\n";
    }
  }
  const double order = std::log2(err[0] / err[1]);
  std::cerr << "subcycled wave across band: L1 " << err[0] << " " << err[1] << " order " << order
            << "; global dt L1 " << err_global << ", |subcycled - global| L1 " << diff << "\n";
  EXPECT_TRUE(order > 1.8);
  EXPECT_TRUE(diff > 0);
  EXPECT_TRUE(diff < 0.5 * std::min(err[0], err_global));
  EXPECT_TRUE(err[0] < 2 * err_global && err_global < 2 * err[0]);
}
