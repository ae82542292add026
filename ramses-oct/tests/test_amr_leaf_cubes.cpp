// Leaf cubes (README "Leaf cubes", amr_leaf_cube.hpp): the plan's cube bytes against a direct
// search of the trees' aligned 4 x 4 x 4 blocks of leaf octs, and the emulated GPU step with the
// cubes marched equal bit for bit to the same step with their groups run as units (global dt and
// subcycled, with and without reflux: the kept fine fluxes too, on cubes beside a coarser region). Bit for bit because the host code
// is compiled without floating-point contraction (ramses-oct/CMakeLists.txt): both bodies then
// round the same operations alike. A wrong slot, sub-face or skip moves a value by far more.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <tuple>
#include <vector>

#include "amr_driver.hpp"
#include "amr_plan.hpp"
#include "amr_subcycle.hpp"
#include "test_amr_plan_cases.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

// The plan cases, and a static band on a 16^3 base (cubes on levels 1 and 2 beside coarser
// regions: kept faces on the cubes' boundaries).
std::vector<PlanCase> cube_cases() {
  std::vector<PlanCase> cases(std::begin(plan_cases), std::end(plan_cases));
  cases.push_back({"sedov", {16, 16, 16}, Boundary::periodic, 2, "band", 2});
  return cases;
}

// The cube bytes a direct search gives: per level the leaf octs by aligned 4^3 block; a block
// with all 64 is a cube, its first oct (position 0) the cube's first.
std::vector<std::uint8_t> cubes_by_search(const amr::Tree& t, const amr::StepPlan& p) {
  std::map<std::tuple<int, int, int, int>, int> count;
  for (const std::int32_t o : p.leaf_octs)
    ++count[{t.level[o], t.coord[0][o] >> 2, t.coord[1][o] >> 2, t.coord[2][o] >> 2}];
  std::vector<std::uint8_t> cube(p.leaf_octs.size(), 0);
  for (std::size_t i = 0; i < p.leaf_octs.size(); ++i) {
    const std::int32_t o = p.leaf_octs[i];
    if (count[{t.level[o], t.coord[0][o] >> 2, t.coord[1][o] >> 2, t.coord[2][o] >> 2}] != 64) continue;
    const bool first = (t.coord[0][o] & 3) == 0 && (t.coord[1][o] & 3) == 0 && (t.coord[2][o] & 3) == 0;
    cube[i] = first ? amr::plan_cube_first : amr::plan_cube_member;
  }
  return cube;
}

}  // namespace

TEST(AmrLeafCubes, amr_leaf_cubes_in_the_plan) {
  // The cube bytes equal the direct search's; a cube's first leaf starts a complete group, and
  // its 8 groups are consecutive, complete, at leaf indices 8 apart, in cube order. Without
  // groups (group_min 0) there are no cubes.
  long long cubes = 0, above_0 = 0;
  for (const PlanCase& pc : cube_cases()) {
    const BuiltCase c(pc);
    SCOPED_TRACE(c.name);
    const amr::StepPlan& p = c.plan;
    EXPECT_EQ(p.cube, cubes_by_search(c.tree, p));
    for (std::size_t g = 0; g < p.groups.size(); ++g) {
      const std::int32_t i0 = p.groups[g];
      if (p.cube[i0] != amr::plan_cube_first) continue;
      ++cubes;
      const std::int32_t o0 = p.leaf_octs[i0];
      above_0 += c.tree.level[o0] > 0;
      ASSERT_LE(g + 8, p.groups.size());
      for (int k = 0; k < 8; ++k) {
        EXPECT_EQ(p.groups[g + k], i0 + 8 * k);
        EXPECT_EQ(p.group_members[g + k], amr::complete_group);
        const std::int32_t o = p.leaf_octs[p.groups[g + k]];
        EXPECT_EQ(c.tree.coord[0][o], c.tree.coord[0][o0] + 2 * (k & 1));
        EXPECT_EQ(c.tree.coord[1][o], c.tree.coord[1][o0] + 2 * ((k >> 1) & 1));
        EXPECT_EQ(c.tree.coord[2][o], c.tree.coord[2][o0] + 2 * (k >> 2));
      }
    }
    const amr::StepPlan none = amr::build_step_plan(c.tree, c.lists, true, 0);
    for (const std::uint8_t b : none.cube) EXPECT_EQ(b, 0);
    std::cerr << c.name << ": " << p.groups.size() << " groups\n";
  }
  std::cerr << cubes << " cubes, " << above_0 << " above level 0\n";
  EXPECT_GT(cubes, 0);
  EXPECT_GT(above_0, 0);
}

