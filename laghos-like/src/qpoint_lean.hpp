// A register-lean form of qpoint_update (qpoint.hpp) for the `lean` GPU variant's quadrature update.
// Why: the register form is latency-bound on a GPU: 120 registers per thread allow 2 blocks of 256
// threads per SM (25 % occupancy); qpoint_update alone needs 106 registers, because J and dv/dxi (18 doubles)
// and the matrices derived from them (J^{-1}, the symmetric velocity gradient, J J0^{-1}) stay
// live across the two 3x3 Jacobi eigen solves. Here:
// - J and dv/dxi are read where they are used from memory with a stride (the kernel's shared-memory
//   stage, one slot per point: [(c * DIM + d) * ld]) instead of registers, and J^{-1} is formed
//   again from J when the stress needs it (the same operations, so the same values);
// - the symmetric velocity gradient waits in dv/dxi's own slots (dv/dxi is dead by then) during the
//   eigen solve, and the stress goes straight to its strided output;
// - the 3D Jacobi solves hold the symmetric matrix as its 6 distinct entries (9 in min_eigen) and
//   the singular value's solve carries no eigenvector matrix.
// The physics and the algorithms are qpoint_update's (same rotations, same stopping rule, same
// eigenvector choice): results agree with it to round-off (min_eigen's full 3x3 update lets its
// two triangles drift apart at round-off; here they are one value). tests/qpoint_lean_test.cpp
// checks both against each other.
#pragma once
#include <cmath>

#include "qpoint.hpp"

