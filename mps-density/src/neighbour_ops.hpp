// The weighted neighbour sums of MPS as "ops" for one neighbour-iteration abstraction:
// a strategy (brute force, bucket-thread, sorted-particle, verlet, ...) calls, for a target
// particle i, acc = op.init(i); op.pair(acc, i, j, dx, dy, dz, r2) for every candidate j != i
// (dx = x_j - x_i); op.finish(i, acc). Each op tests its own radius, so one strategy serves them all.
// Discrete operators of Koshizuka & Oka (1996), d = dimension, w the weight of geometry.hpp:
//   number density   n_i = sum_j w_ij
//   Laplacian        <lap u>_i = 2d / (lambda0 n0) sum_j (u_j - u_i) w_ij
//   gradient         <grad p>_i = d / n0 sum_j (p_j - pmin_i) (r_j - r_i) w_ij / r_ij^2,
//                    pmin_i = min(p_i, p_j over the neighbours): evaluated in one pass as
//                    d/n0 (A - pmin B), A = sum p_j w dr / r^2, B = sum w dr / r^2
//   PPE operator     (A x)_i = 2d/(lambda0 n0) sum_j w_ij (x_i - x_j) + c_diag x_i, x_j = 0 off the
//                    active set (free surface = Dirichlet p = 0), rows of inactive particles 0.
#pragma once
#include <cstdint>

#include "geometry.hpp"

