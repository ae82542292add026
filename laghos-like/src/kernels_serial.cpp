// The serial oracle: element loops with direct scatter-add, sequential reductions.
#include <cmath>
#include <cstring>

#include "host_kernels.hpp"

namespace laghos {

namespace {

class SerialKernels final : public HostElementKernels {
 public:
  void setup(const Discretization& d) override {
    setup_elements(d);
    scratch_ = std::make_unique<Scratch>(d);
    force_local_.assign(static_cast<std::size_t>(3) * d.nd, 0.0);
  }

  double dot(std::size_t n, const double* x, const double* y) override {
    double s = 0.0;
    for (std::size_t i = 0; i < n; ++i) s += x[i] * y[i];
    return s;
  }
  double dot_weighted(std::size_t n, const double* x, const double* y, const double* w) override {
    double s = 0.0;
    for (std::size_t i = 0; i < n; ++i) s += x[i] * (w[i] * y[i]);
    return s;
  }
  void axpby(std::size_t n, double a, const double* x, double b, const double* y, double* z) override {
    for (std::size_t i = 0; i < n; ++i) z[i] = a * x[i] + b * y[i];
  }
  void copy(std::size_t n, const double* x, double* y) override { std::memcpy(y, x, n * sizeof(double)); }
  void fill(std::size_t n, double value, double* x) override {
    for (std::size_t i = 0; i < n; ++i) x[i] = value;
  }
  void multiply(std::size_t n, const double* a, const double* x, double* y) override {
    for (std::size_t i = 0; i < n; ++i) y[i] = a[i] * x[i];
  }
  void zero_essential(int c, double* y) override {
    for (int g : d_->ess[c]) y[g] = 0.0;
  }

  void mass_h1(const double* x, double* y) override {
    fill(d_->nh1, 0.0, y);
    for (int e = 0; e < d_->NE; ++e) add_mass_h1(e, x, y);
  }

  void mass_h1_diagonal(double* diag) override {
    const int nd = d_->nd;
    std::vector<double> yl(nd);
    fill(d_->nh1, 0.0, diag);
    for (int e = 0; e < d_->NE; ++e) {
      const int* map = &d_->h1_map[static_cast<std::size_t>(e) * nd];
      ops_->mass_h1_diagonal(e, yl.data(), *scratch_);
      for (int i = 0; i < nd; ++i) diag[map[i]] += yl[i];
    }
  }

  void mass_l2(const double* x, double* y) override {
    const std::size_t nl = d_->nl;
    for (int e = 0; e < d_->NE; ++e) ops_->mass_l2(e, x + e * nl, y + e * nl, *scratch_);
  }

  void force(double* rhs) override {
    fill(d_->h1_vsize(), 0.0, rhs);
    for (int e = 0; e < d_->NE; ++e) add_force(e, rhs);
  }

  // With --overlap a dof touched by boundary and interior elements receives the boundary ones
  // first: its sum is the same terms in another order than force()'s element order (round-off).
  void set_split(const ElementSplit& split) override { split_ = split; }
  void force_boundary(double* rhs) override {
    fill(d_->h1_vsize(), 0.0, rhs);
    for (int e : split_.boundary) add_force(e, rhs);
  }
  void force_interior(double* rhs) override {
    for (int e : split_.interior) add_force(e, rhs);
  }
  void mass_h1_boundary(const double* x, double* y, void*) override {
    fill(d_->nh1, 0.0, y);
    for (int e : split_.boundary) add_mass_h1(e, x, y);
  }
  void mass_h1_interior(const double* x, double* y) override {
    for (int e : split_.interior) add_mass_h1(e, x, y);
  }

  void force_transpose(const double* v, double* e_rhs) override {
    const int nd = d_->nd;
    std::vector<double> vl(static_cast<std::size_t>(3) * nd);
    double* vp[3] = {&vl[0], &vl[nd], &vl[2 * nd]};
    for (int e = 0; e < d_->NE; ++e) element_force_transpose(e, v, e_rhs, vp, *scratch_);
  }

  double quadrature_update(const double* x, const double* v, const double* e, double* source) override {
    const int nd = d_->nd;
    std::vector<double> xl(static_cast<std::size_t>(3) * nd), vl(static_cast<std::size_t>(3) * nd);
    double* xp[3] = {&xl[0], &xl[nd], &xl[2 * nd]};
    double* vp[3] = {&vl[0], &vl[nd], &vl[2 * nd]};
    double dt = INFINITY;
    for (int el = 0; el < d_->NE; ++el) {
      const double dte = element_quadrature_update(el, x, v, e, source, xp, vp, *scratch_);
      dt = dte < dt ? dte : dt;
    }
    return dt;
  }

 private:
  // y += element e's M x, gathered and scattered through the map.
  void add_mass_h1(int e, const double* x, double* y) {
    const int nd = d_->nd;
    double *xl = &force_local_[0], *yl = &force_local_[nd];
    const int* map = &d_->h1_map[static_cast<std::size_t>(e) * nd];
    for (int i = 0; i < nd; ++i) xl[i] = x[map[i]];
    ops_->mass_h1(e, xl, yl, *scratch_);
    for (int i = 0; i < nd; ++i) y[map[i]] += yl[i];
  }

  // rhs += element e's F 1, scattered through the map.
  void add_force(int e, double* rhs) {
    const int nd = d_->nd, dim = d_->dim;
    double* yp[3] = {&force_local_[0], &force_local_[nd], &force_local_[2 * nd]};
    const int* map = &d_->h1_map[static_cast<std::size_t>(e) * nd];
    ops_->force(e, stress_.data(), yp, *scratch_);
    for (int c = 0; c < dim; ++c)
      for (int i = 0; i < nd; ++i) rhs[static_cast<std::size_t>(c) * d_->nh1 + map[i]] += yp[c][i];
  }

  std::unique_ptr<Scratch> scratch_;
  std::vector<double> force_local_;  // force_local_: 3 nd element values (F 1, or x and M x)
  ElementSplit split_;
};

}  // namespace

std::unique_ptr<HydroKernels> make_serial_kernels() { return std::make_unique<SerialKernels>(); }

}  // namespace laghos
