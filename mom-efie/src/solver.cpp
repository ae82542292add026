#include "solver.hpp"

#include <lapacke.h>

#include <algorithm>
#include <cmath>

#include "copa/errors.hpp"
#include "copa/report.hpp"

namespace efie {

using complex = std::complex<double>;

std::vector<std::string> solvers() { return {"lu", "irs-fp32", "irs-tf32", "irs-fp16", "irs-bf16"}; }
std::vector<std::string> refinements() { return {"classical", "gmres"}; }

std::string resolved_refinement(const SolverOptions& o, copa::Backend b) {
  if (!o.refinement.empty()) return o.refinement;
  return copa::is_gpu(b) ? "gmres" : "classical";
}

void check_solver(const SolverOptions& o, copa::Backend b) {
  const auto s = solvers(), r = refinements();
  if (std::find(s.begin(), s.end(), o.solver) == s.end())
    throw copa::InputError("--solver must be one of lu, irs-fp32, irs-tf32, irs-fp16, irs-bf16 (got '" + o.solver + "')");
  if (!o.refinement.empty() && std::find(r.begin(), r.end(), o.refinement) == r.end())
    throw copa::InputError("--refinement must be classical or gmres (got '" + o.refinement + "')");
  if (o.max_iters < 1) throw copa::InputError("--irs-max-iters must be at least 1");
  if (!o.irs()) return;
  const std::string name = copa::to_string(b);
  if (b == copa::Backend::hip)
    throw copa::InputError("--solver " + o.solver + " on hip: the HIP stack here (Debian's rocSOLVER, no hipSOLVER) has no "
                           "iterative-refinement solver; use --solver lu or the cuda backend");
  if (copa::is_gpu(b)) return;
  if (o.solver != "irs-fp32")
    throw copa::InputError("--solver " + o.solver + " on " + name +
                           ": the tensor-core precisions (tf32, fp16, bf16) exist on the GPU only; the host has irs-fp32 "
                           "(LAPACK zcgesv)");
  if (o.refinement == "gmres")
    throw copa::InputError("--refinement gmres on " + name + ": LAPACK zcgesv refines classically only");
  if (o.max_iters_given)
    throw copa::InputError("--irs-max-iters on " + name + ": LAPACK zcgesv's iteration limit is fixed (30)");
  if (o.fallback_given && !o.fallback)
    throw copa::InputError("--irs-fallback off on " + name + ": LAPACK zcgesv always falls back to zgesv");
}

double host_relative_residual(const complex* a, long n, const std::vector<complex>& x, const std::vector<complex>& b) {
  std::vector<complex> r(b.begin(), b.end());
  std::vector<double> row_sum(n, 0.0);
  for (long j = 0; j < n; ++j) {
    const complex* col = a + std::size_t(j) * n;
    for (long i = 0; i < n; ++i) {
      r[i] -= col[i] * x[j];
      row_sum[i] += std::abs(col[i]);
    }
  }
  double rn = 0, an = 0, xn = 0;
  for (long i = 0; i < n; ++i) {
    rn = std::max(rn, std::abs(r[i]));
    an = std::max(an, row_sum[i]);
    xn = std::max(xn, std::abs(x[i]));
  }
  return rn / (an * xn);
}

IrsResult host_irs_solve(complex* a, long n, std::vector<complex>& b) {
  // zcgesv's FP32 copy of A (LAPACKE allocates SWORK, n (n + 1) single complex) before it exists.
  copa::require_host_memory(std::size_t(8.0 * double(n) * double(n + 1)),
                            "zcgesv's FP32 copy of the " + std::to_string(n) + "-unknown matrix");
  std::vector<complex> x(n);
  std::vector<lapack_int> pivots(n);
  lapack_int iter = 0;
  const lapack_int info = LAPACKE_zcgesv(LAPACK_COL_MAJOR, lapack_int(n), 1, reinterpret_cast<lapack_complex_double*>(a),
                                         lapack_int(n), pivots.data(), reinterpret_cast<lapack_complex_double*>(b.data()),
                                         lapack_int(n), reinterpret_cast<lapack_complex_double*>(x.data()), lapack_int(n), &iter);
  if (info > 0) throw copa::RuntimeError("zcgesv: the matrix is singular (info " + std::to_string(info) + ")");
  if (info < 0) throw copa::RuntimeError("zcgesv: argument " + std::to_string(-info) + " invalid");
  IrsResult res;
  res.niters = iter;
  res.outer_niters = iter;
  res.fell_back = iter < 0;
  res.max_iters = 30;  // zcgesv's ITERMAX
  if (copa::test_mutation("force-fallback")) {
    // The test suite's mutation check: reported as zcgesv reports a refinement that reached ITERMAX
    // (iter = -31) and solved again in FP64; the tests of a converging problem must then fail.
    res.niters = res.outer_niters = -31;
    res.fell_back = true;
  }
  res.workspace_bytes = 8.0 * double(n) * double(n + 1);
  b = std::move(x);
  return res;
}

double hager_higham_inverse_norm1(long n, const std::function<void(std::vector<complex>&, bool)>& solve) {
  auto norm1 = [](const std::vector<complex>& v) {
    double s = 0;
    for (const auto& e : v) s += std::abs(e);
    return s;
  };
  // sign(y) = y / |y| (1 where y = 0): the subgradient of ||y||_1 at y.
  auto sign_of = [](std::vector<complex>& v) {
    for (auto& e : v) e = std::abs(e) > 0 ? e / std::abs(e) : complex(1);
  };
  auto argmax_abs = [](const std::vector<complex>& v) {
    std::size_t j = 0;
    for (std::size_t i = 1; i < v.size(); ++i)
      if (std::abs(v[i]) > std::abs(v[j])) j = i;
    return j;
  };
  std::vector<complex> v(n, complex(1.0 / double(n)));
  solve(v, false);
  double est = norm1(v);
  if (n == 1) return est;
  sign_of(v);
  solve(v, true);
  std::size_t j = argmax_abs(v);
  // Hager's steps towards the column of A^-1 of largest 1-norm: at most 5 as in zlacn2.
  for (int iter = 2; iter <= 5; ++iter) {
    std::fill(v.begin(), v.end(), complex(0));
    v[j] = 1;
    solve(v, false);
    const double old = est;
    est = norm1(v);
    if (est <= old) {
      est = old;
      break;
    }
    sign_of(v);
    solve(v, true);
    const std::size_t last = j;
    j = argmax_abs(v);
    if (std::abs(v[last]) == std::abs(v[j])) break;
  }
  // Higham's safeguard: x_i = (-1)^i (1 + i / (n - 1)) catches matrices where the steps stall.
  for (long i = 0; i < n; ++i) v[i] = (i % 2 == 0 ? 1.0 : -1.0) * (1.0 + double(i) / double(n - 1));
  solve(v, false);
  return std::max(est, 2.0 * norm1(v) / (3.0 * double(n)));
}

}  // namespace efie
