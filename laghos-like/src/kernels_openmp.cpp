// OpenMP variant, written for CPUs: element-parallel sum factorization with per-thread scratch,
// element outputs into an E-vector, then a dof-parallel gather through the transposed element
// map (no atomics, deterministic for a given thread count).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "host_kernels.hpp"

namespace laghos {

namespace {

class OpenMPKernels final : public HostElementKernels {
 public:
  void setup(const Discretization& d) override {
    setup_elements(d);
    // Per-thread scratch, allocated once here (not on every operator call).
    work_.clear();
    const int nthreads = omp_get_max_threads();
    for (int t = 0; t < nthreads; ++t) work_.emplace_back(d);
    evec_.assign(static_cast<std::size_t>(d.NE) * d.nd * d.dim, 0.0);
    // dof -> list of E-vector positions (CSR).
    offsets_.assign(d.nh1 + 1, 0);
    for (int idx : d.h1_map) ++offsets_[idx + 1];
    for (int i = 0; i < d.nh1; ++i) offsets_[i + 1] += offsets_[i];
    positions_.resize(d.h1_map.size());
    std::vector<int> fill = offsets_;
    for (std::size_t p = 0; p < d.h1_map.size(); ++p) positions_[fill[d.h1_map[p]]++] = static_cast<int>(p);
  }

