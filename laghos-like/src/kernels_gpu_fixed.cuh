// Element operators specialised at compile time on (DIM, D1D, Q1D, L1D) and on the threads per
// element TPE, included by kernels_gpu.cu. Compared with the generic kernels: every loop bound and
// every index division is a constant (the contractions unroll, div/mod become multiplies), the 1D
// bases sit in shared memory, and a block holds several elements (blockDim = (TPE, elements)) so
// that low orders fill the SM (a 16-thread block per element caps an SM at 32 blocks = 512 threads).
// The quadrature update runs one thread per point with J and dv/dxi in registers (9 + 9 doubles),
// so its shared memory per element drops from 2 dim^2 nq + 5 big doubles to 3 big + (dim+1) nq.
// Stress layout (all GPU kernels): stress[(e * dim^2 + c * dim + d) * nq + q], coalesced in q.
#pragma once
#include "device_disc.hpp"
#include "qpoint.hpp"
#include "qpoint_lean.hpp"

// Dynamic shared memory of the block (a host emulation in the tests defines its own).
#ifndef LAGHOS_DYNAMIC_SHARED
#define LAGHOS_DYNAMIC_SHARED(name) extern __shared__ double name[]
#endif

namespace laghos {
namespace fixed {

constexpr int cpow(int b, int e) { return e == 0 ? 1 : b * cpow(b, e - 1); }
constexpr int cmax(int a, int b) { return a > b ? a : b; }
constexpr int pow2_ceil(int n, int p = 1) { return p >= n ? p : pow2_ceil(n, 2 * p); }

// One contraction of sum factorization along AXIS: out[.., i, ..] = sum_j M(i, j) in[.., j, ..]
// (TRANS: M(j, i)); M row-major [q * LD + n]. Extents: NOUT on the axes before AXIS (already
// contracted), NIN on AXIS and after. The element's TPE threads share the work; no barrier here.
template <int DIM, int AXIS, int NIN, int NOUT, bool TRANS, int LD, int TPE>
__device__ inline void contract(const double* __restrict__ M, const double* __restrict__ in, double* __restrict__ out,
                                int tid) {
  constexpr int before = cpow(NOUT, AXIS), after = cpow(NIN, DIM - 1 - AXIS), total = before * NOUT * after;
  for (int idx = tid; idx < total; idx += TPE) {
    const int b = idx % before, i = (idx / before) % NOUT, t = idx / (before * NOUT);
    double s = 0.0;
#pragma unroll
    for (int j = 0; j < NIN; ++j) s += (TRANS ? M[j * LD + i] : M[i * LD + j]) * in[(t * NIN + j) * before + b];
    out[(t * NOUT + i) * before + b] = s;
  }
}

// N^DIM -> NQ^DIM (or back when TRANS) with M0/M1/M2 along x/y/z; ends with a block barrier.
template <int DIM, int N, int NQ, bool TRANS, int TPE>
__device__ inline void apply(const double* M0, const double* M1, const double* M2, const double* in, double* out,
                             double* t0, double* t1, int tid) {
  constexpr int NIN = TRANS ? NQ : N, NOUT = TRANS ? N : NQ;
  if constexpr (DIM == 2) {
    contract<2, 0, NIN, NOUT, TRANS, N, TPE>(M0, in, t0, tid);
    __syncthreads();
    contract<2, 1, NIN, NOUT, TRANS, N, TPE>(M1, t0, out, tid);
    __syncthreads();
  } else {
    contract<3, 0, NIN, NOUT, TRANS, N, TPE>(M0, in, t0, tid);
    __syncthreads();
    contract<3, 1, NIN, NOUT, TRANS, N, TPE>(M1, t0, t1, tid);
    __syncthreads();
    contract<3, 2, NIN, NOUT, TRANS, N, TPE>(M2, t1, out, tid);
    __syncthreads();
  }
}

// out = M1 . in1 + M2 . in2 along AXIS (two contractions summed in one pass).
template <int DIM, int AXIS, int NIN, int NOUT, bool TRANS, int LD, int TPE>
__device__ inline void contract2(const double* __restrict__ M1, const double* __restrict__ in1,
                                 const double* __restrict__ M2, const double* __restrict__ in2,
                                 double* __restrict__ out, int tid) {
  constexpr int before = cpow(NOUT, AXIS), after = cpow(NIN, DIM - 1 - AXIS), total = before * NOUT * after;
  for (int idx = tid; idx < total; idx += TPE) {
    const int b = idx % before, i = (idx / before) % NOUT, t = idx / (before * NOUT);
    double s = 0.0;
#pragma unroll
    for (int j = 0; j < NIN; ++j) {
      const int k = (t * NIN + j) * before + b;
      s += (TRANS ? M1[j * LD + i] : M1[i * LD + j]) * in1[k] + (TRANS ? M2[j * LD + i] : M2[i * LD + j]) * in2[k];
    }
    out[(t * NOUT + i) * before + b] = s;
  }
}

// Reference gradient at the points: g[dd * NQ + q] = d/dxi_dd of the H1 field `in` (D^DIM).
// The partial contractions are shared between the components: 3D = 2 + 3 + 3 contractions in
// 3 barrier phases instead of 3 x 3 in 9 (2D: 2 + 2 in 2). w: 5 BIG doubles of scratch.
template <int DIM, int D, int Q, int TPE>
__device__ inline void grad(const double* B, const double* G, const double* in, double* g, double* w, int tid) {
  constexpr int BIG = cpow(cmax(D, Q), DIM), NQ = cpow(Q, DIM);
  double *xB = w, *xG = w + BIG;
  contract<DIM, 0, D, Q, false, D, TPE>(B, in, xB, tid);
  contract<DIM, 0, D, Q, false, D, TPE>(G, in, xG, tid);
  __syncthreads();
  if constexpr (DIM == 2) {
    contract<2, 1, D, Q, false, D, TPE>(B, xG, g, tid);
    contract<2, 1, D, Q, false, D, TPE>(G, xB, g + NQ, tid);
    __syncthreads();
  } else {
    double *yBB = w + 2 * BIG, *yBG = w + 3 * BIG, *yGB = w + 4 * BIG;
    contract<3, 1, D, Q, false, D, TPE>(B, xB, yBB, tid);
    contract<3, 1, D, Q, false, D, TPE>(G, xB, yBG, tid);
    contract<3, 1, D, Q, false, D, TPE>(B, xG, yGB, tid);
    __syncthreads();
    contract<3, 2, D, Q, false, D, TPE>(B, yGB, g, tid);
    contract<3, 2, D, Q, false, D, TPE>(B, yBG, g + NQ, tid);
    contract<3, 2, D, Q, false, D, TPE>(G, yBB, g + 2 * NQ, tid);
    __syncthreads();
  }
}

// Transposed gradient summed over the directions: out = sum_dd (G on axis dd, B elsewhere)^T
// s[dd * NQ ..]. 3D = 3 + 2 (paired) + 1 (paired) contractions in 3 phases instead of 9 in 9.
template <int DIM, int D, int Q, int TPE>
__device__ inline void grad_t(const double* B, const double* G, const double* s, double* out, double* w, int tid) {
  constexpr int BIG = cpow(cmax(D, Q), DIM), NQ = cpow(Q, DIM);
  double *a0 = w, *a1 = w + BIG;
  contract<DIM, 0, Q, D, true, D, TPE>(G, s, a0, tid);
  contract<DIM, 0, Q, D, true, D, TPE>(B, s + NQ, a1, tid);
  if constexpr (DIM == 2) {
    __syncthreads();
    contract2<2, 1, Q, D, true, D, TPE>(B, a0, G, a1, out, tid);
    __syncthreads();
  } else {
    double *a2 = w + 2 * BIG, *b01 = w + 3 * BIG, *b2 = w + 4 * BIG;
    contract<3, 0, Q, D, true, D, TPE>(B, s + 2 * NQ, a2, tid);
    __syncthreads();
    contract2<3, 1, Q, D, true, D, TPE>(B, a0, G, a1, b01, tid);
    contract<3, 1, Q, D, true, D, TPE>(B, a2, b2, tid);
    __syncthreads();
    contract2<3, 2, Q, D, true, D, TPE>(B, b01, G, b2, out, tid);
    __syncthreads();
  }
}

template <int DIM, int D, int Q, int L>
struct Shape {
  static constexpr int ND = cpow(D, DIM), NQ = cpow(Q, DIM), NL = cpow(L, DIM), DD = DIM * DIM;
  static constexpr int BIG = cpow(cmax(D, Q), DIM);
  static constexpr int BASIS = 2 * Q * D + Q * L;  // B, G, Bl in shared memory
  static constexpr int RED = cmax(NQ, BIG);
  // Shared doubles per element of each kernel (the layouts in the kernels below).
  static constexpr int MASS = 5 * BIG, FORCE = 3 * BIG + 5 * BIG + BIG, FORCE_T = BIG + 3 * BIG + 5 * BIG + 2 * BIG;
  static constexpr int QUPDATE = BIG + 5 * BIG + DIM * NQ + RED;
  static constexpr int QUPDATE_STAGED = BIG + 5 * BIG + 2 * DD * NQ + RED;  // k_qupdate_staged
  // k_qupdate_staged's block (one thread per point, at least 256 per block) and the blocks per SM
  // it is compiled for: 1024 threads, i.e. at most 64 registers per thread.
  static constexpr int QTHREADS = NQ > 256 ? NQ : 256, QBLOCKS_PER_SM = 1024 / QTHREADS;
};

// Loads B, G, Bl into shared memory (whole block).
template <int DIM, int D, int Q, int L>
__device__ inline void load_basis(const DeviceDisc& d, double* sm) {
  const int t = threadIdx.x + blockDim.x * threadIdx.y, nt = blockDim.x * blockDim.y;
  for (int i = t; i < Q * D; i += nt) {
    sm[i] = d.B[i];
    sm[Q * D + i] = d.G[i];
  }
  for (int i = t; i < Q * L; i += nt) sm[2 * Q * D + i] = d.Bl[i];
  __syncthreads();
}

// The element of this thread's slot (threadIdx.y of block blockIdx.x, blockDim.y slots a block)
// among the `count` elements of `elements` (every element when null). A slot past the end works on
// the last element, so that its threads still reach the block's barriers, and writes nothing
// (active false).
struct ElementSlot {
  int e;
  bool active;
};
__device__ inline ElementSlot element_slot(const int* elements, int count) {
  const int e0 = blockIdx.x * blockDim.y + threadIdx.y;
  const bool active = e0 < count;
  const int slot = active ? e0 : count - 1;
  return {elements ? elements[slot] : slot, active};
}

// y_e = B^T (rho0DetJ0w .* B x_e) for H1 (gathered through the map) or L2 (element-major).
// SCATTER (H1 only): y is the assembled vector (nh1, zeroed by the caller) and each element adds
// its y_e into it through the map with FP64 atomics, instead of writing the NE nd E-vector that a
// gather then reads (the E-vector round trip, ~45 MB per call at Q2Q1 N = 44, README). The order
// of the up-to-2^DIM additions per dof is then not fixed: the sums differ from the gather at
// round-off. Runs the `count` elements of `elements` (every element when null: --overlap's passes
// run a subset).
template <int DIM, int D, int Q, int L, int TPE, bool H1, bool SCATTER = false>
__global__ void __launch_bounds__(TPE > 256 ? TPE : 256)
    k_mass(DeviceDisc d, const int* __restrict__ elements, int count, const double* __restrict__ x,
           double* __restrict__ y) {
  using S = Shape<DIM, D, Q, L>;
  constexpr int N = H1 ? D : L, NN = H1 ? S::ND : S::NL;
  LAGHOS_DYNAMIC_SHARED(sm);
  load_basis<DIM, D, Q, L>(d, sm);
  const double* M = H1 ? sm : sm + 2 * Q * D;
  double* xl = sm + S::BASIS + threadIdx.y * 5 * S::BIG;
  double *a = xl + S::BIG, *t0 = a + S::BIG, *t1 = t0 + S::BIG, *yl = t1 + S::BIG;
  const int tid = threadIdx.x;
  const auto [e, active] = element_slot(elements, count);
  if (H1) {
    const int* map = d.h1_map + (std::size_t)e * NN;
    for (int i = tid; i < NN; i += TPE) xl[i] = x[map[i]];
  } else {
    for (int i = tid; i < NN; i += TPE) xl[i] = x[(std::size_t)e * NN + i];
  }
  __syncthreads();
  apply<DIM, N, Q, false, TPE>(M, M, M, xl, a, t0, t1, tid);
  const double* w = d.rho0DetJ0w + (std::size_t)e * S::NQ;
  for (int q = tid; q < S::NQ; q += TPE) a[q] *= w[q];
  __syncthreads();
  apply<DIM, N, Q, true, TPE>(M, M, M, a, yl, t0, t1, tid);
  if constexpr (SCATTER) {
    static_assert(H1, "the scatter assembles the H1 mass only");
    const int* map = d.h1_map + (std::size_t)e * NN;
    if (active)
      for (int i = tid; i < NN; i += TPE) atomicAdd(&y[map[i]], yl[i]);
  } else {
    if (active)
      for (int i = tid; i < NN; i += TPE) y[(std::size_t)e * NN + i] = yl[i];
  }
}

// evec[c][e][i] = sum_d (G_d^T stress[c][d])_i  (F 1 per element, assembled by the gather), for
// the `count` elements of `elements` (every element when null: --overlap's passes run a subset).
template <int DIM, int D, int Q, int L, int TPE>
__global__ void __launch_bounds__(TPE > 256 ? TPE : 256)
    k_force(DeviceDisc d, const int* __restrict__ elements, int count, const double* __restrict__ stress,
            double* __restrict__ evec) {
  using S = Shape<DIM, D, Q, L>;
  LAGHOS_DYNAMIC_SHARED(sm);
  load_basis<DIM, D, Q, L>(d, sm);
  const double *B = sm, *G = sm + Q * D;
  double* sq = sm + S::BASIS + threadIdx.y * S::FORCE;  // DIM * NQ stress of component c
  double *w = sq + 3 * S::BIG, *out = w + 5 * S::BIG;
  const int tid = threadIdx.x;
  const auto [e, active] = element_slot(elements, count);
  const double* sj = stress + (std::size_t)e * S::DD * S::NQ;
  const std::size_t comp = (std::size_t)d.NE * S::ND;
#pragma unroll 1
  for (int c = 0; c < DIM; ++c) {
    for (int q = tid; q < DIM * S::NQ; q += TPE) sq[q] = sj[c * DIM * S::NQ + q];
    __syncthreads();
    grad_t<DIM, D, Q, TPE>(B, G, sq, out, w, tid);
    if (active)
      for (int i = tid; i < S::ND; i += TPE) evec[c * comp + (std::size_t)e * S::ND + i] = out[i];
  }
}

// e_rhs_e = Bl^T sum_{c,d} stress[c][d] .* (G_d v_c)  (F^T v per element).
template <int DIM, int D, int Q, int L, int TPE>
__global__ void __launch_bounds__(TPE > 256 ? TPE : 256)
    k_force_t(DeviceDisc d, const double* __restrict__ stress, const double* __restrict__ v,
              double* __restrict__ e_rhs) {
  using S = Shape<DIM, D, Q, L>;
  LAGHOS_DYNAMIC_SHARED(sm);
  load_basis<DIM, D, Q, L>(d, sm);
  const double *B = sm, *G = sm + Q * D, *Bl = sm + 2 * Q * D;
  double* vl = sm + S::BASIS + threadIdx.y * S::FORCE_T;
  double *g = vl + S::BIG, *w = g + 3 * S::BIG, *acc = w + 5 * S::BIG, *out = acc + S::BIG;
  const int tid = threadIdx.x;
  const auto [e, active] = element_slot(nullptr, d.NE);
  const double* sj = stress + (std::size_t)e * S::DD * S::NQ;
  const int* map = d.h1_map + (std::size_t)e * S::ND;
  for (int q = tid; q < S::NQ; q += TPE) acc[q] = 0.0;
#pragma unroll 1
  for (int c = 0; c < DIM; ++c) {
    for (int i = tid; i < S::ND; i += TPE) vl[i] = v[(std::size_t)c * d.nh1 + map[i]];
    __syncthreads();
    grad<DIM, D, Q, TPE>(B, G, vl, g, w, tid);
    for (int q = tid; q < S::NQ; q += TPE) {
      double s = acc[q];
#pragma unroll
      for (int dd = 0; dd < DIM; ++dd) s += sj[(c * DIM + dd) * S::NQ + q] * g[dd * S::NQ + q];
      acc[q] = s;
    }
  }
  __syncthreads();
  apply<DIM, L, Q, true, TPE>(Bl, Bl, Bl, acc, out, w, w + S::BIG, tid);
  if (active)
    for (int i = tid; i < S::NL; i += TPE) e_rhs[(std::size_t)e * S::NL + i] = out[i];
}

// elem_dt[e] = the minimum of element e's TPE point values dt (thread q holds the q-th), by a
// pairwise tree in red (TPE shared doubles) once every thread is done reading red; stored when the
// element is active.
template <int TPE>
__device__ __forceinline__ void element_min_dt(double* red, int q, double dt, bool active, double* elem_dt, int e) {
  __syncthreads();  // every thread has read red[q]
  red[q] = dt;
  __syncthreads();
  constexpr int P2 = pow2_ceil(TPE);
  for (int h = P2 / 2; h > 0; h /= 2) {
    if (q < h && q + h < TPE) red[q] = fmin(red[q], red[q + h]);
    __syncthreads();
  }
  if (active && q == 0) elem_dt[e] = red[0];
}

// Quadrature update, one thread per point (TPE = NQ): the gradients of x and v are contracted in
// shared memory one component at a time and picked up into registers; the point physics
// (qpoint_update) then runs on registers only; elem_dt[e] = min over the element's points.
template <int DIM, int D, int Q, int L>
__global__ void __launch_bounds__(cpow(Q, DIM) > 256 ? cpow(Q, DIM) : 256)
    k_qupdate(DeviceDisc d, const double* __restrict__ x, const double* __restrict__ v,
              const double* __restrict__ e_in, double* __restrict__ stress, double* __restrict__ elem_dt) {
  using S = Shape<DIM, D, Q, L>;
  constexpr int TPE = S::NQ;
  LAGHOS_DYNAMIC_SHARED(sm);
  load_basis<DIM, D, Q, L>(d, sm);
  const double *B = sm, *G = sm + Q * D, *Bl = sm + 2 * Q * D;
  double* xl = sm + S::BASIS + threadIdx.y * S::QUPDATE;
  double *w = xl + S::BIG, *g = w + 5 * S::BIG, *red = g + DIM * S::NQ;
  const int q = threadIdx.x;
  const auto [e, active] = element_slot(nullptr, d.NE);
  const int* map = d.h1_map + (std::size_t)e * S::ND;
  double Jq[S::DD], dvq[S::DD];
#pragma unroll
  for (int field = 0; field < 2; ++field) {
    const double* src = field == 0 ? x : v;
#pragma unroll
    for (int c = 0; c < DIM; ++c) {
      for (int i = q; i < S::ND; i += TPE) xl[i] = src[(std::size_t)c * d.nh1 + map[i]];
      __syncthreads();
      grad<DIM, D, Q, TPE>(B, G, xl, g, w, q);
#pragma unroll
      for (int dd = 0; dd < DIM; ++dd) (field == 0 ? Jq : dvq)[c * DIM + dd] = g[dd * S::NQ + q];
    }
  }
  for (int i = q; i < S::NL; i += TPE) xl[i] = e_in[(std::size_t)e * S::NL + i];
  __syncthreads();
  apply<DIM, L, Q, false, TPE>(Bl, Bl, Bl, xl, red, w, w + S::BIG, q);
  const QPointIn in = point_inputs(d, e, q, S::NQ, S::DD, Jq, dvq, red[q]);
  double s[S::DD];
  const double dt = qpoint_update<DIM>(in, s);
  if (active)
#pragma unroll
    for (int i = 0; i < S::DD; ++i) stress[((std::size_t)e * S::DD + i) * S::NQ + q] = s[i];
  element_min_dt<TPE>(red, q, dt, active, elem_dt, e);
}

// The `lean` variant's quadrature update: k_qupdate with the reference gradients of x and v
// (2 DIM^2 values per point) staged in shared memory, [field][c][d][point], for the whole point
// physics instead of being held in registers, the register-lean physics (qpoint_lean.hpp) reading
// them where it uses them, and launch bounds of 1024 threads per SM. Why: k_qupdate is
// latency-bound at 25 % occupancy, limited by its 120 registers; 64 registers double the warps.
// Shared memory per element: BIG + 5 BIG + 2 DIM^2 NQ + RED doubles (Q2Q1 3D: 12.8 KB; 4 elements
// per block, 4 blocks = 210 KB of the SM's 228 KB).
template <int DIM, int D, int Q, int L>
__global__ void __launch_bounds__((Shape<DIM, D, Q, L>::QTHREADS), (Shape<DIM, D, Q, L>::QBLOCKS_PER_SM))
    k_qupdate_staged(DeviceDisc d, const double* __restrict__ x, const double* __restrict__ v,
                     const double* __restrict__ e_in, double* __restrict__ stress, double* __restrict__ elem_dt) {
  using S = Shape<DIM, D, Q, L>;
  constexpr int TPE = S::NQ;
  LAGHOS_DYNAMIC_SHARED(sm);
  load_basis<DIM, D, Q, L>(d, sm);
  const double *B = sm, *G = sm + Q * D, *Bl = sm + 2 * Q * D;
  double* xl = sm + S::BASIS + threadIdx.y * S::QUPDATE_STAGED;
  double *w = xl + S::BIG, *grads = w + 5 * S::BIG, *red = grads + 2 * S::DD * S::NQ;
  const int q = threadIdx.x;
  const auto [e, active] = element_slot(nullptr, d.NE);
  const int* map = d.h1_map + (std::size_t)e * S::ND;
#pragma unroll 1
  for (int f = 0; f < 2 * DIM; ++f) {  // x_0 .. x_{DIM-1}, then v_0 .. v_{DIM-1}
    const double* src = (f < DIM ? x : v) + (std::size_t)(f % DIM) * d.nh1;
    for (int i = q; i < S::ND; i += TPE) xl[i] = src[map[i]];
    __syncthreads();
    grad<DIM, D, Q, TPE>(B, G, xl, grads + f * DIM * S::NQ, w, q);
  }
  for (int i = q; i < S::NL; i += TPE) xl[i] = e_in[(std::size_t)e * S::NL + i];
  __syncthreads();
  apply<DIM, L, Q, false, TPE>(Bl, Bl, Bl, xl, red, w, w + S::BIG, q);
  double dt = INFINITY;  // the tail block's idle element slots take no part in the minimum
  if (active) {
    const QPointIn in = point_inputs(d, e, q, S::NQ, S::DD, nullptr, nullptr, red[q]);
    dt = lean::qpoint_update_strided<DIM>(in, grads + q, grads + S::DD * S::NQ + q, S::NQ,
                                          stress + (std::size_t)e * S::DD * S::NQ + q, S::NQ);
  }
  element_min_dt<TPE>(red, q, dt, active, elem_dt, e);
}

}  // namespace fixed
}  // namespace laghos