namespace mps {

// K partial sums and one running minimum (used by the minimum-pressure gradient).
template <int K>
struct Acc {
  double s[K];
  double m;
};
template <int K>
MPS_HD Acc<K> zero_acc(double m = 1e300) {
  Acc<K> a;
  for (int k = 0; k < K; ++k) a.s[k] = 0;
  a.m = m;
  return a;
}

// Whether particle i is a target of the neighbour sums (View::load_id below).
MPS_HD bool is_target(const int* load_id, int targets, int i) { return load_id == nullptr || load_id[i] < targets; }

// Read-only view of the particle arrays (structure of arrays) in storage order.
struct View {
  const double *x = nullptr, *y = nullptr, *z = nullptr;
  const double *u = nullptr, *v = nullptr, *w = nullptr;
  const double* p = nullptr;
  const std::uint8_t* type = nullptr;
  int n = 0;
  int dim = 3;
  // Targets of a neighbour sum: every particle (load_id == nullptr), or over MPI ranks only the
  // owned ones, whose load index (load_id[i], kept through the bucket reordering) is below
  // `targets`; the ghosts after them are sources only and their outputs are left untouched.
  const int* load_id = nullptr;
  int targets = 0;
  MPS_HD bool is_target(int i) const { return mps::is_target(load_id, targets, i); }
};

struct DensityOp {
  static constexpr int K = 1;
  double re, re2;
  double* out;
  MPS_HD Acc<1> init(int) const { return zero_acc<1>(); }
  MPS_HD void pair(Acc<1>& a, int, int, double, double, double, double r2) const {
    if (r2 < re2) a.s[0] += weight_from_r2(r2, re);
  }
  MPS_HD void finish(int i, const Acc<1>& a) const { out[i] = a.s[0]; }
};

// Number of neighbours within re (statistics: true neighbours found).
struct CountOp {
  static constexpr int K = 1;
  double re2;
  double* out;
  MPS_HD Acc<1> init(int) const { return zero_acc<1>(); }
  MPS_HD void pair(Acc<1>& a, int, int, double, double, double, double r2) const {
    if (r2 < re2) a.s[0] += 1.0;
  }
  MPS_HD void finish(int i, const Acc<1>& a) const { out[i] = a.s[0]; }
};

struct LaplacianOp {
  static constexpr int K = 3;
  View v;
  double re, re2, coef;  // coef = 2d / (lambda0 n0)
  double *lu, *lv, *lw;
  MPS_HD Acc<3> init(int) const { return zero_acc<3>(); }
  MPS_HD void pair(Acc<3>& a, int i, int j, double, double, double, double r2) const {
    if (r2 < re2 && v.type[j] != dummy) {
      const double w = weight_from_r2(r2, re);
      a.s[0] += w * (v.u[j] - v.u[i]);
      a.s[1] += w * (v.v[j] - v.v[i]);
      a.s[2] += w * (v.w[j] - v.w[i]);
    }
  }
  MPS_HD void finish(int i, const Acc<3>& a) const {
    lu[i] = coef * a.s[0];
    lv[i] = coef * a.s[1];
    lw[i] = coef * a.s[2];
  }
};

struct GradientOp {
  static constexpr int K = 6;
  View v;
  double re, re2, coef;  // coef = d / n0
  double *gx, *gy, *gz;
  MPS_HD Acc<6> init(int i) const { return zero_acc<6>(v.p[i]); }
  MPS_HD void pair(Acc<6>& a, int, int j, double dx, double dy, double dz, double r2) const {
    if (r2 < re2 && v.type[j] != dummy) {
      const double f = weight_from_r2(r2, re) / r2;
      const double pj = v.p[j];
      a.s[0] += f * pj * dx;
      a.s[1] += f * pj * dy;
      a.s[2] += f * pj * dz;
      a.s[3] += f * dx;
      a.s[4] += f * dy;
      a.s[5] += f * dz;
      a.m = pj < a.m ? pj : a.m;
    }
  }
  MPS_HD void finish(int i, const Acc<6>& a) const {
    gx[i] = coef * (a.s[0] - a.m * a.s[3]);
    gy[i] = coef * (a.s[1] - a.m * a.s[4]);
    gz[i] = coef * (a.s[2] - a.m * a.s[5]);
  }
};

struct PpeOp {
  static constexpr int K = 1;
  const std::uint8_t* type;
  const std::uint8_t* active;  // 1 = unknown of the PPE, 0 = Dirichlet (surface) or dummy
  const double* x;             // zero where !active
  double re, re2, coef, diag;  // coef = 2d / (lambda0 n0), diag = rho * compressibility / dt^2
  double* y;
  MPS_HD Acc<1> init(int) const { return zero_acc<1>(); }
  MPS_HD void pair(Acc<1>& a, int i, int j, double, double, double, double r2) const {
    if (r2 < re2 && type[j] != dummy) a.s[0] += weight_from_r2(r2, re) * (x[i] - x[j]);
  }
  MPS_HD void finish(int i, const Acc<1>& a) const { y[i] = active[i] ? coef * a.s[0] + diag * x[i] : 0.0; }
};

// Collision model (Koshizuka & Oka): fluid particles closer than r_col that approach each other
// exchange momentum with restitution e (equal masses): du_i = -(1+e)/2 ((u_i - u_j) . n) n,
// n = (r_j - r_i)/|r_j - r_i|, summed over j (Jacobi form, so the result is order-independent).
struct CollisionOp {
  static constexpr int K = 3;
  View v;
  double rc2, restitution;
  double *du, *dv, *dw;
  MPS_HD Acc<3> init(int) const { return zero_acc<3>(); }
  MPS_HD void pair(Acc<3>& a, int i, int j, double dx, double dy, double dz, double r2) const {
    if (r2 < rc2 && v.type[i] == fluid) {
      const double approach = (v.u[i] - v.u[j]) * dx + (v.v[i] - v.v[j]) * dy + (v.w[i] - v.w[j]) * dz;
      if (approach > 0) {
        const double f = -0.5 * (1.0 + restitution) * approach / r2;
        a.s[0] += f * dx;
        a.s[1] += f * dy;
        a.s[2] += f * dz;
      }
    }
  }
  MPS_HD void finish(int i, const Acc<3>& a) const {
    du[i] = a.s[0];
    dv[i] = a.s[1];
    dw[i] = a.s[2];
  }
};

// The pointwise updates of one fluid particle, one body for the host loops and the GPU kernels.
// Predictor: u += dt (nu a + g), r += dt u (2D: w = 0).
MPS_HD void predict_particle(int i, double* x, double* y, double* z, double* u, double* v, double* w, const double* ax,
                             const double* ay, const double* az, double dt, double nu, double gx, double gy, double gz,
                             bool three) {
  u[i] += dt * (nu * ax[i] + gx);
  v[i] += dt * (nu * ay[i] + gy);
  w[i] = three ? w[i] + dt * (nu * az[i] + gz) : 0.0;
  x[i] += dt * u[i];
  y[i] += dt * v[i];
  z[i] += dt * w[i];
}
// Correction: du = scale a, u += du, r += dt du (2D: no w change).
MPS_HD void correct_particle(int i, double* x, double* y, double* z, double* u, double* v, double* w, const double* ax,
                             const double* ay, const double* az, double scale, double dt, bool three) {
  const double du = scale * ax[i], dv = scale * ay[i], dw = three ? scale * az[i] : 0.0;
  u[i] += du;
  v[i] += dv;
  w[i] += dw;
  x[i] += dt * du;
  y[i] += dt * dv;
  z[i] += dt * dw;
}

}  // namespace mps
