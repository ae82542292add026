// The quadrature-point physics of Laghos's UpdateQuadratureData, shared by every backend
// (host and device): ideal-gas EOS, artificial viscosity from the smallest eigenvalue of the
// symmetric velocity gradient with the compression-direction length scale and the smooth
// switch, and the point's time-step estimate (Dobrev, Kolev & Rieben 2012, sec. 6; Laghos
// laghos_solver.cpp). Matrices are row-major dim x dim.
#pragma once
#include <cmath>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define LAGHOS_HD __host__ __device__
#else
#define LAGHOS_HD
#endif

namespace laghos {

LAGHOS_HD inline double smooth_step_01(double x, double eps) {
  const double y = (x + eps) / (2.0 * eps);
  if (y < 0.0) return 0.0;
  if (y > 1.0) return 1.0;
  return (3.0 - 2.0 * y) * y * y;
}

template <int DIM>
LAGHOS_HD inline double det(const double* J) {
  if (DIM == 2) return J[0] * J[3] - J[1] * J[2];
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) + J[2] * (J[3] * J[7] - J[4] * J[6]);
}

template <int DIM>
LAGHOS_HD inline void inverse(const double* J, double d, double* Ji) {
  const double id = 1.0 / d;
  if (DIM == 2) {
    Ji[0] = J[3] * id;
    Ji[1] = -J[1] * id;
    Ji[2] = -J[2] * id;
    Ji[3] = J[0] * id;
  } else {
    Ji[0] = (J[4] * J[8] - J[5] * J[7]) * id;
    Ji[1] = (J[2] * J[7] - J[1] * J[8]) * id;
    Ji[2] = (J[1] * J[5] - J[2] * J[4]) * id;
    Ji[3] = (J[5] * J[6] - J[3] * J[8]) * id;
    Ji[4] = (J[0] * J[8] - J[2] * J[6]) * id;
    Ji[5] = (J[2] * J[3] - J[0] * J[5]) * id;
    Ji[6] = (J[3] * J[7] - J[4] * J[6]) * id;
    Ji[7] = (J[1] * J[6] - J[0] * J[7]) * id;
    Ji[8] = (J[0] * J[4] - J[1] * J[3]) * id;
  }
}

// Smallest eigenvalue and a unit eigenvector of a symmetric matrix (cyclic Jacobi rotations in
// 3D: accurate to round-off, the same quantities MFEM's closed forms give).
template <int DIM>
LAGHOS_HD inline double min_eigen(const double* S, double* vec) {
  if (DIM == 2) {
    const double a = S[0], b = S[1], c = S[3];
    const double mean = 0.5 * (a + c), diff = 0.5 * (a - c);
    const double r = sqrt(diff * diff + b * b);
    const double lmin = mean - r;
    // Eigenvector of lmin: rotate by theta with tan(2 theta) = 2b / (a - c).
    if (b == 0.0) {
      if (a <= c) { vec[0] = 1.0; vec[1] = 0.0; } else { vec[0] = 0.0; vec[1] = 1.0; }
    } else {
      // (a - lmin) v0 + b v1 = 0 ; choose the better-conditioned row.
      double v0, v1;
      if (fabs(a - lmin) > fabs(c - lmin)) { v0 = -b; v1 = a - lmin; } else { v0 = c - lmin; v1 = -b; }
      const double n = sqrt(v0 * v0 + v1 * v1);
      vec[0] = v0 / n;
      vec[1] = v1 / n;
    }
    return lmin;
  } else {
    double A[3][3], V[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) A[i][j] = S[i * 3 + j];
    for (int sweep = 0; sweep < 30; ++sweep) {
      const double off = A[0][1] * A[0][1] + A[0][2] * A[0][2] + A[1][2] * A[1][2];
      const double diag = A[0][0] * A[0][0] + A[1][1] * A[1][1] + A[2][2] * A[2][2];
      if (off <= 1e-34 * diag || off == 0.0) break;
      for (int p = 0; p < 2; ++p) {
        for (int q = p + 1; q < 3; ++q) {
          if (A[p][q] == 0.0) continue;
          const double theta = (A[q][q] - A[p][p]) / (2.0 * A[p][q]);
          const double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
          const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
          for (int k = 0; k < 3; ++k) {
            const double akp = A[k][p], akq = A[k][q];
            A[k][p] = c * akp - s * akq;
            A[k][q] = s * akp + c * akq;
          }
          for (int k = 0; k < 3; ++k) {
            const double apk = A[p][k], aqk = A[q][k];
            A[p][k] = c * apk - s * aqk;
            A[q][k] = s * apk + c * aqk;
          }
          for (int k = 0; k < 3; ++k) {
            const double vkp = V[k][p], vkq = V[k][q];
            V[k][p] = c * vkp - s * vkq;
            V[k][q] = s * vkp + c * vkq;
          }
        }
      }
    }
    // Selects without a run-time array index (a dynamic index puts A and V in GPU local memory).
    int m = 0;
    double amin = A[0][0];
    if (A[1][1] < amin) { m = 1; amin = A[1][1]; }
    if (A[2][2] < amin) { m = 2; amin = A[2][2]; }
    for (int k = 0; k < 3; ++k) vec[k] = m == 0 ? V[k][0] : (m == 1 ? V[k][1] : V[k][2]);
    return amin;
  }
}

