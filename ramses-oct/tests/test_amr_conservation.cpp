// AMR specification, conservation: mass and energy to round-off with refluxing, and a visible
// loss without it, under the global dt and under level subcycling.
#include <cmath>

#include "amr/amr_driver.hpp"
#include "amr/amr_interp.hpp"
#include "amr/amr_plan.hpp"
#include "amr/amr_subcycle.hpp"
#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "hydro/verification.hpp"
#include "test_amr_helpers.hpp"
#include "test_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

const OctMesh& periodic_base(int n) {
  static const OctMesh base8 = build_mesh({8, 8, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  static const OctMesh base16 = build_mesh({16, 16, 16}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  return n == 8 ? base8 : base16;
}

// The two runs that show refluxing on or off: Sedov on the 8^3 base's initial grid with two levels
// (the blast crosses the coarse-fine faces), and a random smooth state on the 16^3 base whose
// refined region (gradient flags at `threshold`, a regrid every 2 steps) moves with the flow.
struct RefluxRuns {
  amr::AmrResult st, g;
  double dm, de, gm, ge;  // relative changes of mass and energy of each run
};

RefluxRuns reflux_runs(bool subcycle, bool reflux, int levels, double threshold, long steps) {
  amr::AmrConfig ac = amr_levels(2, "gradient", 0);
  ac.subcycle = subcycle;
  ac.reflux = reflux;
  RefluxRuns r;
  r.st = amr::run_amr(copa::Backend::serial, periodic_base(8), amr_config("sedov", 0.03, 100000), ac);
  r.dm = rel_change(r.st.final.mass, r.st.initial.mass);
  r.de = rel_change(r.st.final.energy, r.st.initial.energy);
  amr::AmrConfig ar = amr_levels(levels, "gradient", 2);
  ar.subcycle = subcycle;
  ar.criterion.density = ar.criterion.pressure = threshold;
  ar.reflux = reflux;
  ar.set_state = [](const amr::Tree& t, std::vector<double>& u) { random_smooth_state(t, u, 11); };
  r.g = amr::run_amr(copa::Backend::serial, periodic_base(16), amr_config("sedov", 1.0, steps), ar);
  r.gm = rel_change(r.g.final.mass, r.g.initial.mass);
  r.ge = rel_change(r.g.final.energy, r.g.initial.energy);
  return r;
}

}  // namespace

// Global dt.
TEST(Amr, amr_conservation_with_and_without_reflux) {
  // Periodic Sedov on three levels, regridded as the blast grows: mass and energy to 1e-12.
  const auto s = amr::run_amr(copa::Backend::serial, periodic_base(16), amr_config("sedov", 0.02, 30),
                              amr_levels(2, "gradient", 2));
  EXPECT_TRUE(s.regrids > 0 && s.tree.octs_at(2) > 0);
  EXPECT_TRUE(rel_change(s.final.mass, s.initial.mass) < 1e-12 && rel_change(s.final.energy, s.initial.energy) < 1e-12);
  // With and without refluxing: Sedov on the initial grid only (the blast crosses the coarse-fine
  // faces; with regrids they stay in the quiet gas, where both sides' fluxes are the same and
  // switching refluxing off changes nothing), and a random smooth state whose refined region (gradient
  // flags) moves with the flow. Refluxing off must break conservation: the test sees the bug.
  for (bool reflux : {true, false}) {
    const RefluxRuns r = reflux_runs(false, reflux, 1, 0.05, 10);
    const amr::AmrResult &st = r.st, &g = r.g;
    const double dm = r.dm, de = r.de, gm = r.gm, ge = r.ge;
    std::cerr << "reflux " << reflux << ": static sedov mass " << dm << " energy " << de << " (" << st.steps
              << " steps); random state mass " << gm << " energy " << ge << " (at most " << g.max_octs_used
              << " octs, " << g.regrids << " regrids)\n";
    EXPECT_TRUE(st.tree.octs_at(2) > 0 && st.tree.octs_at(2) < 8 * st.tree.octs_at(1));
    // Partly refined (the level-1 octs at the largest): coarse-fine faces exist.
    EXPECT_TRUE(g.max_octs_used > g.tree.octs_at(0) && g.max_octs_used < 5 * g.tree.octs_at(0));
    expect_conservation_as_reflux(reflux, dm, de, gm, ge);
  }
}

// Level subcycling (--subcycle).
TEST(AmrSubcycle, amr_subcycle_conservation_with_and_without_reflux) {
  // Periodic Sedov on three levels regridded as the blast grows: mass and energy to 1e-12.
  const auto s = amr::run_amr(copa::Backend::serial, periodic_base(16), amr_config("sedov", 0.02, 30),
                              subcycled(2, "gradient", 2));
  EXPECT_TRUE(s.regrids > 0 && s.tree.octs_at(2) > 0);
  const double sm = rel_change(s.final.mass, s.initial.mass), se = rel_change(s.final.energy, s.initial.energy);
  std::cerr << "subcycled sedov 16+2: mass " << sm << " energy " << se << " (" << s.steps << " coarse steps, "
            << s.regrids << " regrids)\n";
  EXPECT_TRUE(sm < 1e-12 && se < 1e-12);
  // With and without refluxing (the cases of the global-dt test above): Sedov on its initial
  // grid (the blast crosses the coarse-fine faces) and a random smooth state whose refined region
  // moves with the flow. Without refluxing the coarse side keeps its own flux: not conservative.
  for (bool reflux : {true, false}) {
    const RefluxRuns r = reflux_runs(true, reflux, 2, 0.03, 6);
    const amr::AmrResult &st = r.st, &g = r.g;
    const double dm = r.dm, de = r.de, gm = r.gm, ge = r.ge;
    std::cerr << "subcycled, reflux " << reflux << ": static sedov mass " << dm << " energy " << de << " ("
              << st.steps << " coarse steps); random state mass " << gm << " energy " << ge << " (octs per level "
              << g.tree.octs_at(0) << "/" << g.tree.octs_at(1) << "/" << g.tree.octs_at(2) << ", " << g.regrids
              << " regrids)\n";
    EXPECT_TRUE(st.tree.octs_at(2) > 0 && st.tree.octs_at(2) < 8 * st.tree.octs_at(1));
    EXPECT_TRUE(g.regrids > 0 && g.tree.octs_at(1) > 0 && g.tree.octs_at(1) < 8 * g.tree.octs_at(0));
    expect_conservation_as_reflux(reflux, dm, de, gm, ge);
  }
}
