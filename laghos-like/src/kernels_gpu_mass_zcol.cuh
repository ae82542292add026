// The `lean` variant's 3D H1 mass action with `mass=zcol`, included by kernels_gpu.cu after
// kernels_gpu_force_lean.cuh: y += B^T (rho0DetJ0w .* B x) per element, added into the assembled
// vector with FP64 atomics (the CG operator, as k_mass<..., SCATTER>).
// Why: fixed::k_mass passes all six contractions through shared memory and reads both operands of
// every FMA there (5 BIG doubles per element, Q2Q1 2.5 KB, 41 KB per block of 16 elements); on the
// H200 it is bound by the L1/shared pipe with its occupancy capped by that shared memory.
// Layout (the lean force kernels', MFEM's and libCEED's 3D sum factorization): one thread per
// (x, y) point of the Q1D x Q1D plane. The thread contracts z in registers both ways (B x, then the
// weights, then B^T; B's entries are the same for every thread: shared-memory broadcasts); only
// the x and y contractions pass through shared memory, each with the thread's row or column of B
// in registers. Shared doubles per element (LeanShape::MASS): D Q^2 + D^2 Q, Q2Q1 72 and Q3Q2 240
// instead of 320 and 1080, so registers, not shared memory, bound the occupancy
// (LeanShape::MASS_BLOCKS_PER_SM).
// Matrices as in kernels_gpu_fixed.cuh: B(q, n) = B[q * D1D + n]; point q = qx + Q1D (qy + Q1D qz),
// dof i = ix + D1D (iy + D1D iz).
#pragma once
#include "kernels_gpu_force_lean.cuh"

namespace laghos {
namespace fixed {

// Runs the `count` elements of `elements` (every element when null: --overlap's passes run a
// subset); y is zeroed by the caller. Stages (t = the thread's index in the element's plane):
//   x:   t < D Q,  (qx, dy):  xc[dz][dy][qx] = sum_dx B(qx, dx) x[dz][dy][dx]
//   y:   every t,  (qx, qy):  u[dz] = sum_dy B(qy, dy) xc[dz][dy][qx]                 (registers)
//   z:   every t,  (qx, qy):  a[dz] = sum_qz B(qz, dz) w[qz] sum_n B(qz, n) u[n]       (registers)
//   y^T: t < D Q,  (qx, dy):  yc[dz][dy][qx] = sum_qy B(qy, dy) a[dz][qy][qx]
//   x^T: t < D^2,  (dx, dy):  y[map(dx, dy, dz)] += sum_qx B(qx, dx) yc[dz][dy][qx]
template <int D, int Q, int L>
__global__ void __launch_bounds__((LeanShape<D, Q, L>::THREADS), (LeanShape<D, Q, L>::MASS_BLOCKS_PER_SM))
    k_mass_zcol(DeviceDisc d, const int* __restrict__ elements, int count, const double* __restrict__ x,
                double* __restrict__ y) {
  using S = Shape<3, D, Q, L>;
  using LS = LeanShape<D, Q, L>;
  LAGHOS_DYNAMIC_SHARED(sm);
  load_basis<3, D, Q, L>(d, sm);
  const double* B = sm;
  // pa: the element's dofs [dz][dy][dx], then the z stage's a [dz][qy][qx];
  // pb: the x stage's xc [dz][dy][qx], then the y^T stage's yc [dz][dy][qx].
  double* pa = sm + S::BASIS + threadIdx.y * LS::MASS;
  double* pb = pa + LS::MASS_A;
  const int tid = threadIdx.x, qx = tid % Q, qy = tid / Q;
  const auto [e, active] = element_slot(elements, count);
  const int* map = d.h1_map + (std::size_t)e * S::ND;
  for (int i = tid; i < S::ND; i += LS::TPE) pa[i] = x[map[i]];
  __syncthreads();
  if (tid < D * Q) {  // x: thread (qx, dy)
    const int dy = tid / Q;
    double bx[D];
#pragma unroll
    for (int n = 0; n < D; ++n) bx[n] = B[qx * D + n];
#pragma unroll
    for (int dz = 0; dz < D; ++dz) {
      double s = 0.0;
#pragma unroll
      for (int dx = 0; dx < D; ++dx) s += bx[dx] * pa[(dz * D + dy) * D + dx];
      pb[(dz * D + dy) * Q + qx] = s;
    }
  }
  __syncthreads();
  double u[D];  // y: the thread's (qx, qy) column, z still at the dofs
  {
    double by[D];
#pragma unroll
    for (int n = 0; n < D; ++n) by[n] = B[qy * D + n];
#pragma unroll
    for (int dz = 0; dz < D; ++dz) {
      double s = 0.0;
#pragma unroll
      for (int dy = 0; dy < D; ++dy) s += by[dy] * pb[(dz * D + dy) * Q + qx];
      u[dz] = s;
    }
  }
  // z, the weights and z^T in registers.
  const double* w = d.rho0DetJ0w + (std::size_t)e * S::NQ + qx + Q * qy;
  double a[D];
#pragma unroll
  for (int dz = 0; dz < D; ++dz) a[dz] = 0.0;
#pragma unroll
  for (int qz = 0; qz < Q; ++qz) {
    double t = 0.0;
#pragma unroll
    for (int n = 0; n < D; ++n) t += B[qz * D + n] * u[n];
    t *= w[qz * Q * Q];
#pragma unroll
    for (int dz = 0; dz < D; ++dz) a[dz] += B[qz * D + dz] * t;
  }
  // pa's dofs were last read by the x stage, before the barrier above.
#pragma unroll
  for (int dz = 0; dz < D; ++dz) pa[(dz * Q + qy) * Q + qx] = a[dz];
  __syncthreads();
  // y^T: thread (qx, dy). pb's xc was last read by the y stage, before the barrier above.
  if (tid < D * Q) {
    const int dy = tid / Q;
    double cy[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) cy[q] = B[q * D + dy];
#pragma unroll
    for (int dz = 0; dz < D; ++dz) {
      double s = 0.0;
#pragma unroll
      for (int yq = 0; yq < Q; ++yq) s += cy[yq] * pa[(dz * Q + yq) * Q + qx];
      pb[(dz * D + dy) * Q + qx] = s;
    }
  }
  __syncthreads();
  if (active && tid < D * D) {  // x^T and the scatter: thread (dx, dy)
    const int dx = tid % D, dy = tid / D;
    double cx[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) cx[q] = B[q * D + dx];
#pragma unroll
    for (int dz = 0; dz < D; ++dz) {
      double s = 0.0;
#pragma unroll
      for (int xq = 0; xq < Q; ++xq) s += cx[xq] * pb[(dz * D + dy) * Q + xq];
      const int i = (dz * D + dy) * D + dx;
      atomicAdd(&y[map[i]], s);
    }
  }
}

}  // namespace fixed
}  // namespace laghos
