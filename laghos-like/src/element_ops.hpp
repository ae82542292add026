// Element-local partial-assembly operators on the host (sum factorization with tensor_apply),
// shared by the serial oracle and the OpenMP variant. Each writes one element's local output;
// the caller assembles (scatter-adds) H1 results.
#pragma once
#include <cstddef>
#include <vector>

#include "discretization.hpp"
#include "qpoint.hpp"
#include "tensor.hpp"

namespace laghos {

struct Scratch {
  std::vector<double> a, b, c, t0, t1, q[9];
  explicit Scratch(const Discretization& d) {
    const int n = std::max(d.D1D, d.Q1D);
    const int big = d.dim == 2 ? n * n : n * n * n;
    for (auto* v : {&a, &b, &c, &t0, &t1}) v->resize(big);
    for (auto& v : q) v.resize(big);
  }
};

class ElementOps {
 public:
  explicit ElementOps(const Discretization& d) : d_(d) {}

  // y_loc = B^T (rho0DetJ0w .* (B x_loc)), H1 scalar.
  void mass_h1(int e, const double* x_loc, double* y_loc, Scratch& s) const {
    const double* B3[3] = {d_.B.data(), d_.B.data(), d_.B.data()};
    tensor_apply(d_.dim, B3, d_.D1D, d_.Q1D, false, x_loc, s.a.data(), s.t0.data(), s.t1.data());
    const double* w = &d_.rho0DetJ0w[static_cast<std::size_t>(e) * d_.nq];
    for (int q = 0; q < d_.nq; ++q) s.a[q] *= w[q];
    tensor_apply(d_.dim, B3, d_.D1D, d_.Q1D, true, s.a.data(), y_loc, s.t0.data(), s.t1.data());
  }

  // Diagonal of the element H1 mass: sum_q B_iq^2 D_q, by sum factorization with B.^2.
  void mass_h1_diagonal(int e, double* y_loc, Scratch& s) const {
    std::vector<double> B2(d_.B.size());
    for (std::size_t i = 0; i < B2.size(); ++i) B2[i] = d_.B[i] * d_.B[i];
    const double* B3[3] = {B2.data(), B2.data(), B2.data()};
    const double* w = &d_.rho0DetJ0w[static_cast<std::size_t>(e) * d_.nq];
    tensor_apply(d_.dim, B3, d_.D1D, d_.Q1D, true, w, y_loc, s.t0.data(), s.t1.data());
  }

  void mass_l2(int e, const double* x_loc, double* y_loc, Scratch& s) const {
    const double* B3[3] = {d_.Bl.data(), d_.Bl.data(), d_.Bl.data()};
    tensor_apply(d_.dim, B3, d_.L1D, d_.Q1D, false, x_loc, s.a.data(), s.t0.data(), s.t1.data());
    const double* w = &d_.rho0DetJ0w[static_cast<std::size_t>(e) * d_.nq];
    for (int q = 0; q < d_.nq; ++q) s.a[q] *= w[q];
    tensor_apply(d_.dim, B3, d_.L1D, d_.Q1D, true, s.a.data(), y_loc, s.t0.data(), s.t1.data());
  }

  // Reference gradient of an H1 scalar: g[dd][q] = d/dxi_dd of the field at q.
  void grad(const double* x_loc, double* const g[3], Scratch& s) const {
    for (int dd = 0; dd < d_.dim; ++dd) {
      const double* M[3];
      for (int a = 0; a < 3; ++a) M[a] = (a == dd) ? d_.G.data() : d_.B.data();
      tensor_apply(d_.dim, M, d_.D1D, d_.Q1D, false, x_loc, g[dd], s.t0.data(), s.t1.data());
    }
  }

  // y_loc[c] = sum_d G_d^T sJ[c][d] (force row block of component c), sJ = stressJinvT.
  void force(int e, const double* stressJinvT, double* const y_loc[3], Scratch& s) const {
    const int dim = d_.dim, nq = d_.nq, DD = dim * dim;
    const double* sj = stressJinvT + static_cast<std::size_t>(e) * nq * DD;
    for (int c = 0; c < dim; ++c) {
      for (int i = 0; i < d_.nd; ++i) y_loc[c][i] = 0.0;
      for (int dd = 0; dd < dim; ++dd) {
        for (int q = 0; q < nq; ++q) s.a[q] = sj[q * DD + c * dim + dd];
        const double* M[3];
        for (int a = 0; a < 3; ++a) M[a] = (a == dd) ? d_.G.data() : d_.B.data();
        tensor_apply(dim, M, d_.D1D, d_.Q1D, true, s.a.data(), s.b.data(), s.t0.data(), s.t1.data());
        for (int i = 0; i < d_.nd; ++i) y_loc[c][i] += s.b[i];
      }
    }
  }

