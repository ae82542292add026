// The tile kernels of the GPU variants subgrid6, subgrid8, fused and balanced (kernels_gpu.cu, the
// only file that includes this one) and the dt reduction every variant runs: a block gathers a tile
// of B^3 octs and its one-oct ghost layer ((2B+4)^3 cells) into shared memory and runs every later
// phase there; the reduction takes max_i(|u_i| + c_s) and the first non-physical cell.
#pragma once
#include "copa/gpu.hpp"
#include "hydro/hydro_math.hpp"
#include "hydro/tile_geometry.hpp"

namespace ro {
namespace {

// Reduction target: max speed as the bit pattern of a non-negative double (ordered like the
// value), bad cell as ~index so that atomicMax keeps the lowest index and 0 means "none".
struct DeviceScan {
  unsigned long long speed_bits;
  unsigned long long bad_not;
};

template <int B>
struct TileShape {
  static constexpr int T = 2 * B;           // interior cells per side
  static constexpr int S = T + 4;           // with the ghost layer
  static constexpr int S3 = S * S * S;
  static constexpr int E = T + 2;           // cells that need slopes and predicted states
  static constexpr int E3 = E * E * E;
  static constexpr int F = (T + 1) * T * T; // faces per direction
  static constexpr int SLOTS = (B + 2) * (B + 2) * (B + 2);
  static constexpr int ext_vars = nvar + 3 * nvar;  // qh and dq (x, y, z)
  // Shared memory in doubles: q (later reused for the fluxes), qh + dq, the slot table.
  static constexpr int shared_doubles = nvar * S3 + ext_vars * E3 + (SLOTS + 1) / 2;
  static_assert(3 * nvar * F <= nvar * S3, "fluxes must fit in the primitive buffer they reuse");
};

__device__ inline int tile_index(int i, int j, int k, int n) { return i + n * (j + n * k); }

// Both reductions of a block, then one atomic per block. blockDim.x is a multiple of the warp.
__device__ void block_reduce_scan(double vmax, unsigned long long bad_not, DeviceScan* out) {
  __shared__ double warp_speed[1024 / COPA_WARP_SIZE];
  __shared__ unsigned long long warp_bad[1024 / COPA_WARP_SIZE];
  vmax = copa::gpu::warp_max(vmax);
  bad_not = copa::gpu::warp_max(bad_not);
  const int lane = threadIdx.x % COPA_WARP_SIZE, warp = threadIdx.x / COPA_WARP_SIZE;
  if (lane == 0) {
    warp_speed[warp] = vmax;
    warp_bad[warp] = bad_not;
  }
  __syncthreads();
  if (warp == 0) {
    const int nwarps = blockDim.x / COPA_WARP_SIZE;
    double v = lane < nwarps ? warp_speed[lane] : 0.0;
    unsigned long long b = lane < nwarps ? warp_bad[lane] : 0ull;
    v = copa::gpu::warp_max(v);
    b = copa::gpu::warp_max(b);
    if (lane == 0) {
      atomicMax(&out->speed_bits, static_cast<unsigned long long>(__double_as_longlong(v)));
      atomicMax(&out->bad_not, b);
    }
  }
}

__device__ inline void scan_cell(const double uc[nvar], double gamma, long long g, double& vmax,
                                 unsigned long long& bad_not) {
  bool ok;
  const double speed = cell_signal_speed(uc, gamma, ok);
  const unsigned long long mark = ~static_cast<unsigned long long>(g);
  if (!ok && mark > bad_not) bad_not = mark;
  vmax = fmax(vmax, speed);
}

// dt reduction: sum_i(|u_i| + c_s) maximised over cells, positivity check. Reads 40 B/cell,
// about 25 FLOP/cell.
__global__ void scan_kernel(const double* __restrict__ u, long long owned, long long stride, double gamma,
                            DeviceScan* out) {
  double vmax = 0.0;
  unsigned long long bad_not = 0;
  for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < owned; g += (long long)gridDim.x * blockDim.x) {
    double uc[nvar];
    for (int f = 0; f < nvar; ++f) uc[f] = u[f * stride + g];
    scan_cell(uc, gamma, g, vmax, bad_not);
  }
  block_reduce_scan(vmax, bad_not, out);
}

// Gather item j of a tile (slot j/8, cell j%8 of the slot's oct): loads the conserved state of
// its source cell (mirrored momentum across a reflecting face) and returns its tile index t.
template <int B>
__device__ inline void gather_load(const MeshView& m, const TileEdges& edges, const int* slot_oct,
                                   const double* __restrict__ u, long long fstride, int j, double uc[nvar], int& t) {
  constexpr int S = TileShape<B>::S;
  const int s = j >> 3, lc = j & 7;
  const int sl[3] = {s % (B + 2), (s / (B + 2)) % (B + 2), s / ((B + 2) * (B + 2))};
  int tc[3], loc[3];
  bool flip[3];
  for (int a = 0; a < 3; ++a) {
    tc[a] = 2 * sl[a] + ((lc >> a) & 1);
    int slot;
    tile_axis_source(tc[a], B, edges.lo[a], edges.hi[a], slot, loc[a], flip[a]);
  }
  const long long cell = (long long)slot_oct[s] * 8 + loc[0] + 2 * loc[1] + 4 * loc[2];
  for (int f = 0; f < nvar; ++f) uc[f] = u[f * fstride + cell];
  for (int a = 0; a < 3; ++a)
    if (flip[a]) uc[1 + a] = -uc[1 + a];
  t = tile_index(tc[0], tc[1], tc[2], S);
}

template <int B>
__device__ inline void gather_store(const double uc[nvar], double gamma, int t, double* q) {
  double qc[nvar];
  cons_to_prim(uc, gamma, qc);
  for (int f = 0; f < nvar; ++f) q[f * TileShape<B>::S3 + t] = qc[f];
}

// One tile update. Compulsory global traffic: 40 B read + 40 B written per updated cell; the
// ghost layer is re-read from L2 ((2B+4)^3 / (2B)^3 gathered cells per updated cell).
// FLOPs per updated cell: about 570 for the scheme, times the ghost recomputation of the slopes
// and predictor ((2B+2)^3 / (2B)^3) and of the boundary faces ((2B+1)/(2B)).
//
// The body is shared by two kernels: tile_update_kernel (subgrid6/subgrid8/fused, no launch
// bounds: 74-76 registers) and tile_update_balanced (see there). PAIRED_GATHER issues the global
// loads of two gather items before converting either, so that two L2 round trips overlap.
template <int B, bool FUSED, bool PAIRED_GATHER>
__device__ inline void tile_update_body(const MeshView& m, const HydroParams& hp, const double* __restrict__ u,
                                        double* __restrict__ unew, double dtdx, DeviceScan* scan) {
  using Sh = TileShape<B>;
  constexpr int S = Sh::S, E = Sh::E, T = Sh::T;
  extern __shared__ double smem[];
  double* q = smem;                       // [nvar][S3], later flux [3][nvar][F]
  double* ext = smem + nvar * Sh::S3;     // [qh: nvar | dq: 3 x nvar][E3]
  int* slot_oct = reinterpret_cast<int*>(ext + Sh::ext_vars * Sh::E3);
  double* flux = smem;

  const long long base = (long long)blockIdx.x * (B * B * B);
  const long long fstride = m.noct * 8;
  for (int s = threadIdx.x; s < Sh::SLOTS; s += blockDim.x)
    slot_oct[s] = tile_slot_oct(m, base, s % (B + 2), (s / (B + 2)) % (B + 2), s / ((B + 2) * (B + 2)));
  const TileEdges edges = tile_edges(m, base, B);
  __syncthreads();

  // Phase 1: gather, eight consecutive threads read the eight contiguous cells of one oct.
  if (PAIRED_GATHER) {
    for (int j = threadIdx.x; j < Sh::SLOTS * 8; j += 2 * blockDim.x) {
      const int j2 = j + blockDim.x;
      const bool second = j2 < Sh::SLOTS * 8;
      double ua[nvar], ub[nvar];
      int ta = 0, tb = 0;
      gather_load<B>(m, edges, slot_oct, u, fstride, j, ua, ta);
      if (second) gather_load<B>(m, edges, slot_oct, u, fstride, j2, ub, tb);
      gather_store<B>(ua, hp.gamma, ta, q);
      if (second) gather_store<B>(ub, hp.gamma, tb, q);
    }
  } else {
    for (int j = threadIdx.x; j < Sh::SLOTS * 8; j += blockDim.x) {
      double uc[nvar];
      int t = 0;
      gather_load<B>(m, edges, slot_oct, u, fstride, j, uc, t);
      gather_store<B>(uc, hp.gamma, t, q);
    }
  }
  __syncthreads();

  // Phase 2: limited slopes in x, y, z and the half-step predictor, on the (2B)^3 + 6 (2B)^2
  // cells whose face states phase 3 needs (the slope region without its edges and corners).
  for (int m = threadIdx.x; m < predictor_cells(T); m += blockDim.x) {
    int ei, ej, ek;
    predictor_cell(m, T, ei, ej, ek);
    const int e = tile_index(ei, ej, ek, E);
    const int i = ei + 1, j = ej + 1, k = ek + 1;
    const int c = tile_index(i, j, k, S);
    const int step[3] = {1, S, S * S};
    double qc[nvar], d[3][nvar], qh[nvar];
    for (int f = 0; f < nvar; ++f) qc[f] = q[f * Sh::S3 + c];
    for (int a = 0; a < 3; ++a)
      for (int f = 0; f < nvar; ++f)
        d[a][f] = limited_slope(q[f * Sh::S3 + c - step[a]], qc[f], q[f * Sh::S3 + c + step[a]], hp.slope_type);
    predict_half_step(qc, d[0], d[1], d[2], dtdx, hp.gamma, qh);
    for (int f = 0; f < nvar; ++f) {
      ext[f * Sh::E3 + e] = qh[f];
      for (int a = 0; a < 3; ++a) ext[(nvar + a * nvar + f) * Sh::E3 + e] = d[a][f];
    }
  }
  __syncthreads();

  // Phase 3: one Riemann solve per face; the fluxes overwrite the primitives.
  for (int t = threadIdx.x; t < 3 * Sh::F; t += blockDim.x) {
    const int a = t / Sh::F, r = t % Sh::F;
    const int nx = a == 0 ? T + 1 : T, ny = a == 1 ? T + 1 : T;
    const int fi = r % nx, fj = (r / nx) % ny, fk = r / (nx * ny);
    // right cell in E coordinates (tile coordinate - 1); the left one is one step down along a.
    const int er = tile_index(fi + 1, fj + 1, fk + 1, E);
    const int el = er - (a == 0 ? 1 : (a == 1 ? E : E * E));
    double qhl[nvar], dql[nvar], qhr[nvar], dqr[nvar], fl[nvar];
    for (int f = 0; f < nvar; ++f) {
      qhl[f] = ext[f * Sh::E3 + el];
      qhr[f] = ext[f * Sh::E3 + er];
      dql[f] = ext[(nvar + a * nvar + f) * Sh::E3 + el];
      dqr[f] = ext[(nvar + a * nvar + f) * Sh::E3 + er];
    }
    if (a == 0) face_flux<0>(qhl, dql, qhr, dqr, hp, fl);
    else if (a == 1) face_flux<1>(qhl, dql, qhr, dqr, hp, fl);
    else face_flux<2>(qhl, dql, qhr, dqr, hp, fl);
    for (int f = 0; f < nvar; ++f) flux[(a * nvar + f) * Sh::F + r] = fl[f];
  }
  __syncthreads();

  // Phase 4: conservative update of the interior cells, coalesced (octs base.. are contiguous).
  double vmax = 0.0;
  unsigned long long bad_not = 0;
  for (int j = threadIdx.x; j < B * B * B * 8; j += blockDim.x) {
    const int k8 = j >> 3, lc = j & 7;
    int px, py, pz;
    interior_oct_position(k8, px, py, pz);
    const int ci = 2 * px + (lc & 1), cj = 2 * py + ((lc >> 1) & 1), ck = 2 * pz + (lc >> 2);
    const int fx = ci + (T + 1) * (cj + T * ck);
    const int fy = ci + T * (cj + (T + 1) * ck);
    const int fz = ci + T * (cj + T * ck);
    const long long g = (base + k8) * 8 + lc;
    double un[nvar];
    for (int f = 0; f < nvar; ++f) {
      const double* fxv = flux + (0 * nvar + f) * Sh::F;
      const double* fyv = flux + (1 * nvar + f) * Sh::F;
      const double* fzv = flux + (2 * nvar + f) * Sh::F;
      un[f] = conservative_update(u[f * fstride + g], fxv[fx], fxv[fx + 1], fyv[fy], fyv[fy + T], fzv[fz],
                                  fzv[fz + T * T], dtdx);
      unew[f * fstride + g] = un[f];
    }
    if (FUSED) scan_cell(un, hp.gamma, g, vmax, bad_not);
  }
  if (FUSED) block_reduce_scan(vmax, bad_not, scan);
}

template <int B, bool FUSED>
__global__ void tile_update_kernel(MeshView m, HydroParams hp, const double* __restrict__ u,
                                   double* __restrict__ unew, double dtdx, DeviceScan* scan) {
  tile_update_body<B, FUSED, false>(m, hp, u, unew, dtdx, scan);
}

// balanced: the subgrid8 tile with the work of its phases matched to the block. Per 8^3 tile the
// phases have 512 gather items, 160 predictor cells, 240 faces and 64 updated cells; with 256
// threads that is 2 + 1 + 1 + 1 passes (192 threads: 3 + 1 + 2 + 1, 128: 4 + 2 + 2 + 1). The
// seed's kernel needs 74-76 registers, so 256-thread blocks ran only 3 per SM (768 threads,
// register-limited: 5.99 ms against 5.22 ms at 192 on the H200). Capping registers at 64
// (launch bounds 256 x 4) makes 4 blocks of 256 = 1024 threads fit per SM (shared memory: 4 x
// 55 KB <= 228 KB), a third more warps than the best seed configuration to hide the latency of
// the FP64 division/sqrt chains and the L2 gathers; the gather issues two items' loads at once.
// The dt reduction stays a separate kernel: the fused epilogue (variant fused) costs more on the
// update (+0.35 ms at 256^3) than the separate reduction (0.195 ms at 83% of the bandwidth).
constexpr int balanced_max_threads = 256;
constexpr int balanced_min_blocks = 4;
__global__ void __launch_bounds__(balanced_max_threads, balanced_min_blocks)
    tile_update_balanced(MeshView m, HydroParams hp, const double* __restrict__ u, double* __restrict__ unew,
                         double dtdx, DeviceScan* scan) {
  tile_update_body<2, false, true>(m, hp, u, unew, dtdx, scan);
}

}  // namespace
}  // namespace ro
