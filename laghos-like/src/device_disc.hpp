// The discretisation as the GPU kernels see it: sizes and device pointers (passed by value).
#pragma once

namespace laghos {

struct DeviceDisc {
  int dim, D1D, Q1D, L1D, NE, nd, nq, nl, nh1, nl2, k;
  double h0, cfl;
  bool viscosity;
  const double *B, *G, *Bl, *wq, *rho0DetJ0w, *Jac0inv, *gamma;
  const int* h1_map;
};

}  // namespace laghos