  double dot(std::size_t n, const double* x, const double* y) override {
    return ordered_sum(n, [=](std::size_t i) { return x[i] * y[i]; });
  }
  double dot_weighted(std::size_t n, const double* x, const double* y, const double* w) override {
    return ordered_sum(n, [=](std::size_t i) { return x[i] * (w[i] * y[i]); });
  }
  void axpby(std::size_t n, double a, const double* x, double b, const double* y, double* z) override {
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) z[i] = a * x[i] + b * y[i];
  }
  void copy(std::size_t n, const double* x, double* y) override {
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i];
  }
  void fill(std::size_t n, double value, double* x) override {
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) x[i] = value;
  }
  void multiply(std::size_t n, const double* a, const double* x, double* y) override {
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) y[i] = a[i] * x[i];
  }
  void zero_essential(int c, double* y) override {
    const auto& ess = d_->ess[c];
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < ess.size(); ++i) y[ess[i]] = 0.0;
  }

  void mass_h1(const double* x, double* y) override {
    element_mass_h1(nullptr, d_->NE, x);
    gather(evec_.data(), y, 0);
  }

  void mass_h1_diagonal(double* diag) override {
    const int nd = d_->nd;
#pragma omp parallel
    {
      Scratch& s = work_[omp_get_thread_num()].s;
#pragma omp for schedule(static)
      for (int e = 0; e < d_->NE; ++e) ops_->mass_h1_diagonal(e, &evec_[static_cast<std::size_t>(e) * nd], s);
    }
    gather(evec_.data(), diag, 0);
  }

  void mass_l2(const double* x, double* y) override {
    const std::size_t nl = d_->nl;
#pragma omp parallel
    {
      Scratch& s = work_[omp_get_thread_num()].s;
#pragma omp for schedule(static)
      for (int e = 0; e < d_->NE; ++e) ops_->mass_l2(e, x + e * nl, y + e * nl, s);
    }
  }

  void force(double* rhs) override {
    element_force(nullptr, d_->NE);
    for (int c = 0; c < d_->dim; ++c) gather(evec_.data() + c * evec_stride(), rhs + static_cast<std::size_t>(c) * d_->nh1, 0);
  }

  // Each dof is gathered by exactly one of the two passes, from the same E-vector entries in the
  // same order as force(): the split result is bitwise force()'s.
  void set_split(const ElementSplit& split) override { split_ = split; }
  void force_boundary(double* rhs) override { split_force(split_.boundary, split_.shared_dofs, rhs); }
  void force_interior(double* rhs) override { split_force(split_.interior, split_.other_dofs, rhs); }
  void mass_h1_boundary(const double* x, double* y, void*) override {
    element_mass_h1(split_.boundary.data(), static_cast<int>(split_.boundary.size()), x);
    gather_list(evec_.data(), split_.shared_dofs, y);
  }
  void mass_h1_interior(const double* x, double* y) override {
    element_mass_h1(split_.interior.data(), static_cast<int>(split_.interior.size()), x);
    gather_list(evec_.data(), split_.other_dofs, y);
  }

  void force_transpose(const double* v, double* e_rhs) override {
    const int nd = d_->nd;
#pragma omp parallel
    {
      ThreadWork& w = work_[omp_get_thread_num()];
      double* vp[3] = {&w.vl[0], &w.vl[nd], &w.vl[2 * nd]};
#pragma omp for schedule(static)
      for (int e = 0; e < d_->NE; ++e) element_force_transpose(e, v, e_rhs, vp, w.s);
    }
  }

  double quadrature_update(const double* x, const double* v, const double* e, double* source) override {
    const int nd = d_->nd;
    double dt = INFINITY;
#pragma omp parallel reduction(min : dt)
    {
      ThreadWork& w = work_[omp_get_thread_num()];
      double* xp[3] = {&w.xl[0], &w.xl[nd], &w.xl[2 * nd]};
      double* vp[3] = {&w.vl[0], &w.vl[nd], &w.vl[2 * nd]};
#pragma omp for schedule(static)
      for (int el = 0; el < d_->NE; ++el) {
        const double dte = element_quadrature_update(el, x, v, e, source, xp, vp, w.s);
        dt = dte < dt ? dte : dt;
      }
    }
    return dt;
  }

 private:
  // Per-thread partial sums of term(i) over the static chunks, added in thread order: `reduction(+)`
  // combines the partials in the order the threads finish, which with more than two threads changes
  // the rounding from run to run (README "Determinism").
  template <class Term>
  double ordered_sum(std::size_t n, Term term) {
    const std::size_t nthreads = static_cast<std::size_t>(omp_get_max_threads());
    if (partial_.size() < nthreads * kPad) partial_.resize(nthreads * kPad);
    std::fill(partial_.begin(), partial_.end(), 0.0);
#pragma omp parallel
    {
      double s = 0.0;
#pragma omp for schedule(static)
      for (std::size_t i = 0; i < n; ++i) s += term(i);
      partial_[static_cast<std::size_t>(omp_get_thread_num()) * kPad] = s;
    }
    double s = 0.0;
    for (std::size_t t = 0; t < partial_.size(); t += kPad) s += partial_[t];
    return s;
  }

  std::size_t evec_stride() const { return static_cast<std::size_t>(d_->NE) * d_->nd; }

  // The E-vector entries of F 1 of elements[0..count) (all elements when `elements` is null).
  void element_force(const int* elements, int count) {
    const int dim = d_->dim;
    const std::size_t comp = evec_stride(), nd = static_cast<std::size_t>(d_->nd);
#pragma omp parallel
    {
      Scratch& s = work_[omp_get_thread_num()].s;
#pragma omp for schedule(static)
      for (int i = 0; i < count; ++i) {
        const int e = elements ? elements[i] : i;
        double* yp[3];
        for (int c = 0; c < 3; ++c) yp[c] = c < dim ? &evec_[c * comp + static_cast<std::size_t>(e) * nd] : nullptr;
        ops_->force(e, stress_.data(), yp, s);
      }
    }
  }

  // The E-vector entries of M x of elements[0..count) (all elements when `elements` is null).
  void element_mass_h1(const int* elements, int count, const double* x) {
    const int nd = d_->nd;
#pragma omp parallel
    {
      ThreadWork& w = work_[omp_get_thread_num()];
      double* xl = w.xl.data();
#pragma omp for schedule(static)
      for (int i = 0; i < count; ++i) {
        const int e = elements ? elements[i] : i;
        const int* map = &d_->h1_map[static_cast<std::size_t>(e) * nd];
        for (int j = 0; j < nd; ++j) xl[j] = x[map[j]];
        ops_->mass_h1(e, xl, &evec_[static_cast<std::size_t>(e) * nd], w.s);
      }
    }
  }

  void split_force(const std::vector<int>& elements, const std::vector<int>& dofs, double* rhs) {
    element_force(elements.data(), static_cast<int>(elements.size()));
    for (int c = 0; c < d_->dim; ++c)
      gather_list(evec_.data() + c * evec_stride(), dofs, rhs + static_cast<std::size_t>(c) * d_->nh1);
  }

  void gather_list(const double* evec, const std::vector<int>& dofs, double* y) const {
    const int n = static_cast<int>(dofs.size());
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) y[dofs[i]] = gather_one(evec, dofs[i]);
  }

  double gather_one(const double* evec, int g) const {
    double s = 0.0;
    for (int p = offsets_[g]; p < offsets_[g + 1]; ++p) s += evec[positions_[p]];
    return s;
  }

  // y[dof] = sum of the E-vector entries that map to dof.
  void gather(const double* evec, double* y, int) const {
#pragma omp parallel for schedule(static)
    for (int g = 0; g < d_->nh1; ++g) y[g] = gather_one(evec, g);
  }

  struct ThreadWork {
    Scratch s;
    std::vector<double> xl, vl;  // 3 * nd gathered element values of x and v
    explicit ThreadWork(const Discretization& d)
        : s(d), xl(static_cast<std::size_t>(3) * d.nd), vl(static_cast<std::size_t>(3) * d.nd) {}
  };

  std::vector<ThreadWork> work_;
  std::vector<double> evec_;
  std::vector<int> offsets_, positions_;
  ElementSplit split_;
  static constexpr std::size_t kPad = 8;  // one 64-byte line per thread's partial sum
  std::vector<double> partial_;
};

}  // namespace

std::unique_ptr<HydroKernels> make_openmp_kernels() { return std::make_unique<OpenMPKernels>(); }

}  // namespace laghos
