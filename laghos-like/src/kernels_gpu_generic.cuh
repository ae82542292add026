// The generic GPU element operators (run-time D1D, Q1D, L1D; one element per block, every
// contraction spread over the block's threads), included by kernels_gpu.cu and, on the host, by
// the emulation test (tests/fixed_kernels_emulated.cpp), which checks them against the serial
// operators. Used by the `generic` variant and by `block` and `lean` for orders without a specialisation.
#pragma once
#include <cmath>

#include "device_disc.hpp"
#include "qpoint.hpp"

// Dynamic shared memory of the block (a host emulation in the tests defines its own).
#ifndef LAGHOS_DYNAMIC_SHARED
#define LAGHOS_DYNAMIC_SHARED(name) extern __shared__ double name[]
#endif

namespace laghos {
namespace generic {

// out = M (or M^T) applied along `axis` of the lexicographic tensor `in` (extents shape[]);
// M is row-major [q * n + i] with n = ld. Work is spread over all threads of the block.
__device__ void contract(int dim, int shape[3], int axis, const double* M, int nout, bool transpose, int ld,
                         const double* in, double* out) {
  const int nin = shape[axis];
  int before = 1, after = 1;
  for (int a = 0; a < axis; ++a) before *= shape[a];
  for (int a = axis + 1; a < dim; ++a) after *= shape[a];
  const int total = before * nout * after;
  const int nthreads = blockDim.x * blockDim.y * blockDim.z;
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  for (int idx = tid; idx < total; idx += nthreads) {
    const int b = idx % before, i = (idx / before) % nout, t = idx / (before * nout);
    double s = 0.0;
    for (int j = 0; j < nin; ++j) {
      const double m = transpose ? M[j * ld + i] : M[i * ld + j];
      s += m * in[(t * nin + j) * before + b];
    }
    out[(t * nout + i) * before + b] = s;
  }
  __syncthreads();
  shape[axis] = nout;
}

// Applies mats[axis] along every axis (forward n^dim -> q^dim, or transposed q^dim -> n^dim).
__device__ void tensor_apply(int dim, const double* const mats[3], int n, int nq, bool transpose, const double* in,
                             double* out, double* t0, double* t1) {
  int shape[3] = {transpose ? nq : n, transpose ? nq : n, transpose ? nq : n};
  const int nout = transpose ? n : nq;
  const double* src = in;
  for (int axis = 0; axis < dim; ++axis) {
    double* dst = (axis == dim - 1) ? out : (axis % 2 == 0 ? t0 : t1);
    contract(dim, shape, axis, mats[axis], nout, transpose, n, src, dst);
    src = dst;
  }
}

__device__ inline int block_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
__device__ inline int block_threads() { return blockDim.x * blockDim.y * blockDim.z; }

// ---- element operators (one block per element) ----
// Shared buffers: 5 (+ extra) arrays of `big` doubles, big = max(D1D, Q1D)^dim.
// One block per element of `elements` (every element when null).
__global__ void k_mass_h1(DeviceDisc d, int big, const int* elements, const double* x, double* evec) {
  LAGHOS_DYNAMIC_SHARED(sm);
  double *xl = sm, *a = sm + big, *t0 = sm + 2 * big, *t1 = sm + 3 * big, *y = sm + 4 * big;
  const int e = elements ? elements[blockIdx.x] : blockIdx.x;
  const int* map = d.h1_map + (std::size_t)e * d.nd;
  for (int i = block_tid(); i < d.nd; i += block_threads()) xl[i] = x[map[i]];
  __syncthreads();
  const double* B3[3] = {d.B, d.B, d.B};
  tensor_apply(d.dim, B3, d.D1D, d.Q1D, false, xl, a, t0, t1);
  for (int q = block_tid(); q < d.nq; q += block_threads()) a[q] *= d.rho0DetJ0w[(std::size_t)e * d.nq + q];
  __syncthreads();
  tensor_apply(d.dim, B3, d.D1D, d.Q1D, true, a, y, t0, t1);
  for (int i = block_tid(); i < d.nd; i += block_threads()) evec[(std::size_t)e * d.nd + i] = y[i];
}

__global__ void k_mass_h1_diag(DeviceDisc d, int big, const double* B2, double* evec) {
  LAGHOS_DYNAMIC_SHARED(sm);
  double *w = sm, *t0 = sm + big, *t1 = sm + 2 * big, *y = sm + 3 * big;
  const int e = blockIdx.x;
  for (int q = block_tid(); q < d.nq; q += block_threads()) w[q] = d.rho0DetJ0w[(std::size_t)e * d.nq + q];
  __syncthreads();
  const double* M[3] = {B2, B2, B2};
  tensor_apply(d.dim, M, d.D1D, d.Q1D, true, w, y, t0, t1);
  for (int i = block_tid(); i < d.nd; i += block_threads()) evec[(std::size_t)e * d.nd + i] = y[i];
}

__global__ void k_mass_l2(DeviceDisc d, int big, const double* x, double* y) {
  LAGHOS_DYNAMIC_SHARED(sm);
  double *xl = sm, *a = sm + big, *t0 = sm + 2 * big, *t1 = sm + 3 * big, *yl = sm + 4 * big;
  const int e = blockIdx.x;
  for (int i = block_tid(); i < d.nl; i += block_threads()) xl[i] = x[(std::size_t)e * d.nl + i];
  __syncthreads();
  const double* B3[3] = {d.Bl, d.Bl, d.Bl};
  tensor_apply(d.dim, B3, d.L1D, d.Q1D, false, xl, a, t0, t1);
  for (int q = block_tid(); q < d.nq; q += block_threads()) a[q] *= d.rho0DetJ0w[(std::size_t)e * d.nq + q];
  __syncthreads();
  tensor_apply(d.dim, B3, d.L1D, d.Q1D, true, a, yl, t0, t1);
  for (int i = block_tid(); i < d.nl; i += block_threads()) y[(std::size_t)e * d.nl + i] = yl[i];
}

// evec[c][e][i] = sum_d (G_d^T sJ[c][d])_i, one block per element of `elements` (every element
// when null: --overlap's passes run a subset).
__global__ void k_force(DeviceDisc d, int big, const int* elements, const double* stress, double* evec) {
  LAGHOS_DYNAMIC_SHARED(sm);
  double *a = sm, *b = sm + big, *t0 = sm + 2 * big, *t1 = sm + 3 * big, *acc = sm + 4 * big;
  const int e = elements ? elements[blockIdx.x] : blockIdx.x, dim = d.dim, DD = dim * dim;
  const double* sj = stress + (std::size_t)e * d.nq * DD;
  const std::size_t comp = (std::size_t)d.NE * d.nd;
  for (int c = 0; c < dim; ++c) {
    for (int i = block_tid(); i < d.nd; i += block_threads()) acc[i] = 0.0;
    for (int dd = 0; dd < dim; ++dd) {
      for (int q = block_tid(); q < d.nq; q += block_threads()) a[q] = sj[(c * dim + dd) * d.nq + q];
      __syncthreads();
      const double* M[3];
      for (int ax = 0; ax < 3; ++ax) M[ax] = (ax == dd) ? d.G : d.B;
      tensor_apply(dim, M, d.D1D, d.Q1D, true, a, b, t0, t1);
      for (int i = block_tid(); i < d.nd; i += block_threads()) acc[i] += b[i];
      __syncthreads();
    }
    for (int i = block_tid(); i < d.nd; i += block_threads()) evec[c * comp + (std::size_t)e * d.nd + i] = acc[i];
    __syncthreads();
  }
}

__global__ void k_force_t(DeviceDisc d, int big, const double* stress, const double* v, double* e_rhs) {
  LAGHOS_DYNAMIC_SHARED(sm);
  double *vl = sm, *g = sm + big, *t0 = sm + 2 * big, *t1 = sm + 3 * big, *acc = sm + 4 * big, *out = sm + 5 * big;
  const int e = blockIdx.x, dim = d.dim, DD = dim * dim;
  const double* sj = stress + (std::size_t)e * d.nq * DD;
  const int* map = d.h1_map + (std::size_t)e * d.nd;
  for (int q = block_tid(); q < d.nq; q += block_threads()) acc[q] = 0.0;
  for (int c = 0; c < dim; ++c) {
    for (int i = block_tid(); i < d.nd; i += block_threads()) vl[i] = v[(std::size_t)c * d.nh1 + map[i]];
    __syncthreads();
    for (int dd = 0; dd < dim; ++dd) {
      const double* M[3];
      for (int ax = 0; ax < 3; ++ax) M[ax] = (ax == dd) ? d.G : d.B;
      tensor_apply(dim, M, d.D1D, d.Q1D, false, vl, g, t0, t1);
      for (int q = block_tid(); q < d.nq; q += block_threads()) acc[q] += sj[(c * dim + dd) * d.nq + q] * g[q];
      __syncthreads();
    }
  }
  const double* B3[3] = {d.Bl, d.Bl, d.Bl};
  tensor_apply(dim, B3, d.L1D, d.Q1D, true, acc, out, t0, t1);
  for (int i = block_tid(); i < d.nl; i += block_threads()) e_rhs[(std::size_t)e * d.nl + i] = out[i];
}

// Quadrature update: shared holds J (DD*nq), dv/dxi (DD*nq), e(q), and work arrays.
template <int DIM>
__global__ void k_qupdate(DeviceDisc d, int big, const double* x, const double* v, const double* e_in, double* stress,
                          double* elem_dt, double* source) {
  LAGHOS_DYNAMIC_SHARED(sm);
  constexpr int DD = DIM * DIM;
  double* J = sm;                       // DD * nq
  double* dV = J + DD * d.nq;           // DD * nq
  double* eq = dV + DD * d.nq;          // big
  double* xl = eq + big;                // big
  double* t0 = xl + big;
  double* t1 = t0 + big;
  double* red = t1 + big;               // block_threads
  const int e = blockIdx.x;
  const int* map = d.h1_map + (std::size_t)e * d.nd;
  for (int field = 0; field < 2; ++field) {
    const double* src = field == 0 ? x : v;
    double* dst = field == 0 ? J : dV;
    for (int c = 0; c < DIM; ++c) {
      for (int i = block_tid(); i < d.nd; i += block_threads()) xl[i] = src[(std::size_t)c * d.nh1 + map[i]];
      __syncthreads();
      for (int dd = 0; dd < DIM; ++dd) {
        const double* M[3];
        for (int ax = 0; ax < 3; ++ax) M[ax] = (ax == dd) ? d.G : d.B;
        tensor_apply(DIM, M, d.D1D, d.Q1D, false, xl, dst + (c * DIM + dd) * d.nq, t0, t1);
      }
    }
  }
  for (int i = block_tid(); i < d.nl; i += block_threads()) xl[i] = e_in[(std::size_t)e * d.nl + i];
  __syncthreads();
  const double* B3[3] = {d.Bl, d.Bl, d.Bl};
  tensor_apply(DIM, B3, d.L1D, d.Q1D, false, xl, eq, t0, t1);
  double dt_min = INFINITY;
  for (int q = block_tid(); q < d.nq; q += block_threads()) {
    double Jq[DD], dvq[DD];
    for (int i = 0; i < DD; ++i) {
      Jq[i] = J[i * d.nq + q];
      dvq[i] = dV[i * d.nq + q];
    }
    const QPointIn in = point_inputs(d, e, q, d.nq, DD, Jq, dvq, eq[q]);
    double s[DD];
    const double dt = qpoint_update<DIM>(in, s);
    for (int i = 0; i < DD; ++i) stress[((std::size_t)e * DD + i) * d.nq + q] = s[i];
    dt_min = fmin(dt_min, dt);
  }
  red[block_tid()] = dt_min;
  __syncthreads();
  if (block_tid() == 0) {
    double m = INFINITY;
    for (int i = 0; i < block_threads(); ++i) m = fmin(m, red[i]);
    elem_dt[e] = m;
  }
  if (DIM == 2 && source) {
    // 2D Taylor-Green source on the current mesh: b = Bl^T (w detJ f(x_q)).
    __syncthreads();
    for (int c = 0; c < 2; ++c) {
      for (int i = block_tid(); i < d.nd; i += block_threads()) t0[i] = x[(std::size_t)c * d.nh1 + map[i]];
      __syncthreads();
      const double* BB[3] = {d.B, d.B, d.B};
      tensor_apply(DIM, BB, d.D1D, d.Q1D, false, t0, c == 0 ? xl : red, t1, dV);
    }
    for (int q = block_tid(); q < d.nq; q += block_threads()) {
      const double detJ = J[0 * d.nq + q] * J[3 * d.nq + q] - J[1 * d.nq + q] * J[2 * d.nq + q];
      eq[q] = d.wq[q] * detJ * taylor_source(xl[q], red[q]);
    }
    __syncthreads();
    tensor_apply(DIM, B3, d.L1D, d.Q1D, true, eq, xl, t0, t1);
    for (int i = block_tid(); i < d.nl; i += block_threads()) source[(std::size_t)e * d.nl + i] = xl[i];
  }
}

}  // namespace generic
}  // namespace laghos
