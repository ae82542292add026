// The `lean` variant's 3D force kernels, included by kernels_gpu.cu after kernels_gpu_fixed.cuh.
// Why: the block kernels k_force and k_force_t are limited by their shared memory per block (Q2Q1:
// 16 elements x 9 and 11 BIG doubles, 74 and 90 KB, so 3 and 2 blocks per SM, 37.5 and 25 %
// occupancy) and k_force by its traffic through shared memory.
// Layout (MFEM's and libCEED's 3D sum factorization): one thread per (x, y) point of the element's
// Q1D x Q1D plane; each thread keeps its z column in registers and contracts the z direction there,
// so only the x and y contractions pass through shared memory, and each stage holds only what the
// next one reads. Shared doubles per element (Shape::FORCE_LEAN, FORCE_T_LEAN): Q2Q1 216 and 147
// instead of 576 and 704; Q3Q2 624 and 418 instead of 1944 and 2376.
// Matrices as in kernels_gpu_fixed.cuh: B(q, n) = B[q * D1D + n], Bl(q, l) = Bl[q * L1D + l];
// point q = qx + Q1D (qy + Q1D qz), dof i = ix + D1D (iy + D1D iz).
#pragma once
#include "kernels_gpu_fixed.cuh"

namespace laghos {
namespace fixed {

// Shared doubles per element of the z-column kernels (3D): the lean force kernels and
// k_mass_zcol (kernels_gpu_mass_zcol.cuh).
template <int D, int Q, int L>
struct LeanShape {
  // k_force_lean: z-contracted [3][D][Q][Q], then y-contracted [2][D][D][Q].
  static constexpr int FORCE = 3 * D * Q * Q + 2 * D * D * Q;
  // k_force_t_lean: the dofs of v_c (D^3), x-contracted [2][D][D][Q], Bl^T stages [L][Q][Q], [L][L][Q].
  static constexpr int FORCE_T = D * D * D + 2 * D * D * Q + L * Q * Q + L * L * Q;
  // k_mass_zcol: the dofs [D][D][D], then the z stage's [D][Q][Q] (Q >= D); x-contracted [D][D][Q],
  // then y^T-contracted [D][D][Q].
  static constexpr int MASS_A = cmax(D * D * D, D * Q * Q);
  static constexpr int MASS = MASS_A + D * D * Q;
  static constexpr int TPE = Q * Q;  // threads per element
  // Block: (TPE, elements) with at most 256 threads (Q1D <= 16); compiled for 4 blocks per SM
  // (at most 64 registers per thread).
  static constexpr int THREADS = 256, BLOCKS_PER_SM = 4;
  // k_mass_zcol's blocks per SM: the most that compile without spills at sm_90 (ptxas -v: Q1D <= 4
  // 8 blocks = 32 registers, Q1D = 6 6 = 40, Q1D = 8 4 = 64; one step more spills).
  static constexpr int MASS_BLOCKS_PER_SM = Q <= 4 ? 8 : (Q <= 6 ? 6 : 4);
};

// evec[c][e][i] = sum_d (G_d^T stress[c][d])_i, G_d = G along axis d and B along the others
// (F 1 per element, as k_force), for the `count` elements of `elements` (every element when null).
// Per component: z in registers (a0 = B_z s0, a1 = B_z s1, a2 = G_z s2), y through shared memory
// (b0 = B_y a0, b12 = G_y a1 + B_y a2), x from shared memory (out = G_x b0 + B_x b12).
template <int D, int Q, int L>
__global__ void __launch_bounds__((LeanShape<D, Q, L>::THREADS), (LeanShape<D, Q, L>::BLOCKS_PER_SM))
    k_force_lean(DeviceDisc d, const int* __restrict__ elements, int count, const double* __restrict__ stress,
                 double* __restrict__ evec) {
  using S = Shape<3, D, Q, L>;
  using LS = LeanShape<D, Q, L>;
  LAGHOS_DYNAMIC_SHARED(sm);
  load_basis<3, D, Q, L>(d, sm);
  const double *B = sm, *G = sm + Q * D;
  double* zc = sm + S::BASIS + threadIdx.y * LS::FORCE;  // [3][dz][qy][qx]
  double* yc = zc + 3 * D * Q * Q;                        // [2][dz][dy][qx]
  const int tid = threadIdx.x, qx = tid % Q, qy = tid / Q;
  const auto [e, active] = element_slot(elements, count);
  const std::size_t comp = (std::size_t)d.NE * S::ND;
#pragma unroll 1
  for (int c = 0; c < 3; ++c) {
    const double* s = stress + ((std::size_t)e * S::DD + 3 * c) * S::NQ + qx + Q * qy;
    double a0[D], a1[D], a2[D];
#pragma unroll
    for (int dz = 0; dz < D; ++dz) a0[dz] = a1[dz] = a2[dz] = 0.0;
#pragma unroll
    for (int qz = 0; qz < Q; ++qz) {
      const double s0 = s[qz * Q * Q], s1 = s[S::NQ + qz * Q * Q], s2 = s[2 * S::NQ + qz * Q * Q];
#pragma unroll
      for (int dz = 0; dz < D; ++dz) {
        a0[dz] += B[qz * D + dz] * s0;
        a1[dz] += B[qz * D + dz] * s1;
        a2[dz] += G[qz * D + dz] * s2;
      }
    }
#pragma unroll
    for (int dz = 0; dz < D; ++dz) {
      zc[((0 * D + dz) * Q + qy) * Q + qx] = a0[dz];
      zc[((1 * D + dz) * Q + qy) * Q + qx] = a1[dz];
      zc[((2 * D + dz) * Q + qy) * Q + qx] = a2[dz];
    }
    __syncthreads();
    if (tid < D * Q) {
      const int x = tid % Q, dy = tid / Q;
#pragma unroll
      for (int dz = 0; dz < D; ++dz) {
        double b0 = 0.0, b12 = 0.0;
#pragma unroll
        for (int y = 0; y < Q; ++y) {
          b0 += B[y * D + dy] * zc[((0 * D + dz) * Q + y) * Q + x];
          b12 += G[y * D + dy] * zc[((1 * D + dz) * Q + y) * Q + x] + B[y * D + dy] * zc[((2 * D + dz) * Q + y) * Q + x];
        }
        yc[((0 * D + dz) * D + dy) * Q + x] = b0;
        yc[((1 * D + dz) * D + dy) * Q + x] = b12;
      }
    }
    __syncthreads();
    // The next component's z stage writes zc only (read above, before this barrier); its y stage
    // writes yc after the next barrier, so every thread has finished reading yc here by then.
    if (active && tid < D * D) {
      const int dx = tid % D, dy = tid / D;
      double* out = evec + c * comp + (std::size_t)e * S::ND + dy * D + dx;
#pragma unroll
      for (int dz = 0; dz < D; ++dz) {
        double o = 0.0;
#pragma unroll
        for (int x = 0; x < Q; ++x)
          o += G[x * D + dx] * yc[((0 * D + dz) * D + dy) * Q + x] + B[x * D + dx] * yc[((1 * D + dz) * D + dy) * Q + x];
        out[dz * D * D] = o;
      }
    }
  }
}

// e_rhs_e = Bl^T sum_{c,d} stress[c][d] .* (G_d v_c)  (F^T v per element, as k_force_t).
// Per component: x through shared memory (vB = B_x v, vG = G_x v), y into registers (BB = B_y vB,
// BG = G_y vB, GB = B_y vG per dz), z in registers (grad_x = B_z GB, grad_y = B_z BG, grad_z =
// G_z BB), the stress product accumulated in the thread's z column (Q1D registers); then Bl^T
// with z in registers and y, x through shared memory.
template <int D, int Q, int L>
__global__ void __launch_bounds__((LeanShape<D, Q, L>::THREADS), (LeanShape<D, Q, L>::BLOCKS_PER_SM))
    k_force_t_lean(DeviceDisc d, const double* __restrict__ stress, const double* __restrict__ v,
                   double* __restrict__ e_rhs) {
  using S = Shape<3, D, Q, L>;
  using LS = LeanShape<D, Q, L>;
  LAGHOS_DYNAMIC_SHARED(sm);
  load_basis<3, D, Q, L>(d, sm);
  const double *B = sm, *G = sm + Q * D, *Bl = sm + 2 * Q * D;
  double* vl = sm + S::BASIS + threadIdx.y * LS::FORCE_T;  // [dz][dy][dx]
  double* xc = vl + D * D * D;                              // [2][dz][dy][qx]
  double* lz = xc + 2 * D * D * Q;                          // [lz][qy][qx]
  double* ly = lz + L * Q * Q;                              // [lz][ly][qx]
  const int tid = threadIdx.x, qx = tid % Q, qy = tid / Q;
  const auto [e, active] = element_slot(nullptr, d.NE);
  const int* map = d.h1_map + (std::size_t)e * S::ND;
  double acc[Q];
#pragma unroll
  for (int qz = 0; qz < Q; ++qz) acc[qz] = 0.0;
#pragma unroll 1
  for (int c = 0; c < 3; ++c) {
    // vl is rewritten only after the previous component's x stage (which read it) and the barrier
    // after it; xc after the barrier below, i.e. after every thread's y stage of component c - 1.
    for (int i = tid; i < S::ND; i += LS::TPE) vl[i] = v[(std::size_t)c * d.nh1 + map[i]];
    __syncthreads();
    if (tid < D * Q) {
      const int x = tid % Q, dy = tid / Q;
#pragma unroll
      for (int dz = 0; dz < D; ++dz) {
        double sB = 0.0, sG = 0.0;
#pragma unroll
        for (int dx = 0; dx < D; ++dx) {
          const double vi = vl[(dz * D + dy) * D + dx];
          sB += B[x * D + dx] * vi;
          sG += G[x * D + dx] * vi;
        }
        xc[((0 * D + dz) * D + dy) * Q + x] = sB;
        xc[((1 * D + dz) * D + dy) * Q + x] = sG;
      }
    }
    __syncthreads();
    double BB[D], BG[D], GB[D];
#pragma unroll
    for (int dz = 0; dz < D; ++dz) {
      BB[dz] = BG[dz] = GB[dz] = 0.0;
#pragma unroll
      for (int dy = 0; dy < D; ++dy) {
        const double xb = xc[((0 * D + dz) * D + dy) * Q + qx], xg = xc[((1 * D + dz) * D + dy) * Q + qx];
        BB[dz] += B[qy * D + dy] * xb;
        BG[dz] += G[qy * D + dy] * xb;
        GB[dz] += B[qy * D + dy] * xg;
      }
    }
    const double* s = stress + ((std::size_t)e * S::DD + 3 * c) * S::NQ + qx + Q * qy;
#pragma unroll
    for (int qz = 0; qz < Q; ++qz) {
      double g0 = 0.0, g1 = 0.0, g2 = 0.0;
#pragma unroll
      for (int dz = 0; dz < D; ++dz) {
        g0 += B[qz * D + dz] * GB[dz];
        g1 += B[qz * D + dz] * BG[dz];
        g2 += G[qz * D + dz] * BB[dz];
      }
      acc[qz] += s[qz * Q * Q] * g0 + s[S::NQ + qz * Q * Q] * g1 + s[2 * S::NQ + qz * Q * Q] * g2;
    }
  }
#pragma unroll
  for (int k = 0; k < L; ++k) {
    double t = 0.0;
#pragma unroll
    for (int qz = 0; qz < Q; ++qz) t += Bl[qz * L + k] * acc[qz];
    lz[(k * Q + qy) * Q + qx] = t;
  }
  __syncthreads();
  if (tid < L * Q) {
    const int x = tid % Q, j = tid / Q;
#pragma unroll
    for (int k = 0; k < L; ++k) {
      double t = 0.0;
#pragma unroll
      for (int y = 0; y < Q; ++y) t += Bl[y * L + j] * lz[(k * Q + y) * Q + x];
      ly[(k * L + j) * Q + x] = t;
    }
  }
  __syncthreads();
  if (active && tid < L * L) {
    const int i = tid % L, j = tid / L;
#pragma unroll
    for (int k = 0; k < L; ++k) {
      double t = 0.0;
#pragma unroll
      for (int x = 0; x < Q; ++x) t += Bl[x * L + i] * ly[(k * L + j) * Q + x];
      e_rhs[(std::size_t)e * S::NL + (k * L + j) * L + i] = t;
    }
  }
}

}  // namespace fixed
}  // namespace laghos
