#include "solver_gpu.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "copa/device_memory.hpp"
#include "copa/errors.hpp"
#include "copa/gpu.hpp"

namespace efie {
namespace {

constexpr int warp = 32;

// One warp per column: the warp reads the column's contiguous entries (coalesced).
__global__ void column_abs_sum_kernel(const Cplx* __restrict__ a, long n, double* sums) {
  const long j = long(blockIdx.x) * (blockDim.x / warp) + threadIdx.x / warp;
  const int lane = threadIdx.x % warp;
  if (j >= n) return;
  const Cplx* col = a + j * n;
  double s = 0;
  for (long i = lane; i < n; i += warp) s += hypot(col[i].re, col[i].im);
  for (int offset = warp / 2; offset > 0; offset /= 2) s += copa::gpu::shfl_down(s, offset);
  if (lane == 0) sums[j] = s;
}

// One thread per row: r_i = b_i - sum_j a_ij x_j and sum_j |a_ij|; neighbouring threads read
// neighbouring entries of a column (coalesced).
__global__ void residual_rows_kernel(const Cplx* __restrict__ a, long n, const Cplx* __restrict__ x, const Cplx* __restrict__ b,
                                     Cplx* r, double* row_sums) {
  const long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Cplx acc = b[i];
  double s = 0;
  for (long j = 0; j < n; ++j) {
    const Cplx e = a[i + j * n];
    acc = acc - e * x[j];
    s += hypot(e.re, e.im);
  }
  r[i] = acc;
  row_sums[i] = s;
}

}  // namespace

double device_norm1(const Cplx* a, long n) {
  copa::gpu::DeviceArray<double> sums(n);
  const unsigned threads = 256;
  column_abs_sum_kernel<<<copa::gpu::blocks_for(std::size_t(n) * warp, threads), threads, 0, nullptr>>>(a, n, sums.data());
  COPA_GPU_CHECK_LAUNCH("column_abs_sum_kernel");
  std::vector<double> h(n);
  sums.copy_to_host(h.data());
  copa::gpu::synchronize();
  return *std::max_element(h.begin(), h.end());
}

double device_relative_residual(const Cplx* a, long n, const std::vector<std::complex<double>>& x,
                                const std::vector<std::complex<double>>& b) {
  copa::gpu::DeviceArray<Cplx> dx(n), db(n), dr(n);
  copa::gpu::DeviceArray<double> rows(n);
  dx.copy_from_host(reinterpret_cast<const Cplx*>(x.data()));
  db.copy_from_host(reinterpret_cast<const Cplx*>(b.data()));
  residual_rows_kernel<<<copa::gpu::blocks_for(n, 128), 128, 0, nullptr>>>(a, n, dx.data(), db.data(), dr.data(), rows.data());
  COPA_GPU_CHECK_LAUNCH("residual_rows_kernel");
  std::vector<std::complex<double>> r(n);
  std::vector<double> row_sums(n);
  dr.copy_to_host(reinterpret_cast<Cplx*>(r.data()));
  rows.copy_to_host(row_sums.data());
  copa::gpu::synchronize();
  double rn = 0, xn = 0;
  for (long i = 0; i < n; ++i) {
    rn = std::max(rn, std::abs(r[i]));
    xn = std::max(xn, std::abs(x[i]));
  }
  return rn / (*std::max_element(row_sums.begin(), row_sums.end()) * xn);
}

#if defined(COPA_HAVE_CUDA)
namespace {

void check(cusolverStatus_t s, const char* what) {
  if (s != CUSOLVER_STATUS_SUCCESS) throw copa::RuntimeError(std::string(what) + " failed (cuSOLVER status " + std::to_string(int(s)) + ")");
}

cusolverPrecType_t lowest_precision(const std::string& solver) {
  if (solver == "irs-fp32") return CUSOLVER_C_32F;
  if (solver == "irs-tf32") return CUSOLVER_C_TF32;
  if (solver == "irs-fp16") return CUSOLVER_C_16F;
  if (solver == "irs-bf16") return CUSOLVER_C_16BF;
  throw copa::InputError("--solver " + solver + " is not an iterative-refinement solver");
}

// The IRS parameter and information structures, destroyed on every path out.
struct IrsHandles {
  cusolverDnIRSParams_t params = nullptr;
  cusolverDnIRSInfos_t infos = nullptr;
  IrsHandles() {
    check(cusolverDnIRSParamsCreate(&params), "cusolverDnIRSParamsCreate");
    check(cusolverDnIRSInfosCreate(&infos), "cusolverDnIRSInfosCreate");
  }
  ~IrsHandles() {
    cusolverDnIRSInfosDestroy(infos);
    cusolverDnIRSParamsDestroy(params);
  }
  IrsHandles(const IrsHandles&) = delete;
  IrsHandles& operator=(const IrsHandles&) = delete;
};

}  // namespace

IrsResult device_irs_solve(cusolverDnHandle_t handle, const SolverOptions& o, Cplx* a, long n, std::vector<std::complex<double>>& b,
                           copa::RegionTimer& timer) {
  IrsHandles h;
  check(cusolverDnIRSParamsSetSolverPrecisions(h.params, CUSOLVER_C_64F, lowest_precision(o.solver)),
        "cusolverDnIRSParamsSetSolverPrecisions");
  check(cusolverDnIRSParamsSetRefinementSolver(h.params, resolved_refinement(o, copa::Backend::cuda) == "gmres"
                                                             ? CUSOLVER_IRS_REFINE_GMRES
                                                             : CUSOLVER_IRS_REFINE_CLASSICAL),
        "cusolverDnIRSParamsSetRefinementSolver");
  check(cusolverDnIRSParamsSetMaxIters(h.params, o.max_iters), "cusolverDnIRSParamsSetMaxIters");
  check(o.fallback ? cusolverDnIRSParamsEnableFallback(h.params) : cusolverDnIRSParamsDisableFallback(h.params),
        "cusolverDnIRSParams{Enable,Disable}Fallback");
  std::size_t lwork = 0;
  check(cusolverDnIRSXgesv_bufferSize(handle, h.params, int(n), 1, &lwork), "cusolverDnIRSXgesv_bufferSize");
  copa::gpu::require_device_memory(lwork + 32 * std::size_t(n) + 64,
                                   "cusolverDnIRSXgesv's workspace for the " + std::to_string(n) + "-unknown matrix (--solver " + o.solver + ")");
  copa::gpu::DeviceArray<char> work(std::max<std::size_t>(lwork, 1));
  copa::gpu::DeviceArray<Cplx> db(n), dx(n);
  copa::gpu::DeviceArray<int> info(1);
  db.copy_from_host(reinterpret_cast<const Cplx*>(b.data()));
  int niters = 0;
  {
    copa::Region r(timer, "solve.irs");
    check(cusolverDnIRSXgesv(handle, h.params, h.infos, int(n), 1, a, int(n), db.data(), int(n), dx.data(), int(n), work.data(), lwork,
                             &niters, info.data()),
          "cusolverDnIRSXgesv");
  }
  int dinfo = 0;
  info.copy_to_host(&dinfo);
  dx.copy_to_host(reinterpret_cast<Cplx*>(b.data()));
  copa::gpu::synchronize();
  if (dinfo != 0) throw copa::RuntimeError("cusolverDnIRSXgesv: info " + std::to_string(dinfo) + " (singular matrix?)");
  IrsResult res;
  res.niters = niters;
  // Outer iterations mean something for the two-level refinements only; a one-level one reports
  // niters (and a library that refuses the query must not fail the solve that succeeded).
  if (cusolverDnIRSInfosGetOuterNiters(h.infos, &res.outer_niters) != CUSOLVER_STATUS_SUCCESS) res.outer_niters = niters;
  check(cusolverDnIRSParamsGetMaxIters(h.params, &res.max_iters), "cusolverDnIRSParamsGetMaxIters");
  res.fell_back = niters < 0 && o.fallback;
  res.workspace_bytes = double(lwork);
  return res;
}
#endif

}  // namespace efie
