#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "copa/testing.hpp"
#include "hydro/hydro_math.hpp"
#include "variants.hpp"
#include "hydro/reference.hpp"
#include "test_helpers.hpp"

using namespace ro;

TEST(Numerics, exact_riemann_matches_toro) {
  // Toro, Table 4.3, test 1.
  const ExactRiemann ex({1.0, 0.0, 1.0}, {0.125, 0.0, 0.1}, 1.4);
  COPA_EXPECT_NEAR_REL(ex.p_star(), 0.30313, 2e-5);
  COPA_EXPECT_NEAR_REL(ex.u_star(), 0.92745, 2e-5);
  COPA_EXPECT_NEAR_REL(ex.sample(0.5).rho, 0.42632, 2e-5);   // left of the contact (u* = 0.927)
  COPA_EXPECT_NEAR_REL(ex.sample(1.2).rho, 0.26557, 2e-5);   // between contact and shock (1.7522)
  COPA_EXPECT_NEAR_REL(ex.sample(1.76).rho, 0.125, 1e-15);
  COPA_EXPECT_NEAR_REL(ex.sample(-1.3).rho, 1.0, 1e-15);
}

TEST(Numerics, riemann_fluxes_are_consistent) {
  // F(U, U) is the physical flux for every solver; the limiter gives 0 at an extremum.
  const NormalState s{1.3, 0.7, -0.2, 0.4, 2.1};
  double u[nvar], f[nvar];
  normal_cons_flux(s, 1.0 / (1.4 - 1.0), u, f);
  for (auto solver : {riemann_hll_flux, riemann_hllc_flux, riemann_llf_flux}) {
    double g[nvar];
    solver(s, s, 1.4, g);
    for (int k = 0; k < nvar; ++k) COPA_EXPECT_NEAR_REL(g[k], f[k], 1e-14);
  }
  EXPECT_TRUE(limited_slope(1.0, 2.0, 1.5, 1) == 0.0);
  COPA_EXPECT_NEAR_REL(limited_slope(1.0, 2.0, 4.0, 1), 1.0, 1e-15);
  COPA_EXPECT_NEAR_REL(limited_slope(1.0, 2.0, 4.0, 2), 1.5, 1e-15);
}

// RAMSES uslope as written there, dc = 0.5 (dl + dr) / slope_type: limited_slope forms the
// division as a product with 1 or 1/2, which must give the same bits (the uniform and AMR
// variants' states are compared bit for bit with runs made before that change).
static double ramses_uslope(double qm, double q0, double qp, int slope_type) {
  const double dl = slope_type * (q0 - qm);
  const double dr = slope_type * (qp - q0);
  const double dc = 0.5 * (dl + dr) / slope_type;
  if (dl * dr <= 0.0) return 0.0;
  return std::copysign(std::fmin(std::fmin(std::fabs(dl), std::fabs(dr)), std::fabs(dc)), dc);
}

TEST(Numerics, limited_slope_has_the_bits_of_the_division) {
  std::mt19937_64 gen(2026);
  std::uniform_real_distribution<double> unit(-2.0, 2.0);
  auto bits = [](double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
  };
  int differing = 0, active = 0;
  for (int i = 0; i < 400000; ++i) {
    // Scales from subnormal to near overflow, and smooth triples where the limiter is active.
    const int e = int(gen() % 2100) - 1060;
    const double qm = std::ldexp(unit(gen), e), q0 = std::ldexp(unit(gen), e);
    const double qp = i % 2 ? q0 + (q0 - qm) * (1.0 + 0.5 * unit(gen)) : std::ldexp(unit(gen), e);
    for (int slope_type : {1, 2}) {
      const double ref = ramses_uslope(qm, q0, qp, slope_type);
      differing += bits(limited_slope(qm, q0, qp, slope_type)) != bits(ref);
      active += ref != 0.0;
    }
  }
  EXPECT_EQ(differing, 0);
  EXPECT_GT(active, 200000);
}

TEST(Numerics, uniform_state_is_steady) {
  for (Boundary bc : {Boundary::periodic, Boundary::reflecting, Boundary::outflow}) {
    const OctMesh m = build_mesh({8, 8, 16}, {bc, bc, bc});
    std::vector<double> u0(m.ncell() * nvar);
    const std::int64_t n = m.ncell();
    for (std::int64_t g = 0; g < n; ++g) {
      u0[g] = 1.0;
      u0[4 * n + g] = 2.5;
    }
    RunConfig cfg;
    cfg.tend = 1;
    cfg.max_steps = 3;
    const RunResult r = run_backend(copa::Backend::serial, selection(copa::Backend::serial, "oracle"), m, u0, cfg);
    EXPECT_TRUE(r.steps == 3);
    double diff = 0;
    for (std::size_t i = 0; i < u0.size(); ++i) diff = std::fmax(diff, std::fabs(r.u[i] - u0[i]));
    EXPECT_TRUE(diff < 1e-14);
  }
}
