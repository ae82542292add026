// --solver on the host: LAPACK zcgesv (irs-fp32) on the serial and OpenMP engines against the FP64
// LU of the same matrix (1e-10, the backward-error bound, Mie), and the Hager/Higham 1-norm
// estimator (the GPU's condition estimate) against LAPACK zgecon and the exact ||A^-1||_1.
#include <cmath>
#include <iostream>

#include "copa/testing.hpp"
#include "kernels.hpp"
#include "variants.hpp"
#include "reference.hpp"
#include "solution_report.hpp"
#include "solver_checks.hpp"

using namespace efie;

namespace {

Problem small_sphere() { return make_problem(make_sphere(1.0, 4), 2.0, 1.0, PlaneWave{}); }

}  // namespace

TEST(Solver, irs_fp32_matches_lu) {
  const Problem p = small_sphere();
  const long n = p.unknowns();
  SolverOptions o;
  o.solver = "irs-fp32";
  for (auto b : copa::built_backends()) {
    if (copa::is_gpu(b)) continue;
    auto e = make_engine(b, default_selection(b), n, p.triangle_count());
    e->upload(p);
    copa::Profile prof;
    copa::HostTimer t(prof);
    e->fill(t);
    const auto a = e->matrix();
    const auto rhs = plane_wave_rhs(p);
    auto x_irs = rhs, x_lu = rhs;
    const IrsResult irs = e->solve_irs(o, x_irs, t);
    EXPECT_TRUE(e->matrix() == a);  // restored for the LU
    e->factor(t);
    e->solve(x_lu, t);
    const double eta_irs = host_relative_residual(a.data(), n, x_irs, rhs), eta_lu = host_relative_residual(a.data(), n, x_lu, rhs);
    const double kappa_inf = LAPACKE_zlange(LAPACK_COL_MAJOR, 'I', n, n, reinterpret_cast<const lapack_complex_double*>(a.data()), n) *
                             efie_test::inverse_norm(a, n, 'I');
    const double diff = efie_test::inf_distance(x_irs, x_lu), bound = efie_test::solution_distance_bound(kappa_inf, eta_irs, eta_lu, x_irs, x_lu);
    const double rms = rms_db_error(bistatic_rcs(p, x_irs), 2.0);
    std::cout << "  " << copa::to_string(b) << " (N = " << n << "): niters " << irs.niters << ", residual " << eta_irs << " (engine "
              << irs.relative_residual << ", LU " << eta_lu << "), solution vs LU " << relative_difference(x_irs, x_lu) << " (inf " << diff
              << ", bound " << bound << ", kappa_inf " << kappa_inf << "), Mie " << rms << " dB\n";
    // zcgesv stops at ||r||_inf < sqrt(N) ||x||_inf ||A||_inf eps. The small sphere converges in
    // FP32: a fallback to the FP64 LU here would hide a broken refinement behind a correct answer.
    EXPECT_TRUE(irs.niters > 0);
    EXPECT_FALSE(irs.fell_back);
    EXPECT_TRUE(eta_irs <= std::sqrt(double(n)) * 0x1p-53 + double(n + 1) * 0x1p-53);
    COPA_EXPECT_NEAR_REL(irs.relative_residual, eta_irs, 1e-6);
    EXPECT_TRUE(diff <= bound);
    EXPECT_TRUE(relative_difference(x_irs, x_lu) <= 1e-10);
    EXPECT_TRUE(rms <= 0.5);
  }
}

// The estimator with host LU solves: a lower bound of ||A^-1||_1 (every estimate is ||A^-1 v||_1 of
// a unit v), within a factor 3 of it and of zgecon's (the same algorithm, LAPACK's zlacn2). The
// EFIE matrix is symmetric; the CFIE's is not, so its adjoint solves (A^-H) are checked too.
TEST(Solver, condition_estimator) {
  const Problem sphere = small_sphere(), cube = make_problem(make_cube(1.0, 3), 2.0, 0.5, PlaneWave{});
  struct Case {
    const Problem& p;
    Formulation f;
  };
  for (const Case& c : {Case{sphere, {}}, Case{cube, {}}, Case{cube, make_formulation("cfie", 0.5)}}) {
    const Problem& p = c.p;
    const long n = p.unknowns();
    auto e = make_engine(copa::Backend::serial, default_selection(copa::Backend::serial), n, p.triangle_count());
    e->set_formulation(c.f);
    e->upload(p);
    copa::Profile prof;
    copa::HostTimer t(prof);
    e->fill(t);
    const auto a = e->matrix();
    auto lu = a;
    std::vector<int> piv;
    host_lu_factor(lu.data(), n, piv);
    const double estimate = hager_higham_inverse_norm1(n, [&](std::vector<complex>& v, bool adjoint) {
      LAPACKE_zgetrs(LAPACK_COL_MAJOR, adjoint ? 'C' : 'N', n, 1, reinterpret_cast<const lapack_complex_double*>(lu.data()), n, piv.data(),
                     reinterpret_cast<lapack_complex_double*>(v.data()), n);
    });
    const double exact = efie_test::inverse_norm(a, n, '1');
    const double zgecon = host_condition_estimate(lu.data(), n, host_norm1(a.data(), n)) / host_norm1(a.data(), n);
    std::cout << "  " << c.f.name << " N = " << n << ": ||A^-1||_1 exact " << exact << ", Hager/Higham " << estimate << ", zgecon " << zgecon << "\n";
    EXPECT_TRUE(estimate <= exact * (1 + 1e-10));
    EXPECT_TRUE(estimate >= exact / 3);
    EXPECT_TRUE(estimate <= 3 * zgecon && zgecon <= 3 * estimate);
  }
}