  // e_loc = Bl^T (sum_{c,d} sJ[c][d] dv_c/dxi_d), v_loc[c] the element's velocity components.
  void force_transpose(int e, const double* stressJinvT, const double* const v_loc[3], double* e_loc,
                       Scratch& s) const {
    const int dim = d_.dim, nq = d_.nq, DD = dim * dim;
    const double* sj = stressJinvT + static_cast<std::size_t>(e) * nq * DD;
    for (int q = 0; q < nq; ++q) s.c[q] = 0.0;
    for (int c = 0; c < dim; ++c) {
      double* g[3] = {s.q[0].data(), s.q[1].data(), s.q[2].data()};
      grad(v_loc[c], g, s);
      for (int q = 0; q < nq; ++q)
        for (int dd = 0; dd < dim; ++dd) s.c[q] += sj[q * DD + c * dim + dd] * g[dd][q];
    }
    const double* B3[3] = {d_.Bl.data(), d_.Bl.data(), d_.Bl.data()};
    tensor_apply(dim, B3, d_.L1D, d_.Q1D, true, s.c.data(), e_loc, s.t0.data(), s.t1.data());
  }

  // Quadrature update of one element; returns the element's minimum dt estimate.
  double quadrature_update(int e, const double* const x_loc[3], const double* const v_loc[3], const double* e_loc,
                           double* stressJinvT, double* source_loc, Scratch& s) const {
    const int dim = d_.dim, nq = d_.nq, DD = dim * dim;
    std::vector<double> gx(static_cast<std::size_t>(DD) * nq), gv(static_cast<std::size_t>(DD) * nq);
    for (int c = 0; c < dim; ++c) {
      double* g[3] = {&gx[(c * dim + 0) * nq], &gx[(c * dim + 1) * nq], dim == 3 ? &gx[(c * dim + 2) * nq] : nullptr};
      grad(x_loc[c], g, s);
      double* h[3] = {&gv[(c * dim + 0) * nq], &gv[(c * dim + 1) * nq], dim == 3 ? &gv[(c * dim + 2) * nq] : nullptr};
      grad(v_loc[c], h, s);
    }
    const double* B3[3] = {d_.Bl.data(), d_.Bl.data(), d_.Bl.data()};
    tensor_apply(dim, B3, d_.L1D, d_.Q1D, false, e_loc, s.c.data(), s.t0.data(), s.t1.data());
    double dt_min = INFINITY;
    double* sj = stressJinvT + static_cast<std::size_t>(e) * nq * DD;
    for (int q = 0; q < nq; ++q) {
      double J[9], dv[9];
      for (int i = 0; i < DD; ++i) {
        J[i] = gx[i * nq + q];
        dv[i] = gv[i * nq + q];
      }
      QPointIn in;
      in.J = J;
      in.dvdxi = dv;
      in.Jac0inv = &d_.Jac0inv[(static_cast<std::size_t>(e) * nq + q) * DD];
      in.e = s.c[q];
      in.rho0DetJ0w = d_.rho0DetJ0w[static_cast<std::size_t>(e) * nq + q];
      in.weight = d_.wq[q];
      in.gamma = d_.gamma[e];
      in.h0 = d_.h0;
      in.h1order = d_.k;
      in.cfl = d_.cfl;
      in.viscosity = d_.viscosity;
      const double dt = dim == 2 ? qpoint_update<2>(in, sj + q * DD) : qpoint_update<3>(in, sj + q * DD);
      dt_min = dt < dt_min ? dt : dt_min;
    }
    if (source_loc) {
      // b_j = sum_q w_q detJ f(x_q) phi_j(q) on the current mesh (2D only).
      const double* B2[3] = {d_.B.data(), d_.B.data(), d_.B.data()};
      tensor_apply(dim, B2, d_.D1D, d_.Q1D, false, x_loc[0], s.a.data(), s.t0.data(), s.t1.data());
      tensor_apply(dim, B2, d_.D1D, d_.Q1D, false, x_loc[1], s.b.data(), s.t0.data(), s.t1.data());
      for (int q = 0; q < nq; ++q) {
        const double detJ = gx[0 * nq + q] * gx[3 * nq + q] - gx[1 * nq + q] * gx[2 * nq + q];
        s.c[q] = d_.wq[q] * detJ * taylor_source(s.a[q], s.b[q]);
      }
      tensor_apply(dim, B3, d_.L1D, d_.Q1D, true, s.c.data(), source_loc, s.t0.data(), s.t1.data());
    }
    return dt_min;
  }

  const Discretization& disc() const { return d_; }

 private:
  const Discretization& d_;
};

}  // namespace laghos
