// The discretisation as the GPU kernels see it: sizes and device pointers (passed by value).
#pragma once
#include <cstddef>

#include "qpoint.hpp"

namespace laghos {

struct DeviceDisc {
  int dim, D1D, Q1D, L1D, NE, nd, nq, nl, nh1, nl2, k;
  double h0, cfl;
  bool viscosity;
  const double *B, *G, *Bl, *wq, *rho0DetJ0w, *Jac0inv, *gamma;
  const int* h1_map;
};

// The inputs of qpoint_update at point q of element e (nq points per element, dd = dim^2 entries
// per matrix): J and dv/dxi where the kernel holds them, energy the interpolated e at the point.
LAGHOS_HD inline QPointIn point_inputs(const DeviceDisc& d, int e, int q, int nq, int dd, const double* J,
                                       const double* dvdxi, double energy) {
  QPointIn in;
  in.J = J;
  in.dvdxi = dvdxi;
  in.Jac0inv = d.Jac0inv + ((std::size_t)e * nq + q) * dd;
  in.e = energy;
  in.rho0DetJ0w = d.rho0DetJ0w[(std::size_t)e * nq + q];
  in.weight = d.wq[q];
  in.gamma = d.gamma[e];
  in.h0 = d.h0;
  in.h1order = d.k;
  in.cfl = d.cfl;
  in.viscosity = d.viscosity;
  return in;
}

}  // namespace laghos
