// What the serial and OpenMP engines share: the column-major N x N matrix in the host pool, its
// LAPACK LU (zgetrf/zgetrs) and the read-back of the matrix or of sampled entries. The fills differ.
#pragma once
#include <algorithm>
#include <array>
#include <memory_resource>
#include <vector>

#include "copa/memory.hpp"
#include "kernels.hpp"

namespace efie {

class HostMatrixEngine : public Engine {
 public:
  // one_blas_thread: the serial backend's LAPACK calls run on one thread (its roofline is the
  // one-thread ceiling); otherwise the library's own thread count.
  HostMatrixEngine(long n, bool one_blas_thread)
      : n_(n), a_(std::size_t(n) * n, &copa::host_pool()), blas_threads_(one_blas_thread ? 1 : 0) {}

  void factor(copa::RegionTimer& timer) override {
    const BlasThreads threads(blas_threads_);
    const double norm1 = host_norm1(a_.data(), n_);
    {
      copa::Region r(timer, "lu");
      host_lu_factor(a_.data(), n_, pivots_);
    }
    copa::Region r(timer, "condition");
    condition_ = host_condition_estimate(a_.data(), n_, norm1);
  }
  // zcgesv may leave its FP64 factors in the matrix (after a fallback): it works on the engine's
  // matrix and the kept copy restores it.
  IrsResult solve_irs(const SolverOptions& o, std::vector<complex>& b, copa::RegionTimer& timer) override {
    (void)o;
    const std::size_t count = std::size_t(n_) * n_;
    if (kept_.size() != count) {
      copa::require_host_memory(count * sizeof(complex), "the kept copy of the " + std::to_string(n_) + "-unknown matrix (--solver)");
      kept_ = std::vector<complex>(count);
    }
    std::copy(a_.begin(), a_.end(), kept_.begin());
    const std::vector<complex> rhs = b;
    IrsResult res;
    {
      const BlasThreads threads(blas_threads_);
      copa::Region r(timer, "solve.irs");
      res = host_irs_solve(a_.data(), n_, b);
    }
    std::copy(kept_.begin(), kept_.end(), a_.begin());
    res.relative_residual = host_relative_residual(kept_.data(), n_, b, rhs);
    return res;
  }
  double relative_residual(const std::vector<complex>& x, const std::vector<complex>& b) override {
    return kept_.empty() ? -1 : host_relative_residual(kept_.data(), n_, x, b);
  }
  double condition_estimate() const override { return condition_; }
  void set_formulation(const Formulation& f) override { form_ = f; }
  void solve(std::vector<complex>& b, copa::RegionTimer& timer) override {
    const BlasThreads threads(blas_threads_);
    copa::Region r(timer, "solve");
    host_lu_solve(a_.data(), n_, pivots_, b);
  }
  std::vector<complex> matrix() override { return {a_.begin(), a_.end()}; }
  std::vector<complex> entries(const std::vector<std::array<long, 2>>& at) override {
    std::vector<complex> out;
    for (const auto& e : at) out.push_back(a_[std::size_t(e[0]) + std::size_t(e[1]) * n_]);
    return out;
  }

 protected:
  long n_;
  std::pmr::vector<complex> a_;
  Formulation form_;

 private:
  int blas_threads_;
  std::vector<int> pivots_;
  std::vector<complex> kept_;  // the filled matrix, kept by solve_irs
  double condition_ = 0;
};

}  // namespace efie