// Smallest singular value of J: sqrt of the smallest eigenvalue of J^T J.
template <int DIM>
LAGHOS_HD inline double min_singular_value(const double* J) {
  double JtJ[DIM * DIM], vec[DIM];
  for (int i = 0; i < DIM; ++i)
    for (int j = 0; j < DIM; ++j) {
      double s = 0.0;
      for (int k = 0; k < DIM; ++k) s += J[k * DIM + i] * J[k * DIM + j];
      JtJ[i * DIM + j] = s;
    }
  const double l = min_eigen<DIM>(JtJ, vec);
  return sqrt(l > 0.0 ? l : 0.0);
}

// Laghos's artificial viscosity coefficient at a point of density rho, length scale h (h0 times
// the stretch along the compression direction), smallest eigenvalue mu of the symmetric velocity
// gradient and sound speed cs: 2 rho h^2 |mu|, plus the linear term 0.5 rho h cs switched off
// smoothly where the point expands (mu > 0).
LAGHOS_HD inline double artificial_viscosity(double rho, double h, double mu, double cs) {
  double visc = 2.0 * rho * h * h * fabs(mu);
  const double eps = 1e-12;
  visc += 0.5 * rho * h * cs * (1.0 - smooth_step_01(mu - 2.0 * eps, eps));
  return visc;
}

// The point's time-step estimate cfl / (cs / h_min + 2.5 visc / (rho h_min^2)), h_min the smallest
// singular value of J over the H1 order: infinity when it gives none, 0 when J is inverted.
LAGHOS_HD inline double point_dt(double cs, double visc, double rho, double h_min, double cfl, double detJ) {
  const double ih = 1.0 / h_min;
  const double idt = cs * ih + 2.5 * visc * ih * ih / rho;
  if (detJ < 0.0) return 0.0;
  return idt > 0.0 ? cfl / idt : INFINITY;
}

struct QPointIn {
  const double* J;        // dx/dxi (row c, column d = d x_c / d xi_d)
  const double* dvdxi;    // d v_c / d xi_d
  const double* Jac0inv;  // (J0)^{-1}
  double e;               // specific internal energy at the point
  double rho0DetJ0w;
  double weight;
  double gamma;
  double h0, h1order, cfl;
  bool viscosity;
};

// Writes stress J^{-T} w detJ (row-major [vd * DIM + gd]) and returns the point's dt estimate
// (infinity when it gives none, 0 when the Jacobian is inverted).
template <int DIM>
LAGHOS_HD inline double qpoint_update(const QPointIn& in, double* stressJiT) {
  const double detJ = det<DIM>(in.J);
  double Jinv[DIM * DIM];
  inverse<DIM>(in.J, detJ, Jinv);
  const double rho = in.rho0DetJ0w / in.weight / detJ;
  const double E = fmax(0.0, in.e);
  const double p = (in.gamma - 1.0) * rho * E;
  const double cs = sqrt(in.gamma * (in.gamma - 1.0) * E);
  double stress[DIM * DIM];
  for (int i = 0; i < DIM * DIM; ++i) stress[i] = 0.0;
  for (int d = 0; d < DIM; ++d) stress[d * DIM + d] = -p;
  double visc = 0.0;
  if (in.viscosity) {
    double sgrad[DIM * DIM];
    for (int c = 0; c < DIM; ++c)
      for (int k = 0; k < DIM; ++k) {
        double s = 0.0;
        for (int d = 0; d < DIM; ++d) s += in.dvdxi[c * DIM + d] * Jinv[d * DIM + k];
        sgrad[c * DIM + k] = s;
      }
    for (int i = 0; i < DIM; ++i)
      for (int j = i + 1; j < DIM; ++j) {
        const double s = 0.5 * (sgrad[i * DIM + j] + sgrad[j * DIM + i]);
        sgrad[i * DIM + j] = s;
        sgrad[j * DIM + i] = s;
      }
    double dir[DIM];
    const double mu = min_eigen<DIM>(sgrad, dir);
    // Length scale: h0 times the stretch of the initial->current map along the compression direction.
    double Jpi[DIM * DIM];
    for (int i = 0; i < DIM; ++i)
      for (int j = 0; j < DIM; ++j) {
        double s = 0.0;
        for (int k = 0; k < DIM; ++k) s += in.J[i * DIM + k] * in.Jac0inv[k * DIM + j];
        Jpi[i * DIM + j] = s;
      }
    double ph2 = 0.0, cd2 = 0.0;
    for (int i = 0; i < DIM; ++i) {
      double s = 0.0;
      for (int j = 0; j < DIM; ++j) s += Jpi[i * DIM + j] * dir[j];
      ph2 += s * s;
      cd2 += dir[i] * dir[i];
    }
    visc = artificial_viscosity(rho, in.h0 * sqrt(ph2) / sqrt(cd2), mu, cs);
    for (int i = 0; i < DIM * DIM; ++i) stress[i] += visc * sgrad[i];
  }
  const double dt = point_dt(cs, visc, rho, min_singular_value<DIM>(in.J) / in.h1order, in.cfl, detJ);
  const double wd = in.weight * detJ;
  for (int vd = 0; vd < DIM; ++vd)
    for (int gd = 0; gd < DIM; ++gd) {
      double s = 0.0;
      for (int k = 0; k < DIM; ++k) s += stress[vd * DIM + k] * Jinv[gd * DIM + k];
      stressJiT[vd * DIM + gd] = s * wd;
    }
  return dt;
}

// 2D Taylor-Green energy source (Laghos's TaylorCoefficient).
LAGHOS_HD inline double taylor_source(double x, double y) {
  return 3.0 / 8.0 * M_PI * (cos(3.0 * M_PI * x) * cos(M_PI * y) - cos(M_PI * x) * cos(3.0 * M_PI * y));
}

}  // namespace laghos
