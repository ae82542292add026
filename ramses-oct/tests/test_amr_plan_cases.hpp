// The AMR runs the device plan, device lists and device regrid path tests take (PlanCase; the
// plan and lists tests use plan_cases' final trees, test_amr_device_emulation.cpp;
// StateCase: a case's final tree and state, test_amr_leaf_update.cpp).
#pragma once
#include <array>
#include <memory>
#include <string>

#include "amr/amr_driver.hpp"
#include "amr/amr_plan.hpp"
#include "amr/amr_solver.hpp"
#include "test_amr_helpers.hpp"

namespace ro::amr_test {

struct PlanCase {
  const char* problem;
  std::array<int, 3> base;
  Boundary bc;
  int levels;
  const char* kind;
  long steps;
};

// Sedov three levels (periodic, reflecting, outflow), Sod with and without levels above 1, and a
// static band: ghost slots, groups, reflux faces and restrictions on every level.
inline const PlanCase plan_cases[] = {{"sedov", {12, 8, 10}, Boundary::periodic, 3, "gradient", 6},
                                      {"sedov", {12, 8, 10}, Boundary::reflecting, 3, "gradient", 10},
                                      {"sedov", {12, 8, 10}, Boundary::outflow, 3, "gradient", 14},
                                      {"sod", {16, 4, 4}, Boundary::outflow, 2, "gradient", 16},
                                      {"sod", {32, 4, 4}, Boundary::reflecting, 1, "gradient", 30},
                                      {"sedov", {8, 8, 8}, Boundary::periodic, 2, "band", 4}};

// The carried dt scan's cases, each run with a regrid every 1, 2 and 3 steps: three levels with
// reflecting faces, Sod outflow on two levels, and a static band (the host emulation only).
inline const PlanCase next_scan_cases[] = {{"sedov", {8, 8, 8}, Boundary::reflecting, 3, "gradient", 12},
                                           {"sod", {16, 4, 4}, Boundary::outflow, 2, "gradient", 16},
                                           {"sedov", {8, 8, 8}, Boundary::periodic, 2, "band", 6}};

// A plan case's set-up, shared by the tests that run it: its base mesh, its run configuration
// (t = 1 or c.steps steps) and its AMR configuration with a regrid every `every` steps.
inline OctMesh case_mesh(const PlanCase& c) { return build_mesh(c.base, {c.bc, c.bc, c.bc}); }
inline RunConfig case_config(const PlanCase& c) { return amr_config(c.problem, 1.0, c.steps); }
inline amr::AmrConfig case_amr(const PlanCase& c, int every) { return amr_levels(c.levels, c.kind, every); }

inline amr::Tree case_tree(const PlanCase& c, OctMesh& base) {
  base = case_mesh(c);
  return amr::run_amr(copa::Backend::serial, base, case_config(c), case_amr(c, 2)).tree;
}

// A plan case's final tree with its step lists and its grouped step plan, as the device step
// builds them, and its name for the test's messages. The tree points to the base mesh held
// here: not copyable.
struct BuiltCase {
  explicit BuiltCase(const PlanCase& c)
      : name(case_label(c) + " levels " + std::to_string(c.levels)),
        tree(case_tree(c, base)),
        lists(amr::build_step_lists(tree)),
        plan(amr::build_step_plan(tree, lists, true)) {}
  BuiltCase(const BuiltCase&) = delete;
  BuiltCase& operator=(const BuiltCase&) = delete;
  std::string name;
  OctMesh base;
  amr::Tree tree;
  amr::StepLists lists;
  amr::StepPlan plan;
};

// The plan cases with the final state of their run (the trees of case_tree).
struct StateCase {
  explicit StateCase(const PlanCase& c)
      : name(case_label(c) + " levels " + std::to_string(c.levels)),
        base(case_mesh(c)),
        run(amr::run_amr(copa::Backend::serial, base, case_config(c), case_amr(c, 2))),
        lists(amr::build_step_lists(run.tree)) {}
  StateCase(const StateCase&) = delete;
  StateCase& operator=(const StateCase&) = delete;
  std::string name;
  OctMesh base;
  amr::AmrResult run;
  amr::StepLists lists;
  // The serial loops and default hydro parameters a test steps the state with, and the leaf scan
  // of the state that its dt is taken from.
  std::unique_ptr<amr::Loops> loops = amr::make_serial_loops();
  HydroParams hp{};
  amr::LeafScan scan() const { return amr::scan_leaves(run.tree, run.u, hp.gamma, *loops); }
};

}  // namespace ro::amr_test