namespace {

// A static band refined without a buffer on a 16^3 base, in a random smooth state: level-1 and
// level-2 cubes whose x faces lie next to a coarser leaf (kept fine fluxes on the cubes'
// boundaries), with fluxes that vary along every axis.
amr::AmrResult band_without_buffer(OctMesh& base) {
  base = build_mesh({16, 16, 16}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  amr::AmrConfig ac = amr_levels(2, "band", 0);
  ac.criterion.buffer = 0;
  ac.set_state = [](const amr::Tree& t, std::vector<double>& u) { random_smooth_state(t, u, 11); };
  return amr::run_amr(copa::Backend::serial, base, amr_config("sedov", 1.0, 1), ac);
}

// One global step and one subcycled coarse step of the emulated GPU step on tree t in state u,
// cubes marched and cubes off: the same state and kept fine fluxes bit for bit. Returns the kept
// fine-flux faces of cube octs.
long long expect_cubes_equal_groups(const amr::Tree& t, const std::vector<double>& u0, const amr::StepLists& lists) {
  const auto loops = amr::make_serial_loops();
  const HydroParams hp{};
  long long kept_on_cubes = 0;
  for (const bool reflux : {true, false}) {
    const amr::StepPlan p = amr::build_step_plan(t, lists, reflux);
    for (std::size_t i = 0; i < p.cube.size(); ++i)
      kept_on_cubes += p.cube[i] != 0 ? __builtin_popcount(p.keep[i]) : 0;
    const double dt = amr::cfl_dt(t, amr::scan_leaves(t, u0, hp.gamma, *loops), 0.5);
    std::vector<double> unew[2], flux[2];
    for (int k = 0; k < 2; ++k)
      amr::emulate_plan_step(t, p, lists, hp, reflux, u0, unew[k], dt, &flux[k], amr::LeafUpdate::units, k == 0);
    EXPECT_TRUE(unew[0] == unew[1]) << "global step, reflux " << reflux;
    EXPECT_TRUE(flux[0] == flux[1]) << "global step, reflux " << reflux;
    EXPECT_TRUE(unew[0] != u0);
    const amr::PlanLevels lv = amr::emulate_plan_levels(t, p);
    const double dt0 = amr::subcycle_dt(t, amr::scan_leaves(t, u0, hp.gamma, *loops), 0.5);
    std::vector<double> u[2], kept[2];
    for (int k = 0; k < 2; ++k) {
      u[k] = u0;
      std::vector<double> scratch(u[k].size()), sums(t.noct() * amr::fine_flux_per_oct);
      kept[k].assign(t.noct() * amr::fine_flux_per_oct, 0.0);
      amr::emulate_plan_subcycled_step(t, p, lists, lv, hp, reflux, u[k], scratch, kept[k], sums, dt0,
                                       amr::LeafUpdate::units, k == 0);
    }
    EXPECT_TRUE(u[0] == u[1]) << "subcycled step, reflux " << reflux;
    EXPECT_TRUE(kept[0] == kept[1]) << "subcycled step, reflux " << reflux;
  }
  return kept_on_cubes;
}

}  // namespace

TEST(AmrLeafCubes, amr_leaf_cubes_step_equals_their_groups_bitwise) {
  for (const PlanCase& pc : cube_cases()) {
    const StateCase c(pc);
    SCOPED_TRACE(c.name);
    expect_cubes_equal_groups(c.run.tree, c.run.u, c.lists);
  }
  OctMesh base;
  const amr::AmrResult band = band_without_buffer(base);
  SCOPED_TRACE("band without buffer");
  const long long kept = expect_cubes_equal_groups(band.tree, band.u, amr::build_step_lists(band.tree));
  std::cerr << "band without buffer: " << kept << " kept faces of cube octs\n";
  EXPECT_GT(kept, 0);
}
