#include <cmath>
#include <iostream>

#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "test_helpers.hpp"
#include "hydro/verification.hpp"

using namespace ro;

namespace {
ProblemParams params(const std::string& name) {
  ProblemParams pp;
  pp.name = name;
  return pp;
}
}  // namespace

TEST(Verification, verdict_at_run_end_time_and_wrong_state_fails) {
  // Sod stopped at t = 0.15 (not Toro's 0.2) is verified against the exact solution at 0.15.
  const std::array<int, 3> cells = {64, 4, 4};
  const OctMesh m = build_mesh(cells, {Boundary::outflow, Boundary::outflow, Boundary::outflow});
  const ProblemParams pp = params("sod");
  std::vector<double> u0;
  initialise(m, pp, u0);
  const Totals t0 = totals(m, u0);
  const auto r = test::run_problem(copa::Backend::serial, "sod", cells, Boundary::outflow, 100000, 0.15);
  COPA_EXPECT_NEAR_REL(r.t, 0.15, 1e-14);
  const PhysicsVerdict ok = check_physics(m, pp, "minmod", r.u, r.t, t0);
  std::cout << copa::verdict_line(ok.v) << "\n";
  EXPECT_TRUE(ok.v.verified && ok.v.passed);
  // The same state judged as if it were at t = 0.25 (waves still inside the tube): wrong, must fail.
  const PhysicsVerdict late = check_physics(m, pp, "minmod", r.u, 0.25, t0);
  std::cout << copa::verdict_line(late.v) << "\n";
  EXPECT_TRUE(late.v.verified && !late.v.passed);
  // The initial state judged at t = 0.15 must fail too.
  const PhysicsVerdict init = check_physics(m, pp, "minmod", u0, 0.15, t0);
  EXPECT_TRUE(init.v.verified && !init.v.passed);
}

TEST(Verification, runs_without_reference_are_not_verified) {
  // Sedov's initial state claimed at t = 0.05 on 32^3: the radius check applies and must fail.
  const OctMesh m = build_mesh({32, 32, 32}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  ProblemParams sedov = params("sedov");
  std::vector<double> u0;
  initialise(m, sedov, u0);
  const Totals t0 = totals(m, u0);
  const PhysicsVerdict wrong = check_physics(m, sedov, "minmod", u0, 0.05, t0);
  EXPECT_TRUE(wrong.v.verified && !wrong.v.passed);
  // An unresolved shock (t = 1e-4: R < 1 cell): no radius check, conservation decides (periodic).
  const PhysicsVerdict early = check_physics(m, sedov, "minmod", u0, 1e-4, t0);
  EXPECT_TRUE(early.v.verified && early.v.passed && early.v.reference == "conservation of mass and energy");
  // A gamma without a Sedov constant and open boundaries: NOT VERIFIED, never PASSED.
  const OctMesh open = build_mesh({16, 16, 16}, {Boundary::outflow, Boundary::outflow, Boundary::outflow});
  sedov.gamma = 1.3;
  std::vector<double> v0;
  initialise(open, sedov, v0);
  const PhysicsVerdict nogamma = check_physics(open, sedov, "minmod", v0, 0.05, totals(open, v0));
  std::cout << copa::verdict_line(nogamma.v) << "\n";
  EXPECT_TRUE(!nogamma.v.verified);
  // The sound wave with outflow faces and Sod with a periodic tube have no reference.
  const ProblemParams sound = params("sound");
  initialise(open, sound, v0);
  EXPECT_TRUE(!check_physics(open, sound, "mc", v0, 0.1, totals(open, v0)).v.verified);
  const OctMesh ring = build_mesh({32, 4, 4}, {Boundary::periodic, Boundary::outflow, Boundary::outflow});
  initialise(ring, params("sod"), v0);
  EXPECT_TRUE(!check_physics(ring, params("sod"), "minmod", v0, 0.1, totals(ring, v0)).v.verified);
}

TEST(Verification, two_runs_are_bitwise_identical) {
  // Same options twice on each CPU backend: identical final states (checksums and every bit).
  std::vector<copa::Backend> backends = {copa::Backend::serial};
#if defined(COPA_HAVE_OPENMP)
  backends.push_back(copa::Backend::openmp);
#endif
  for (copa::Backend b : backends) {
    const auto a = test::run_problem(b, "sedov", {16, 16, 16}, Boundary::periodic, 8);
    const auto c = test::run_problem(b, "sedov", {16, 16, 16}, Boundary::periodic, 8);
    std::cout << copa::to_string(b) << " checksums " << hex(state_checksum(a.u)) << " " << hex(state_checksum(c.u)) << "\n";
    EXPECT_TRUE(state_checksum(a.u) == state_checksum(c.u));
    EXPECT_TRUE(a.u == c.u);
    EXPECT_TRUE(a.t == c.t);
  }
}