namespace laghos {
namespace lean {

// The symmetric 3x3 matrix of a Jacobi solve: diagonal a00 a11 a22, upper triangle a01 a02 a12.
struct Sym3 {
  double a00, a11, a22, a01, a02, a12;
};

// min_eigen<3>'s rotation of the pair (p, q) (r the third index) written on the distinct entries:
// theta = (a_qq - a_pp) / (2 a_pq), t = sgn(theta) / (|theta| + sqrt(theta^2 + 1)),
// c = 1 / sqrt(t^2 + 1), s = t c; A <- R^T A R with R the plane rotation [[c, s], [-s, c]] in (p, q)
// (columns then rows, as min_eigen), V <- V R when vectors are kept.
template <bool VECTORS>
LAGHOS_HD inline void rotate(double& app, double& aqq, double& apq, double& arp, double& arq, double* V, int p,
                             int q) {
  if (apq == 0.0) return;
  const double theta = (aqq - app) / (2.0 * apq);
  const double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
  const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
  const double cpp = c * app - s * apq, cqp = c * apq - s * aqq;  // column update, column p
  const double cpq = s * app + c * apq, cqq = s * apq + c * aqq;  // column q
  app = c * cpp - s * cqp;                                        // row update
  apq = c * cpq - s * cqq;
  aqq = s * cpq + c * cqq;
  const double rp = arp, rq = arq;
  arp = c * rp - s * rq;
  arq = s * rp + c * rq;
  if constexpr (VECTORS) {
    for (int k = 0; k < 3; ++k) {
      const double vkp = V[k * 3 + p], vkq = V[k * 3 + q];
      V[k * 3 + p] = c * vkp - s * vkq;
      V[k * 3 + q] = s * vkp + c * vkq;
    }
  }
}

// Smallest eigenvalue of A by min_eigen<3>'s cyclic Jacobi sweeps; with VECTORS, vec = its unit
// eigenvector (min_eigen's choice: the first smallest diagonal entry's column of V).
template <bool VECTORS>
LAGHOS_HD inline double min_eigen3(Sym3 A, double* vec) {
  double V[VECTORS ? 9 : 1];
  if constexpr (VECTORS)
    for (int i = 0; i < 9; ++i) V[i] = (i % 4 == 0) ? 1.0 : 0.0;
  for (int sweep = 0; sweep < 30; ++sweep) {
    const double off = A.a01 * A.a01 + A.a02 * A.a02 + A.a12 * A.a12;
    const double diag = A.a00 * A.a00 + A.a11 * A.a11 + A.a22 * A.a22;
    if (off <= 1e-34 * diag || off == 0.0) break;
    rotate<VECTORS>(A.a00, A.a11, A.a01, A.a02, A.a12, V, 0, 1);  // (p, q, r) = (0, 1, 2): a_rp = a02, a_rq = a12
    rotate<VECTORS>(A.a00, A.a22, A.a02, A.a01, A.a12, V, 0, 2);  // (0, 2, 1): a_rp = a01, a_rq = a12
    rotate<VECTORS>(A.a11, A.a22, A.a12, A.a01, A.a02, V, 1, 2);  // (1, 2, 0): a_rp = a01, a_rq = a02
  }
  int m = 0;
  double amin = A.a00;
  if (A.a11 < amin) { m = 1; amin = A.a11; }
  if (A.a22 < amin) { m = 2; amin = A.a22; }
  if constexpr (VECTORS)
    for (int k = 0; k < 3; ++k) vec[k] = m == 0 ? V[k * 3] : (m == 1 ? V[k * 3 + 1] : V[k * 3 + 2]);
  return amin;
}

// J^{-1} entry (i, j) of a strided J with determinant d (qpoint.hpp's inverse, one entry at a time).
template <int DIM>
LAGHOS_HD inline double inverse_entry(const double* J, int ld, double d, int i, int j) {
  const auto a = [&](int r, int c) { return J[(r * DIM + c) * ld]; };
  const double id = 1.0 / d;
  if constexpr (DIM == 2) {
    const double cof[4] = {a(1, 1), -a(0, 1), -a(1, 0), a(0, 0)};
    return cof[i * 2 + j] * id;
  } else {
    // The cofactors exactly as qpoint.hpp's inverse writes them, so that the values are the same.
    switch (i * 3 + j) {
      case 0: return (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) * id;
      case 1: return (a(0, 2) * a(2, 1) - a(0, 1) * a(2, 2)) * id;
      case 2: return (a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1)) * id;
      case 3: return (a(1, 2) * a(2, 0) - a(1, 0) * a(2, 2)) * id;
      case 4: return (a(0, 0) * a(2, 2) - a(0, 2) * a(2, 0)) * id;
      case 5: return (a(0, 2) * a(1, 0) - a(0, 0) * a(1, 2)) * id;
      case 6: return (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0)) * id;
      case 7: return (a(0, 1) * a(2, 0) - a(0, 0) * a(2, 1)) * id;
      default: return (a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0)) * id;
    }
  }
}

template <int DIM>
LAGHOS_HD inline double det_strided(const double* J, int ld) {
  const auto a = [&](int r, int c) { return J[(r * DIM + c) * ld]; };
  if constexpr (DIM == 2) return a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
  return a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0)) +
         a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
}

