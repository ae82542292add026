// --solver irs-* on the device (cusolverDnIRSXgesv) against the device FP64 LU of the same matrix,
// and the device condition estimate (Hager/Higham with getrs) against LAPACK zgecon on the host.
// Labelled gpu: run on the H200 only.
#include <cmath>
#include <iostream>

#include "copa/cli.hpp"
#include "copa/testing.hpp"
#include "kernels.hpp"
#include "variants.hpp"
#include "reference.hpp"
#include "solution_report.hpp"
#include "solver_checks.hpp"
#include "fixtures.hpp"

using namespace efie;

namespace {

using efie_test::gpu_backend;

Problem small_sphere() { return make_problem(make_sphere(1.0, 6), 2.0, 1.0, PlaneWave{}); }

}  // namespace

// Every lowest precision with both refinements: converged (no fallback to FP64), the residual at
// the FP64 level of the stopping test, the solution within the backward-error bound of the FP64
// LU's and within 1e-10, the RCS against Mie. The residuals and kappa_inf are computed on the host
// from the device's own matrix.
TEST(GpuSolver, irs_matches_lu) {
  copa::select_device(-1);
  const Problem p = small_sphere();
  const long n = p.unknowns();
  const auto rhs = plane_wave_rhs(p);
  for (const auto& solver : solvers()) {
    if (solver == "lu") continue;
    for (const auto& refinement : refinements()) {
      SolverOptions o;
      o.solver = solver;
      o.refinement = refinement;
      auto e = make_engine(gpu_backend(), default_selection(gpu_backend()), n, p.triangle_count());
      e->upload(p);
      copa::Profile prof;
      auto t = e->make_timer(prof);
      e->fill(*t);
      const auto a = e->matrix();
      auto x_irs = rhs, x_lu = rhs;
      const IrsResult irs = e->solve_irs(o, x_irs, *t);
      EXPECT_TRUE(e->matrix() == a);  // restored for the LU
      e->factor(*t);
      e->solve(x_lu, *t);
      t->flush();
      const double eta_irs = host_relative_residual(a.data(), n, x_irs, rhs), eta_lu = host_relative_residual(a.data(), n, x_lu, rhs);
      const double kappa_inf = LAPACKE_zlange(LAPACK_COL_MAJOR, 'I', n, n, reinterpret_cast<const lapack_complex_double*>(a.data()), n) *
                               efie_test::inverse_norm(a, n, 'I');
      const double diff = efie_test::inf_distance(x_irs, x_lu);
      const double bound = efie_test::solution_distance_bound(kappa_inf, eta_irs, eta_lu, x_irs, x_lu);
      const double rms = rms_db_error(bistatic_rcs(p, x_irs), 2.0);
      std::cout << "  " << solver << " " << refinement << " (N = " << n << "): niters " << irs.niters << (irs.fell_back ? " (fell back)" : "")
                << ", residual " << eta_irs << " (device " << irs.relative_residual << ", LU " << eta_lu << "), solution vs LU "
                << relative_difference(x_irs, x_lu) << " (inf " << diff << ", bound " << bound << "), Mie " << rms << " dB\n";
      // The small sphere converges at every lowest precision: a fallback to the FP64 LU here would
      // hide a broken refinement behind a correct answer.
      EXPECT_TRUE(irs.niters > 0);
      EXPECT_FALSE(irs.fell_back);
      // cuSOLVER's default stopping test ||r||_inf < sqrt(N) ||x||_inf ||A||_inf eps, plus the
      // rounding of our own residual ((N + 1) eps); a fallback is an FP64 LU, far below it.
      // (the device's own residual is at the rounding level too, so it is held to the same bound,
      // not compared digit by digit with the host's: both are mostly rounding noise)
      const double residual_bound = (std::sqrt(double(n)) + double(n + 1)) * 0x1p-53;
      EXPECT_TRUE(eta_irs <= residual_bound);
      EXPECT_TRUE(irs.relative_residual > 0 && irs.relative_residual <= residual_bound);
      EXPECT_TRUE(diff <= bound);
      EXPECT_TRUE(relative_difference(x_irs, x_lu) <= 1e-10);
      EXPECT_TRUE(rms <= 0.5);
    }
  }
}

// The device estimate of ||A||_1 ||A^-1||_1 against zgecon on the host LU of the same matrix, to a
// factor of 3 (both are lower bounds of the same quantity by the same kind of estimator), for the
// EFIE and the CFIE (not symmetric: the adjoint solves matter) and every --lu routine.
TEST(GpuSolver, condition_estimate_vs_zgecon) {
  copa::select_device(-1);
  const Problem p = small_sphere();
  const long n = p.unknowns();
  for (const char* name : {"efie", "cfie"})
    for (const auto& lu : lu_methods()) {
      auto e = make_engine(gpu_backend(), default_selection(gpu_backend()), n, p.triangle_count());
      e->set_formulation(make_formulation(name, 0.5));
      e->set_lu_method(lu);
      e->upload(p);
      copa::Profile prof;
      auto t = e->make_timer(prof);
      e->fill(*t);
      auto a = e->matrix();
      e->factor(*t);
      t->flush();
      const double norm1 = host_norm1(a.data(), n);
      std::vector<int> piv;
      host_lu_factor(a.data(), n, piv);
      const double host = host_condition_estimate(a.data(), n, norm1), device = e->condition_estimate();
      std::cout << "  " << name << " " << lu << " (N = " << n << "): condition estimate device " << device << ", host zgecon " << host << "\n";
      EXPECT_TRUE(device > 0);
      EXPECT_TRUE(device <= 3 * host && host <= 3 * device);
    }
}
