// The device side of solver.hpp: the IRS solve through cuSOLVER, and the norms of the residual and
// of the condition estimate from kernels (CUDA and HIP).
#pragma once
#include <complex>
#include <vector>

#include "copa/gpu.hpp"  // first: the HIP runtime defines __host__ __device__ for math.hpp
#include "copa/timing.hpp"
#include "math.hpp"
#include "solver.hpp"

#if defined(COPA_HAVE_CUDA)
#include <cusolverDn.h>
#endif

namespace efie {

// ||A||_1 = max_j sum_i |a_ij| of the column-major n x n device matrix.
double device_norm1(const Cplx* a, long n);
// ||b - A x||_inf / (||A||_inf ||x||_inf), A on the device, x and b on the host.
double device_relative_residual(const Cplx* a, long n, const std::vector<std::complex<double>>& x,
                                const std::vector<std::complex<double>>& b);

#if defined(COPA_HAVE_CUDA)
// cusolverDnIRSXgesv: main precision complex FP64, lowest o.solver's (C_32F, C_TF32, C_16F, C_16BF),
// o's refinement, iteration limit and fallback, cuSOLVER's default tolerance
// (||r||_inf < sqrt(n) ||x||_inf ||A||_inf eps). a is unchanged when it converged and garbage
// otherwise; b is overwritten with x. The call is timed as "solve.irs"; its workspace is refused
// (exit 3, with the estimate) before it is allocated when it does not fit.
IrsResult device_irs_solve(cusolverDnHandle_t handle, const SolverOptions& o, Cplx* a, long n, std::vector<std::complex<double>>& b,
                           copa::RegionTimer& timer);
#endif

}  // namespace efie