// qpoint_update<DIM> with J and dv/dxi at stride ld (in.J, in.dvdxi ignored); dv overwritten
// (scratch for the symmetric velocity gradient). Writes stress J^{-T} w detJ entry (vd, gd) to
// stress[(vd * DIM + gd) * stress_ld]; returns the point's dt estimate.
template <int DIM>
LAGHOS_HD inline double qpoint_update_strided(const QPointIn& in, const double* J, double* dv, int ld,
                                              double* stress, int stress_ld) {
  const double detJ = det_strided<DIM>(J, ld);
  const double rho = in.rho0DetJ0w / in.weight / detJ;
  const double E = fmax(0.0, in.e);
  const double p = (in.gamma - 1.0) * rho * E;
  const double cs = sqrt(in.gamma * (in.gamma - 1.0) * E);
  double visc = 0.0;
  if (in.viscosity) {
    // sgrad = sym(dv J^{-1}) into dv's slots, row by row (a row of dv is dead once its row of
    // sgrad is formed; the symmetrisation reads the upper triangle after the whole product).
    for (int c = 0; c < DIM; ++c) {
      double row[DIM];
      for (int k = 0; k < DIM; ++k) {
        double s = 0.0;
        for (int d = 0; d < DIM; ++d) s += dv[(c * DIM + d) * ld] * inverse_entry<DIM>(J, ld, detJ, d, k);
        row[k] = s;
      }
      for (int k = 0; k < DIM; ++k) dv[(c * DIM + k) * ld] = row[k];
    }
    for (int i = 0; i < DIM; ++i)
      for (int j = i + 1; j < DIM; ++j) {
        const double s = 0.5 * (dv[(i * DIM + j) * ld] + dv[(j * DIM + i) * ld]);
        dv[(i * DIM + j) * ld] = s;
        dv[(j * DIM + i) * ld] = s;
      }
    double dir[DIM], mu;
    if constexpr (DIM == 2) {
      const double S[4] = {dv[0], dv[ld], dv[2 * ld], dv[3 * ld]};
      mu = min_eigen<2>(S, dir);
    } else {
      const Sym3 S{dv[0], dv[4 * ld], dv[8 * ld], dv[ld], dv[2 * ld], dv[5 * ld]};
      mu = min_eigen3<true>(S, dir);
    }
    // h0 times the stretch of the initial->current map J J0^{-1} along the compression direction,
    // one row of J J0^{-1} at a time.
    double ph2 = 0.0, cd2 = 0.0;
    for (int i = 0; i < DIM; ++i) {
      double Jpi_row[DIM];
      for (int j = 0; j < DIM; ++j) {
        double s = 0.0;
        for (int k = 0; k < DIM; ++k) s += J[(i * DIM + k) * ld] * in.Jac0inv[k * DIM + j];
        Jpi_row[j] = s;
      }
      double s = 0.0;
      for (int j = 0; j < DIM; ++j) s += Jpi_row[j] * dir[j];
      ph2 += s * s;
      cd2 += dir[i] * dir[i];
    }
    visc = artificial_viscosity(rho, in.h0 * sqrt(ph2) / sqrt(cd2), mu, cs);
  }
  // Smallest singular value of J: sqrt of the smallest eigenvalue of J^T J (no eigenvector).
  double lmin;
  {
    const auto jtj = [&](int i, int j) {
      double s = 0.0;
      for (int k = 0; k < DIM; ++k) s += J[(k * DIM + i) * ld] * J[(k * DIM + j) * ld];
      return s;
    };
    if constexpr (DIM == 2) {
      const double S[4] = {jtj(0, 0), jtj(0, 1), jtj(1, 0), jtj(1, 1)};
      double vec[2];
      lmin = min_eigen<2>(S, vec);
    } else {
      lmin = min_eigen3<false>(Sym3{jtj(0, 0), jtj(1, 1), jtj(2, 2), jtj(0, 1), jtj(0, 2), jtj(1, 2)}, nullptr);
    }
  }
  const double dt = point_dt(cs, visc, rho, sqrt(lmin > 0.0 ? lmin : 0.0) / in.h1order, in.cfl, detJ);
  // stress = -p I + visc sgrad; out = stress J^{-T} w detJ.
  const double wd = in.weight * detJ;
  for (int gd = 0; gd < DIM; ++gd) {
    double Jinv_row[DIM];
    for (int k = 0; k < DIM; ++k) Jinv_row[k] = inverse_entry<DIM>(J, ld, detJ, gd, k);
    for (int vd = 0; vd < DIM; ++vd) {
      double s = 0.0;
      for (int k = 0; k < DIM; ++k) {
        double st = vd == k ? -p : 0.0;
        if (in.viscosity) st += visc * dv[(vd * DIM + k) * ld];
        s += st * Jinv_row[k];
      }
      stress[(vd * DIM + gd) * stress_ld] = s * wd;
    }
  }
  return dt;
}

}  // namespace lean
}  // namespace laghos
