#include <cmath>
#include <string>

#include "copa/errors.hpp"
#include "copa/testing.hpp"
#include "reference.hpp"
#include "test_helpers.hpp"

using namespace ro;

COPA_TEST(openmp_equals_serial) {
#if defined(COPA_HAVE_OPENMP)
  struct Case {
    const char* problem;
    std::array<int, 3> cells;
    Boundary bc;
    int slope, riemann;
  };
  const Case cases[] = {{"sedov", {16, 16, 16}, Boundary::periodic, 1, riemann_hll},
                        {"sedov", {16, 8, 32}, Boundary::reflecting, 2, riemann_hllc},
                        {"sod", {64, 4, 8}, Boundary::outflow, 1, riemann_llf},
                        {"sound", {16, 8, 8}, Boundary::periodic, 2, riemann_hll}};
  for (const Case& c : cases) {
    const auto s = test::run_problem(copa::Backend::serial, c.problem, c.cells, c.bc, 12, -1, c.slope, c.riemann);
    const auto o = test::run_problem(copa::Backend::openmp, c.problem, c.cells, c.bc, 12, -1, c.slope, c.riemann);
    COPA_CHECK(s.steps == 12 && o.steps == 12);
    COPA_CHECK(relative_l2(o.u, s.u) < 1e-12);
    COPA_CHECK(std::fabs(o.t - s.t) <= 1e-14 * s.t);
  }
#endif
}

COPA_TEST(conservation_periodic_and_reflecting) {
  for (Boundary bc : {Boundary::periodic, Boundary::reflecting}) {
    const OctMesh m = build_mesh({16, 16, 16}, {bc, bc, bc});
    ProblemParams pp;
    std::vector<double> u0;
    initialise(m, pp, u0);
    const Totals t0 = totals(m, u0);
    RunConfig cfg;
    cfg.tend = 0.2;  // the blast reaches the walls: the reflecting faces are exercised
    const RunResult r = run_backend(copa::Backend::serial, "oracle", m, u0, cfg);
    const Totals t1 = totals(m, r.u);
    COPA_CHECK(std::fabs(t1.mass - t0.mass) / t0.mass < 1e-12);
    COPA_CHECK(std::fabs(t1.energy - t0.energy) / t0.energy < 1e-12);
    COPA_CHECK(r.steps > 20);
  }
}

COPA_TEST(sedov_is_mirror_symmetric) {
  // The deposit is symmetric about the box centre: cell (i,j,k) and (n-1-i,j,k) stay equal, and
  // so do (i,j,k) and (j,i,k) (x <-> y exchange).
  const OctMesh m = build_mesh({16, 16, 16}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  const auto r = test::run_problem(copa::Backend::serial, "sedov", {16, 16, 16}, Boundary::periodic, 30);
  const std::int64_t n = m.ncell();
  auto rho = [&](int i, int j, int k) { return r.u[m.oct_at(i / 2, j / 2, k / 2) * 8 + (i & 1) + 2 * (j & 1) + 4 * (k & 1)]; };
  (void)n;
  double worst = 0;
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 16; ++i) {
        worst = std::fmax(worst, std::fabs(rho(i, j, k) - rho(15 - i, j, k)));
        worst = std::fmax(worst, std::fabs(rho(i, j, k) - rho(j, i, k)));
      }
  COPA_CHECK(worst < 1e-12);
}

COPA_TEST(bad_state_stops_with_step_and_cell) {
  const OctMesh m = build_mesh({8, 8, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  ProblemParams pp;
  std::vector<double> u0;
  initialise(m, pp, u0);
  u0[4 * m.ncell() + 77] = -1.0;  // negative pressure in cell 77
  RunConfig cfg;
  cfg.tend = 1;
  bool thrown = false;
  try {
    run_backend(copa::Backend::serial, "oracle", m, u0, cfg);
  } catch (const copa::RuntimeError& e) {
    const std::string what = e.what();
    thrown = what.find("step 0") != std::string::npos && what.find("cell 77") != std::string::npos &&
             what.find("pressure -") != std::string::npos;
  }
  COPA_CHECK(thrown);
}
