// The linear solver of the dense system (--solver, --refinement, --irs-max-iters, --irs-fallback):
// the FP64 LU (lu, the default) or an iterative-refinement solve (IRS) whose factorisation runs in
// a lower precision and whose residuals and corrections are refined in FP64 (Carson and Higham,
// SIAM J. Sci. Comput. 40(2), 2018; Haidar et al., SC18). The engines run it: LAPACK zcgesv on the
// host (FP32 factorisation, classical refinement only), cusolverDnIRSXgesv on CUDA.
#pragma once
#include <complex>
#include <functional>
#include <string>
#include <vector>

#include "copa/backend.hpp"

namespace efie {

struct SolverOptions {
  std::string solver = "lu";  // lu | irs-fp32 | irs-tf32 | irs-fp16 | irs-bf16
  std::string refinement;     // classical | gmres; empty: the backend's default (resolved_refinement)
  int max_iters = 50;         // cuSOLVER's total refinement iterations (LAPACK zcgesv: fixed 30)
  bool fallback = true;       // solve again in FP64 when the refinement does not converge
  bool max_iters_given = false, fallback_given = false;
  bool irs() const { return solver != "lu"; }
};

// What one IRS solve did. niters > 0: refinement iterations to convergence; niters < 0: the
// solver's code for not converging (cuSOLVER: -1 a lower precision not worth it for this size,
// -2 overflow converting to the lower precision, -3 the low-precision factorisation failed,
// -5 overflow during the refinement, -50 max iterations reached; LAPACK zcgesv: -1, -2, -3 alike,
// -31 its 30 iterations reached). fell_back: the returned solution came from an FP64 LU.
struct IrsResult {
  int niters = 0;
  int outer_niters = 0;  // cuSOLVER: outer iterations of a two-level refinement (else = niters)
  bool fell_back = false;
  double relative_residual = -1;  // ||b - A x||_inf / (||A||_inf ||x||_inf), x the returned solution
  double workspace_bytes = 0;
  int max_iters = 0;  // the limit in force (LAPACK: its fixed ITERMAX)
};

std::vector<std::string> solvers();
std::vector<std::string> refinements();
// The refinement the backend uses when --refinement is not given: GMRES on the GPU (see the README:
// the EFIE matrix's condition number times the FP16/BF16 unit roundoff exceeds 1, where classical
// refinement diverges and GMRES-IR still converges), classical on the host (zcgesv's only one).
std::string resolved_refinement(const SolverOptions& o, copa::Backend b);
// Refuses (InputError, exit 2) what a backend cannot run: an unknown --solver or --refinement,
// --irs-max-iters < 1, the tensor-core precisions (tf32, fp16, bf16) and gmres, --irs-max-iters,
// --irs-fallback off on the host (zcgesv has FP32, classical refinement, 30 iterations and the
// fallback fixed), and every irs-* on HIP (no IRS solver in the HIP stack installed here).
void check_solver(const SolverOptions& o, copa::Backend b);

// Relative residual ||b - A x||_inf / (||A||_inf ||x||_inf) (the normwise backward error without the
// ||b|| term; Rigal and Gaches 1967, Higham "Accuracy and Stability", thm 7.1), A column-major n x n.
double host_relative_residual(const std::complex<double>* a, long n, const std::vector<std::complex<double>>& x,
                              const std::vector<std::complex<double>>& b);
// LAPACK zcgesv: FP32 LU, classical refinement in FP64, fallback to zgesv after 30 iterations. A is
// unchanged when the refinement converged and holds the FP64 factors when it fell back; b is
// overwritten with x. The caller computes the residual (it keeps the matrix).
IrsResult host_irs_solve(std::complex<double>* a, long n, std::vector<std::complex<double>>& b);

// Hager's 1-norm estimator of ||A^-1||_1 in Higham's form (LAPACK zlacn2; Higham, ACM TOMS 14(4),
// 1988), from solves with the LU: solve(v, false) overwrites v with A^-1 v, solve(v, true) with
// A^-H v. About 4 to 5 solve pairs, O(n^2) each with the factors, so it serves the device LU too.
double hager_higham_inverse_norm1(long n, const std::function<void(std::vector<std::complex<double>>&, bool)>& solve);

}  // namespace efie
