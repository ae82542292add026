// What the device flags tests (test_amr_device_emulation.cpp on the host, test_amr_device_flags_gpu.cpp
// on the GPU) compare: the host flags of a tree and state (criterion_flags, refinement_flags), the
// three criterion kinds, and two hand-made unbalanced trees whose flags must fail as the host's do.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "amr/amr_driver.hpp"
#include "amr/amr_regrid.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"

namespace ro::amr_test {

inline const char* const criterion_kinds[] = {"gradient", "band", "everywhere"};

// A plan case's tree and its state after the run (the gradient criterion then reads a Sedov or
// Sod state with shocks and rarefactions, not the initial one).
inline amr::AmrResult case_run(const PlanCase& c, OctMesh& base) {
  base = case_mesh(c);
  return amr::run_amr(copa::Backend::serial, base, case_config(c), case_amr(c, 2));
}

inline amr::RefineCriterion criterion_of(const char* kind) {
  amr::RefineCriterion rc;
  rc.kind = kind;
  return rc;
}

// The host regrid's flags: criterion bytes, then son flags, buffer and balance.
inline std::vector<char> host_flags(const amr::Tree& t, const std::vector<double>& u, const amr::RefineCriterion& rc,
                                    double gamma, std::vector<char>& crit) {
  const auto loops = amr::make_serial_loops();
  amr::criterion_flags(t, u, rc, gamma, *loops, crit);
  return amr::refinement_flags(t, crit, rc.buffer, *loops);
}

// The message f throws (a copa::RuntimeError), "" when it throws nothing.
template <class F>
std::string thrown_message(F&& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// On an 8^3 periodic base: one level-1 oct in cell 0 of oct 0 and one level-2 oct in its cell 0,
// at the domain's corner, next to missing level-1 octs (amr_tree_is_balanced_and_linked's tree).
// With levels = 2 the level-2 cells' face neighbours are missing (the gradient criterion's byte
// 2); with levels = 3 the flagged level-2 cells' neighbours have no level-1 holder (the balance).
inline amr::Tree unbalanced_tree(const OctMesh& base, int levels) {
  amr::Tree t = amr::base_tree(base, levels);
  const std::int64_t n0 = base.noct;
  std::uint64_t key = t.key[0];
  for (int l = 1; l <= 2; ++l) {
    key *= 8;
    t.key.push_back(key);
    t.level.push_back(static_cast<std::int8_t>(l));
    for (int a = 0; a < 3; ++a) t.coord[a].push_back(0);
  }
  t.level_begin = {0, n0, n0 + 1, n0 + 2};
  if (levels == 3) t.level_begin.push_back(n0 + 2);
  amr::link(t);
  return t;
}

}  // namespace ro::amr_test
