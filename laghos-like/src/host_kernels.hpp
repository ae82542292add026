// What the serial and OpenMP kernels share: the discretization, its element operators, the
// quadrature-point stress J^{-T} w detJ, and the per-element reads of H1 vector fields through
// the element map that the force transpose and the quadrature update start from.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "element_ops.hpp"
#include "kernels.hpp"

namespace laghos {

class HostElementKernels : public HostKernels {
 protected:
  void setup_elements(const Discretization& d) {
    d_ = &d;
    ops_ = std::make_unique<ElementOps>(d);
    stress_.assign(static_cast<std::size_t>(d.NE) * d.nq * d.dim * d.dim, 0.0);
  }

  // p[c][i] = field[c nh1 + map_e[i]] for the dim components of an H1 vector field (nodes layout).
  void read_element(int e, const double* field, double* const p[3]) const {
    const int nd = d_->nd;
    const int* map = &d_->h1_map[static_cast<std::size_t>(e) * nd];
    for (int c = 0; c < d_->dim; ++c)
      for (int i = 0; i < nd; ++i) p[c][i] = field[static_cast<std::size_t>(c) * d_->nh1 + map[i]];
  }

  // Element e's rows of e_rhs = F^T v; vp: 3 nd values of scratch.
  void element_force_transpose(int e, const double* v, double* e_rhs, double* const vp[3], Scratch& s) const {
    read_element(e, v, vp);
    ops_->force_transpose(e, stress_.data(), vp, e_rhs + static_cast<std::size_t>(e) * d_->nl, s);
  }

  // Element el's quadrature update (its stress and source rows); returns its dt estimate.
  // xp, vp: 3 nd values of scratch each.
  double element_quadrature_update(int el, const double* x, const double* v, const double* e, double* source,
                                   double* const xp[3], double* const vp[3], Scratch& s) {
    read_element(el, x, xp);
    read_element(el, v, vp);
    const std::size_t nl = d_->nl;
    return ops_->quadrature_update(el, xp, vp, e + el * nl, stress_.data(), source ? source + el * nl : nullptr, s);
  }

  const Discretization* d_ = nullptr;
  std::unique_ptr<ElementOps> ops_;
  std::vector<double> stress_;  // J^{-T} w detJ stress per quadrature point (dim x dim)
};

}  // namespace laghos
