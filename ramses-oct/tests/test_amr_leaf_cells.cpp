// The leaf update by cells (--leaf-update cells, amr_leaf_cells.hpp) through its host emulation:
// one step of it against one step of the unit kernel on the plan cases' trees and states (every
// boundary kind, ghost slots, partial groups at group_min 1, kept fine faces, the subcycled
// step's sums), and the GPU path's driver with it against the serial oracle.
//
// "The same" is bit for bit (state_difference and flux_difference 0, the same fine-flux entries
// written): both read the same inputs through the same arithmetic, and the host code is compiled
// without FP contraction (ramses-oct/CMakeLists.txt), so the two bodies round alike (with GCC's
// default contraction they did not, and this bound was 1e-13). A wrong row, a missed ghost cell or
// kept face moves a value by O(1); a row that pass 1 failed to store is NaN in the emulation.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "amr_driver.hpp"
#include "amr_plan.hpp"
#include "amr_subcycle.hpp"
#include "test_amr_emulated_step.hpp"
#include "test_amr_plan_cases.hpp"
#include "test_amr_plan_compare.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

bool all_finite(const std::vector<double>& v) {
  for (const double x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

}  // namespace

TEST(AmrLeafCells, amr_leaf_cells_step_equals_unit_step) {
  // One global step and one subcycled coarse step of each update on the six plan cases, with
  // the units of group_min 1 (partial groups), 3 (the default) and 8, with and without reflux.
  const HydroParams hp;
  long long kept_faces = 0;
  for (const PlanCase& pc : plan_cases) {
    const StateCase c(pc);
    const amr::Tree& t = c.run.tree;
    const long long stride = t.noct() * 8;
    const auto loops = amr::make_serial_loops();
    const double dt = amr::cfl_dt(t, amr::scan_leaves(t, c.run.u, hp.gamma, *loops), 0.5);
    const double dt0 = amr::subcycle_dt(t, amr::scan_leaves(t, c.run.u, hp.gamma, *loops), 0.5);
    for (const int group_min : {1, amr::default_group_min, 8})
      for (const bool reflux : {true, false}) {
        SCOPED_TRACE(c.name + " group_min " + std::to_string(group_min) + " reflux " + std::to_string(reflux));
        const amr::StepPlan p = amr::build_step_plan(t, c.lists, reflux, group_min);
        std::vector<double> unew[2], flux[2];
        const amr::LeafUpdate updates[2] = {amr::LeafUpdate::units, amr::LeafUpdate::cells};
        for (int k = 0; k < 2; ++k)
          amr::emulate_plan_step(t, p, c.lists, hp, reflux, c.run.u, unew[k], dt, &flux[k], updates[k]);
        ASSERT_TRUE(all_finite(unew[1]));
        EXPECT_EQ(state_difference(unew[1], unew[0], stride), 0.0);
        EXPECT_EQ(flux_difference(flux[1], flux[0]), 0.0);
        EXPECT_TRUE(unew[1] != c.run.u);
        for (const double f : flux[1]) kept_faces += f != 0;

        const amr::PlanLevels lv = amr::emulate_plan_levels(t, p);
        std::vector<double> u[2] = {c.run.u, c.run.u};
        for (int k = 0; k < 2; ++k) {
          std::vector<double> scratch(u[k].size()), kept(t.noct() * amr::fine_flux_per_oct, 0.0),
              sums(t.noct() * amr::fine_flux_per_oct, 0.0);
          amr::emulate_plan_subcycled_step(t, p, c.lists, lv, hp, reflux, u[k], scratch, kept, sums, dt0, updates[k]);
          flux[k] = kept;
        }
        ASSERT_TRUE(all_finite(u[1]));
        EXPECT_EQ(state_difference(u[1], u[0], stride), 0.0);
        EXPECT_EQ(flux_difference(flux[1], flux[0]), 0.0);
      }
  }
  // The kept fine faces were exercised (refluxed runs write them, the others too: the update
  // stores them whatever reflux says).
  EXPECT_GT(kept_faces, 0);
}

TEST(AmrLeafCells, amr_leaf_cells_emulated_device_path_equals_serial) {
  // The GPU path's driver (device regrid, plan rebuilt after every tree change, the device dt in
  // one case) with the leaf update by cells: the serial oracle's trees, steps and state to
  // round-off; periodic, reflecting and outflow boundaries, global dt and --subcycle.
  struct Case {
    PlanCase c;
    bool subcycle, device_dt;
  };
  const Case cases[] = {{{"sedov", {8, 8, 8}, Boundary::periodic, 2, "gradient", 8}, false, true},
                        {{"sedov", {12, 8, 10}, Boundary::reflecting, 2, "gradient", 8}, false, false},
                        {{"sedov", {12, 8, 10}, Boundary::reflecting, 2, "gradient", 8}, true, false},
                        {{"sod", {16, 4, 4}, Boundary::outflow, 2, "gradient", 12}, true, false}};
  for (const Case& k : cases) {
    const PlanCase& c = k.c;
    const OctMesh base = build_mesh(c.base, {c.bc, c.bc, c.bc});
    const RunConfig cfg = amr_config(c.problem, 1.0, c.steps);
    amr::AmrConfig ac = amr_levels(c.levels, c.kind, 2);
    ac.subcycle = k.subcycle;
    const auto oracle = amr::run_amr(copa::Backend::serial, base, cfg, ac);
    EmulatedCounts n;
    ac.device = emulated_device(n, amr::default_group_min, k.device_dt, amr::LeafUpdate::cells);
    const auto dev = amr::run_amr(copa::Backend::serial, base, cfg, ac);
    const std::string what = std::string(c.problem) + " bc " + std::to_string(int(c.bc)) + " subcycle " +
                             std::to_string(k.subcycle) + " device dt " + std::to_string(k.device_dt);
    SCOPED_TRACE(what);
    ASSERT_TRUE(dev.tree.key == oracle.tree.key);
    const double l2 = relative_l2(dev.u, oracle.u);
    std::cerr << what << ": " << dev.steps << " steps, " << n.moves << " tree changes, octs per level "
              << dev.tree.octs_at(0) << "/" << dev.tree.octs_at(1) << "/" << dev.tree.octs_at(2)
              << ", cells update - serial relative L2 " << l2 << "\n";
    EXPECT_LT(l2, 1e-12);
    EXPECT_EQ(dev.steps, oracle.steps);
    EXPECT_GT(n.moves, 0);
    EXPECT_GT(dev.tree.octs_at(2), 0);
    EXPECT_EQ(dev.leaf_cell_updates, oracle.leaf_cell_updates);
  }
}
