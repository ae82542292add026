// GPU fill variants (CUDA and HIP from one source) and the device-resident LU (cuSOLVER).
// Every variant first treats all pairs as far (no branch on the hot path), then the near-pair list
// adds B_near - B_far (singularity extraction), then A = (P + P^T)/2. The matrix stays on the
// device from fill to solve. The variants (variants.cpp; FLOPs by the study's count, 2335 per
// triangle pair; bytes = minimum traffic):
//   triangle-pair  one thread per test triangle x 16 source triangles (far_block_local), 3x3 blocks
//                  scattered with atomics; 2335 N_T^2 FLOPs; reads N_T triangles, 9 N_T^2 atomic
//                  complex adds (16 N^2 B minimum); then the symmetrise pass.
//   triangle-pair-upper  the symmetric rule A = (P + P^T)/2 in the fill pass (no symmetrise
//                  kernel), one thread per unordered triangle pair, both directions from one set of
//                  moments; the atomics of shared edges merged (merge=source: along the sources;
//                  merge=lanes: along the lanes of a warp too).
//   block          32 test x 32 source bases per thread block; the tile's triangles deduplicated in
//                  shared memory, each distinct triangle pair once, entries accumulated in shared
//                  memory and stored once; about 1.1 N^2 triangle pairs on the sphere.
//   blas           per chunk of test triangles: the weighted kernel w_p w_q G(r_p, r_q) for all
//                  source points (3 tc x 7 per source triangle), contracted with the source RWG
//                  factors by a strided-batched ZGEMM (3 tc x 7) x (7 x 12), then a small kernel
//                  applies the test factors; workspace 57 tc N_T x 16 B (reported).
// MFIE / CFIE (--formulation): after the variant's EFIE fill (CFIE) the matrix is scaled by alpha
// and the MFIE part added by one fill for every variant (mfie_far_kernel, mfie_near_kernel).
// PMCHWT / Mueller (--formulation): one fill for every variant (dielectric_far_kernel,
// dielectric_near_kernel) into the 2N x 2N matrix.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "copa/device_memory.hpp"
#include "copa/errors.hpp"
#include "copa/gpu.hpp"
#include "copa/gpu_timing.hpp"
#include "kernels.hpp"
#include "dielectric_pair.hpp"
#include "solver_gpu.hpp"
#include "upper_fill.hpp"

#if defined(COPA_HAVE_CUDA)
#include <cublas_v2.h>
#include <cusolverDn.h>
#endif

namespace efie {
namespace {

constexpr int block_bases = 32;  // the block variant's tile of 32 x 32 bases
constexpr int block_rows = 8;    // its threads: 32 x 8, 4 source bases each

struct BasisTriangles {
  int tri[2];
  int local[2];
};

__device__ inline void atomic_add(Cplx* a, Cplx v) {
  atomicAdd(&a->re, v.re);
  atomicAdd(&a->im, v.im);
}

// A[row + col n] += v by atomics (upper_thread_pairs's scatter on the device).
struct AtomicScatter {
  Cplx* a;
  long n;
  __device__ void operator()(int row, int col, Cplx v) const { atomic_add(a + long(row) + long(col) * n, v); }
};

__device__ inline void scatter_block(Cplx* a, long n, const int* tb, const int* sb, const Cplx b[3][3]) {
  for (int i = 0; i < 3; ++i) {
    if (tb[i] < 0) continue;
    for (int j = 0; j < 3; ++j)
      if (sb[j] >= 0) atomic_add(a + long(tb[i]) + long(sb[j]) * n, b[i][j]);
  }
}

__device__ inline void scatter_block(Cplx* a, long n, const Triangle& t, const Triangle& s, const Cplx b[3][3]) {
  scatter_block(a, n, t.basis, s.basis, b);
}

// x: test triangles (consecutive threads, so the 3 rows each writes are near each other in a
// column), y: a chunk of pair_sources source triangles, the same for the whole block (uniform,
// broadcast loads). Each thread keeps its test triangle over the chunk; far_block_local does the
// arithmetic (efie_pair.hpp).
constexpr int pair_threads = 128;
constexpr int pair_sources = 16;

__global__ void __launch_bounds__(pair_threads, 4) fill_triangle_pair_kernel(const QuadTriangle* __restrict__ quad, int nt, double k, Cplx* a,
                                                                          long n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nt) return;
  const QuadTriangle tt = quad[t];
  const int s_end = min(nt, int(blockIdx.y + 1) * pair_sources);
  for (int s = blockIdx.y * pair_sources; s < s_end; ++s) {
    Cplx b[3][3];
    far_block_local(tt, quad[s], k, b);
    scatter_block(a, n, tt.basis, quad[s].basis, b);
  }
}

// triangle-pair-upper: the symmetric rule in the fill pass (upper_thread_pairs, upper_fill.hpp).
// One thread computing both blocks of a pair as two far blocks spills registers and stalls on
// instruction fetch, so:
// - the grid holds only the (test tile, source chunk) blocks that meet s >= t (upper_block: the
//   upper triangle of triangle-pair's grid, half its blocks, each doing twice the work);
// - the two blocks of a pair are summed as moments (symmetric_far_moments, efie_pair.hpp) over a
//   loop of the 6 test points that is not unrolled: one set of 16 doubles stays live, the code is
//   one 7-point body, the 9 entries are formed once;
// - the thread's own triangle t, needed whole (as test in P(t,s), as source in P(s,t): 45 doubles),
//   and the chunk's 16 source triangles are read from shared memory where used. The stride of
//   sizeof(QuadTriangle) = 376 B = 94 words puts the 16 lanes of a half-warp's 8-byte loads on 16
//   distinct bank pairs (94 l mod 32 = 30 l mod 32): no bank conflicts; the source triangle is the
//   same for the whole warp (broadcast).
// The mirrored atomics go to 32 columns per warp; the direct ones go to the rows of 32
// consecutive triangles' edges in one column, not contiguous either.
constexpr int upper_shared_bytes = (upper_tile + upper_chunk) * int(sizeof(QuadTriangle));

// The triangles of block blockIdx.x (upper_block) staged in dynamic shared memory
// (upper_shared_bytes, 54 KB): the test tile's (lane = threadIdx.x's own triangle t at own[lane]),
// then the source chunk's [s0, s_end); every thread passes the barrier. Lane: the type the kernel
// indexes with (unsigned or int), which sets its address arithmetic.
struct UpperStage {
  QuadTriangle* own;
  QuadTriangle* chunk;
  int t, s0, s_end;
};
template <class Lane>
__device__ __forceinline__ UpperStage stage_upper_block(const QuadTriangle* __restrict__ quad, int nt) {
  extern __shared__ QuadTriangle upper_shared[];
  UpperStage st;
  st.own = upper_shared;
  st.chunk = upper_shared + upper_tile;
  int x, y;
  upper_block(blockIdx.x, nt, x, y);
  const Lane lane = threadIdx.x;
  st.t = x * upper_tile + lane;
  st.s0 = y * upper_chunk, st.s_end = min(nt, st.s0 + upper_chunk);
  if (st.t < nt) st.own[lane] = quad[st.t];
  if (int(lane) < st.s_end - st.s0) st.chunk[lane] = quad[st.s0 + lane];
  __syncthreads();
  return st;
}

__global__ void __launch_bounds__(upper_tile, 4) fill_triangle_pair_upper_kernel(const QuadTriangle* __restrict__ quad, int nt,
                                                                                double k, Cplx* a, long n) {
  const UpperStage st = stage_upper_block<unsigned>(quad, nt);
  if (st.t >= nt) return;
  upper_thread_pairs(st.own[threadIdx.x], st.t, st.chunk, st.s0, st.s_end, k, AtomicScatter{a, n});
}

// triangle-pair-upper with merge=lanes: the source merge, and lane l+1 hands its row of the edge it
// shares with lane l's triangle to lane l by a shuffle (upper_lane_*, upper_fill.hpp). Every lane
// runs every step of the chunk (idle ones with a zero block) so that the shuffles see the whole warp.
__global__ void __launch_bounds__(upper_tile, 4) fill_triangle_pair_upper_lanes_kernel(const QuadTriangle* __restrict__ quad, int nt,
                                                                                      double k, Cplx* a, long n) {
  const UpperStage st = stage_upper_block<int>(quad, nt);
  const int l = threadIdx.x, t = st.t, s0 = st.s0, s_end = st.s_end;
  QuadTriangle *own = st.own, *chunk = st.chunk;
  UpperLane lane = make_upper_lane(own, l, l % 32, t, nt);
  const QuadTriangle& tt = own[l];
  const AtomicScatter scatter{a, n};
  for (int s = s0; s < s_end; ++s) {
    Cplx c[3][3], send[3], recv[3];
    int keep;
    upper_lane_block(lane, tt, chunk, s0, s_end, s, k, c, keep);
    upper_lane_send(lane, c, send);
#pragma unroll
    for (int j = 0; j < 3; ++j) recv[j] = {copa::gpu::shfl_down(send[j].re, 1), copa::gpu::shfl_down(send[j].im, 1)};
    upper_lane_write(lane, tt, chunk[s - s0], s, c, keep, recv, scatter);
  }
}

// Block (32 x 8 threads) fills the 32 x 32 tile of test bases [bx*32, +32) x source bases
// [by*32, +32) without global atomics. The 64 (test) and 64 (source) triangles of the tile's bases
// are deduplicated in shared memory (with the mesh's local numbering 32 bases live on about 33
// triangles), each distinct (test, source) triangle pair's block is computed once by
// far_block_local and its entries that belong to the tile are added to a shared 32 x 32
// accumulator (shared-memory atomics), which is then stored once, coalesced. Triangle pairs per
// entry: (distinct triangles / 32)^2, about 1.1 on the sphere (4 without the deduplication).
__global__ void __launch_bounds__(block_bases * block_rows, 2)
    fill_block_kernel(const QuadTriangle* __restrict__ quad, const BasisTriangles* __restrict__ bases, long n, double k, Cplx* a) {
  constexpr int items = 2 * block_bases;  // (basis slot, side) of one tile side
  constexpr int threads = block_bases * block_rows;
  __shared__ QuadTriangle test_tri[items];  // distinct test triangles
  __shared__ int source_tri[items];         // distinct source triangles (indices into quad)
  __shared__ int slot_of[2][items][3];      // tile slot of local basis i of distinct triangle, -1 if none
  __shared__ int item_tri[2][items];        // triangle of item e = 2 slot + side, -1 past n
  __shared__ int item_first[2][items];      // 1 if the item is its triangle's first occurrence
  __shared__ int distinct[2];
  __shared__ Cplx acc[block_bases][block_bases];  // [source slot][test slot]
  const int tid = threadIdx.y * block_bases + threadIdx.x;
  const long m0 = long(blockIdx.x) * block_bases, n0 = long(blockIdx.y) * block_bases;
  for (int e = tid; e < block_bases * block_bases; e += threads) acc[e / block_bases][e % block_bases] = {0, 0};
  const int side = tid / items, e = tid % items;  // threads 0 .. 2 items - 1 own one item each
  const bool owner = tid < 2 * items;
  const long basis = (side == 0 ? m0 : n0) + e / 2;
  if (owner) item_tri[side][e] = basis < n ? bases[basis].tri[e % 2] : -1;
  __syncthreads();
  int first = e, pos = 0;  // the earliest item with the same triangle, and its distinct position
  if (owner) {
    if (item_tri[side][e] >= 0)
      for (int x = 0; x < e; ++x)
        if (item_tri[side][x] == item_tri[side][e]) {
          first = x;
          break;
        }
    item_first[side][e] = item_tri[side][e] >= 0 && first == e;
  }
  __syncthreads();
  if (owner && item_tri[side][e] >= 0) {
    for (int x = 0; x < first; ++x) pos += item_first[side][x];
    if (first == e) {
      if (side == 0)
        test_tri[pos] = quad[item_tri[side][e]];
      else
        source_tri[pos] = item_tri[side][e];
      for (int i = 0; i < 3; ++i) slot_of[side][pos][i] = -1;
    }
  }
  if (owner && e == items - 1) {
    int c = 0;
    for (int x = 0; x < items; ++x) c += item_first[side][x];
    distinct[side] = c;
  }
  __syncthreads();
  if (owner && item_tri[side][e] >= 0) slot_of[side][pos][bases[basis].local[e % 2]] = e / 2;
  __syncthreads();
  const int nd_t = distinct[0], nd_s = distinct[1];
  for (int p = tid; p < nd_t * nd_s; p += threads) {
    const int dt = p % nd_t, ds = p / nd_t;
    Cplx b[3][3];
    far_block_local(test_tri[dt], quad[source_tri[ds]], k, b);
    for (int i = 0; i < 3; ++i) {
      const int sa = slot_of[0][dt][i];
      if (sa < 0) continue;
      for (int j = 0; j < 3; ++j) {
        const int sb = slot_of[1][ds][j];
        if (sb < 0) continue;
        atomicAdd(&acc[sb][sa].re, b[i][j].re);
        atomicAdd(&acc[sb][sa].im, b[i][j].im);
      }
    }
  }
  __syncthreads();
  for (int x = tid; x < block_bases * block_bases; x += threads) {
    const long m = m0 + x % block_bases, c = n0 + x / block_bases;
    if (m < n && c < n) a[m + c * n] = acc[x / block_bases][x % block_bases];
  }
}

// One thread per near pair: add B_near - B_far, B_far by the formula the fill used (local: the
// triangle-pair variant's far_block_local; otherwise pair_block<false>). symmetric (the fill that
// applies the symmetric rule itself): half of the correction D at (t_i, s_j) and half at (s_j, t_i);
// the list holds both (t, s) and (s, t), so A's entry receives (D(t,s)_ij + D(s,t)_ji)/2, and a
// self pair's halves land on (t_i, t_j) and (t_j, t_i).
__global__ void near_correction_kernel(const Triangle* __restrict__ tris, const QuadTriangle* __restrict__ quad,
                                       const int* __restrict__ pairs, long count, double k, bool local, bool symmetric, Cplx* a, long n) {
  const long e = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= count) return;
  const int ti = pairs[2 * e], si = pairs[2 * e + 1];
  const Triangle t = tris[ti], s = tris[si];
  Cplx b[3][3], far[3][3];
  pair_block<true>(t, s, k, b);
  if (local)
    far_block_local(quad[ti], quad[si], k, far);
  else
    pair_block<false>(t, s, k, far);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) b[i][j] = b[i][j] - far[i][j];
  if (!symmetric) {
    scatter_block(a, n, t, s, b);
    return;
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      b[i][j] = 0.5 * b[i][j];
      far[j][i] = b[i][j];
    }
  scatter_block(a, n, t, s, b);
  scatter_block(a, n, s, t, far);
}

// ---- MFIE part of the MFIE and CFIE (mfie_pair.hpp): C = alpha C + w M, w = -j k (1 - alpha) ------
// One fill for every variant (the variant chooses the EFIE part only): the triangle-pair layout of
// fill_triangle_pair_kernel with the plain pair formula; near pairs are skipped by the same
// is_near test that built the near list (the MFIE's far formula on a self pair is not small, so a
// far-then-correct scheme would subtract large values) and done by mfie_near_kernel.
__global__ void scale_kernel(Cplx* a, long count, double alpha) {
  const long e = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < count) a[e] = alpha * a[e];
}

// Thread t's far pairs (test t, source s) over the sources of block column blockIdx.y (the layout
// of fill_triangle_pair_kernel): pair(tris[t], tris[s]) for each s that is not near t.
template <class Pair>
__device__ __forceinline__ void for_far_sources(const Triangle* __restrict__ tris, int nt, Pair pair) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nt) return;
  const Triangle tt = tris[t];
  const int s_end = min(nt, int(blockIdx.y + 1) * pair_sources);
  for (int s = blockIdx.y * pair_sources; s < s_end; ++s) {
    const Triangle ss = tris[s];
    if (is_near(tt, ss)) continue;
    pair(tt, ss);
  }
}

__device__ inline void weight_block(Cplx b[3][3], Cplx w) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) b[i][j] = w * b[i][j];
}

__global__ void __launch_bounds__(pair_threads) mfie_far_kernel(const Triangle* __restrict__ tris, int nt, double k, Cplx w, Cplx* a,
                                                                long n) {
  for_far_sources(tris, nt, [&](const Triangle& tt, const Triangle& ss) {
    Cplx b[3][3];
    mfie_pair_block<false>(tt, ss, false, k, b);
    weight_block(b, w);
    scatter_block(a, n, tt, ss, b);
  });
}

__global__ void mfie_near_kernel(const Triangle* __restrict__ tris, const int* __restrict__ pairs, long count, double k, Cplx w, Cplx* a,
                                 long n) {
  const long e = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= count) return;
  const int ti = pairs[2 * e], si = pairs[2 * e + 1];
  const Triangle t = tris[ti], s = tris[si];
  Cplx b[3][3];
  mfie_pair_block<true>(t, s, ti == si, k, b);
  weight_block(b, w);
  scatter_block(a, n, t, s, b);
}

// ---- PMCHWT / Mueller (dielectric_pair.hpp): the 2N x 2N matrix, quadrants (J, M) x (J, M) ------
// The MFIE's layout and near-pair treatment; each pair's four 3x3 blocks scattered with atomics
// into the quadrants (leading dimension 2N, the M rows and columns offset by N).
__device__ inline void scatter_dielectric(Cplx* a, long n, const Triangle& t, const Triangle& s, const DielectricBlocks& b) {
  const long n2 = 2 * n;
  scatter_block(a, n2, t, s, b.jj);
  scatter_block(a + n * n2, n2, t, s, b.jm);
  scatter_block(a + n, n2, t, s, b.mj);
  scatter_block(a + n + n * n2, n2, t, s, b.mm);
}

__global__ void __launch_bounds__(pair_threads) dielectric_far_kernel(const Triangle* __restrict__ tris, int nt, DielectricMedia md,
                                                                      Cplx* a, long n) {
  for_far_sources(tris, nt, [&](const Triangle& tt, const Triangle& ss) {
    DielectricBlocks b;
    dielectric_pair<false>(tt, ss, false, md, b);
    scatter_dielectric(a, n, tt, ss, b);
  });
}

__global__ void dielectric_near_kernel(const Triangle* __restrict__ tris, const int* __restrict__ pairs, long count, DielectricMedia md,
                                       Cplx* a, long n) {
  const long e = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= count) return;
  const int ti = pairs[2 * e], si = pairs[2 * e + 1];
  const Triangle t = tris[ti], s = tris[si];
  DielectricBlocks b;
  dielectric_pair<true>(t, s, ti == si, md, b);
  scatter_dielectric(a, n, t, s, b);
}

// A = (A + A^T)/2 by 32 x 32 tiles through shared memory: block (bi >= bj) reads tile (bi, bj) and
// its mirror (bj, bi) coalesced and writes both; every value is the same sum as its mirror's.
__global__ void symmetrise_kernel(Cplx* a, long n) {
  __shared__ Cplx lower[32][33], upper[32][33];
  const int bi = blockIdx.x, bj = blockIdx.y;
  if (bi < bj) return;
  const int x = threadIdx.x;
  for (int y = threadIdx.y; y < 32; y += blockDim.y) {
    const long r = long(bi) * 32 + x, c = long(bj) * 32 + y;
    if (r < n && c < n) lower[y][x] = a[r + c * n];
    const long r2 = long(bj) * 32 + x, c2 = long(bi) * 32 + y;
    if (r2 < n && c2 < n) upper[y][x] = a[r2 + c2 * n];
  }
  __syncthreads();
  for (int y = threadIdx.y; y < 32; y += blockDim.y) {
    const long r = long(bi) * 32 + x, c = long(bj) * 32 + y;
    if (r < n && c < n) a[r + c * n] = 0.5 * (lower[y][x] + upper[x][y]);
    const long r2 = long(bj) * 32 + x, c2 = long(bi) * 32 + y;
    if (r2 < n && c2 < n) a[r2 + c2 * n] = 0.5 * (upper[y][x] + lower[x][y]);
  }
}

// ---- blas variant ---------------------------------------------------------------------------------
constexpr int blas_cols = 12;  // (x, y, z, div) x 3 source edges

// Source factors, per source triangle a 7 x 12 column-major matrix: column 3c + j holds
// c_j (r_q - v_j)_c for c < 3 and c_j for c = 3.
__global__ void blas_source_factor_kernel(const Triangle* __restrict__ tris, int nt, Cplx* f) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nt) return;
  const Triangle ss = tris[s];
  Cplx* out = f + long(s) * source_points * blas_cols;
  for (int q = 0; q < source_points; ++q) {
    Vec3 r;
    double w;
    source_rule(q, ss.v[0], ss.v[1], ss.v[2], r, w);
    for (int j = 0; j < 3; ++j) {
      const Vec3 d = r - ss.v[j];
      const double cj = ss.coef[j];
      out[q + source_points * (0 + j)] = {cj * d.x, 0};
      out[q + source_points * (3 + j)] = {cj * d.y, 0};
      out[q + source_points * (6 + j)] = {cj * d.z, 0};
      out[q + source_points * (9 + j)] = {cj, 0};
    }
  }
}

// Weighted kernel for test triangles [t0, t0 + tc): per source triangle s a (3 tc x 7) column-major
// matrix w_p w_q G(r_p, r_q), rows 3 (t - t0) + p.
__global__ void blas_green_kernel(const Triangle* __restrict__ tris, int nt, int t0, int tc, double k, Cplx* g) {
  const long rows = 3L * tc;
  const long idx = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= rows * source_points * nt) return;
  const long row = idx % rows, q = (idx / rows) % source_points, s = idx / (rows * source_points);
  const Triangle& tt = tris[t0 + row / 3];
  const Triangle& ss = tris[s];
  Vec3 rp, rq;
  double wp, wq;
  test_rule(int(row % 3), tt.v[0], tt.v[1], tt.v[2], rp, wp);
  source_rule(int(q), ss.v[0], ss.v[1], ss.v[2], rq, wq);
  g[idx] = (wp * wq) * green(norm(rp - rq), k);
}

// Applies the test factors to the ZGEMM result C_s (3 tc x 12) and scatters the 3x3 blocks.
__global__ void blas_scatter_kernel(const Triangle* __restrict__ tris, int nt, int t0, int tc, double k, const Cplx* c, Cplx* a,
                                    long n) {
  const long idx = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= long(tc) * nt) return;
  const int tl = int(idx % tc), s = int(idx / tc);
  const Triangle& tt = tris[t0 + tl];
  const Triangle& ss = tris[s];
  const Cplx* cs = c + long(s) * 3L * tc * blas_cols;
  const long ld = 3L * tc;
  Cplx b[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) b[i][j] = {0, 0};
  const double k2q = 0.25 * k * k;
  for (int p = 0; p < test_points; ++p) {
    Vec3 rp;
    double wp;
    test_rule(p, tt.v[0], tt.v[1], tt.v[2], rp, wp);
    const long row = 3L * tl + p;
    for (int i = 0; i < 3; ++i) {
      const Vec3 d = rp - tt.v[i];
      for (int j = 0; j < 3; ++j) {
        const Cplx v = k2q * (d.x * cs[row + ld * (0 + j)] + d.y * cs[row + ld * (3 + j)] + d.z * cs[row + ld * (6 + j)]) -
                       cs[row + ld * (9 + j)];
        b[i][j] = b[i][j] + v;
      }
    }
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) b[i][j] = tt.coef[i] * b[i][j];
  scatter_block(a, n, tt, ss, b);
}

// Test triangles per blas chunk: the workspace (57 tc N_T complex) within 4 GB.
int blas_chunk(long nt) {
  const double per_tri = 57.0 * 16.0 * double(nt);
  return int(std::max(1.0, std::min(double(nt), std::floor(4e9 / per_tri))));
}

#if defined(COPA_HAVE_CUDA)
void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw copa::RuntimeError(std::string(what) + " failed (cuBLAS status " + std::to_string(int(s)) + ")");
}
void check_cusolver(cusolverStatus_t s, const char* what) {
  if (s != CUSOLVER_STATUS_SUCCESS)
    throw copa::RuntimeError(std::string(what) + " failed (cuSOLVER status " + std::to_string(int(s)) + ")");
}
#endif

class GpuEngine final : public Engine {
 public:
  GpuEngine(GpuFill fill, const std::string& label, long n, long nt) : fill_(fill), n_(n), nt_(nt) {
#if !defined(COPA_HAVE_CUDA)
    if (fill_ == GpuFill::blas)
      throw copa::RuntimeError("--variant blas is unavailable in the HIP build: hipBLAS/rocBLAS are not installed here");
#endif
    gpu_require_memory(fill_, label, n, nt);
    a_ = copa::gpu::DeviceArray<Cplx>(std::size_t(n) * std::size_t(n));
    tris_ = copa::gpu::DeviceArray<Triangle>(nt);
    quad_ = copa::gpu::DeviceArray<QuadTriangle>(nt);
#if defined(COPA_HAVE_CUDA)
    check_cusolver(cusolverDnCreate(&solver_), "cusolverDnCreate");
    if (fill_ == GpuFill::blas) {
      check_cublas(cublasCreate(&blas_), "cublasCreate");
      chunk_ = blas_chunk(nt);
      green_ = copa::gpu::DeviceArray<Cplx>(std::size_t(21) * chunk_ * nt);
      gemm_out_ = copa::gpu::DeviceArray<Cplx>(std::size_t(36) * chunk_ * nt);
      source_factor_ = copa::gpu::DeviceArray<Cplx>(std::size_t(84) * nt);
    }
#endif
  }
  ~GpuEngine() override {
#if defined(COPA_HAVE_CUDA)
    if (params_) cusolverDnDestroyParams(params_);
    if (solver_) cusolverDnDestroy(solver_);
    if (blas_) cublasDestroy(blas_);
#endif
  }

  std::unique_ptr<copa::RegionTimer> make_timer(copa::Profile& profile) override {
    return std::make_unique<copa::gpu::EventTimer>(profile);
  }

  void upload(const Problem& p) override {
    p_ = &p;
    tris_.copy_from_host(p.triangles.data());
    std::vector<QuadTriangle> q(p.triangles.size());
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = make_quad_triangle(p.triangles[i]);
    quad_.copy_from_host(q.data());
    std::vector<BasisTriangles> b(p.rwg.size());
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = {{p.rwg[i].tri[0], p.rwg[i].tri[1]}, {p.rwg[i].local[0], p.rwg[i].local[1]}};
    bases_ = copa::gpu::DeviceArray<BasisTriangles>(b.size());  // N: the matrix is 2N for a dielectric
    bases_.copy_from_host(b.data());
    near_ = copa::gpu::DeviceArray<int>(2 * p.near_pairs.size());
    near_.copy_from_host(reinterpret_cast<const int*>(p.near_pairs.data()));
    copa::gpu::synchronize();
  }

  void set_formulation(const Formulation& f) override { form_ = f; }

  void fill(copa::RegionTimer& timer) override {
    if (form_.dielectric()) {
      fill_dielectric(timer);
      return;
    }
    if (form_.alpha > 0) fill_efie(timer);
    if (form_.alpha < 1) fill_mfie(timer);
  }

  void fill_dielectric(copa::RegionTimer& timer) {
    const int nt = int(nt_);
    const long n = n_ / 2;  // RWG functions; the matrix is 2N
    const DielectricMedia md = dielectric_media(p_->k, form_.eps_r, form_.mu_r, form_.name == "muller");
    copa::Region r(timer, "fill.dielectric");
    copa::gpu::fill_zero(a_.data(), a_.bytes());
    const dim3 grid(copa::gpu::blocks_for(nt, pair_threads), copa::gpu::blocks_for(nt, pair_sources));
    dielectric_far_kernel<<<grid, pair_threads, 0, nullptr>>>(tris_.data(), nt, md, a_.data(), n);
    COPA_GPU_CHECK_LAUNCH("dielectric_far_kernel");
    const long near_count = long(p_->near_pairs.size());
    dielectric_near_kernel<<<copa::gpu::blocks_for(near_count, 64), 64, 0, nullptr>>>(tris_.data(), near_.data(), near_count, md,
                                                                                      a_.data(), n);
    COPA_GPU_CHECK_LAUNCH("dielectric_near_kernel");
  }

  void fill_mfie(copa::RegionTimer& timer) {
    const double k = p_->k;
    const int nt = int(nt_);
    const Cplx w{0, -k * (1 - form_.alpha)};
    copa::Region r(timer, "fill.mfie");
    const long count = n_ * n_;
    if (form_.alpha == 0) {
      copa::gpu::fill_zero(a_.data(), a_.bytes());
    } else {
      scale_kernel<<<copa::gpu::blocks_for(count, 256), 256, 0, nullptr>>>(a_.data(), count, form_.alpha);
      COPA_GPU_CHECK_LAUNCH("scale_kernel");
    }
    const dim3 grid(copa::gpu::blocks_for(nt, pair_threads), copa::gpu::blocks_for(nt, pair_sources));
    mfie_far_kernel<<<grid, pair_threads, 0, nullptr>>>(tris_.data(), nt, k, w, a_.data(), n_);
    COPA_GPU_CHECK_LAUNCH("mfie_far_kernel");
    const long near_count = long(p_->near_pairs.size());
    mfie_near_kernel<<<copa::gpu::blocks_for(near_count, 64), 64, 0, nullptr>>>(tris_.data(), near_.data(), near_count, k, w, a_.data(), n_);
    COPA_GPU_CHECK_LAUNCH("mfie_near_kernel");
  }

  void fill_efie(copa::RegionTimer& timer) {
    const double k = p_->k;
    const int nt = int(nt_);
    const bool symmetric_fill = fill_ == GpuFill::upper_source || fill_ == GpuFill::upper_lanes;
    {
      copa::Region r(timer, "fill.far");
      if (fill_ == GpuFill::triangle_pair) {
        copa::gpu::fill_zero(a_.data(), a_.bytes());
        const dim3 grid(copa::gpu::blocks_for(nt, pair_threads), copa::gpu::blocks_for(nt, pair_sources));
        fill_triangle_pair_kernel<<<grid, pair_threads, 0, nullptr>>>(quad_.data(), nt, k, a_.data(), n_);
        COPA_GPU_CHECK_LAUNCH("fill_triangle_pair_kernel");
      } else if (fill_ == GpuFill::upper_source) {
        copa::gpu::fill_zero(a_.data(), a_.bytes());
        copa::gpu::set_max_dynamic_shared(fill_triangle_pair_upper_kernel, upper_shared_bytes);
        fill_triangle_pair_upper_kernel<<<unsigned(upper_block_count(nt)), upper_tile, upper_shared_bytes, nullptr>>>(quad_.data(), nt, k,
                                                                                                                     a_.data(), n_);
        COPA_GPU_CHECK_LAUNCH("fill_triangle_pair_upper_kernel (merge)");
      } else if (fill_ == GpuFill::upper_lanes) {
        copa::gpu::fill_zero(a_.data(), a_.bytes());
        copa::gpu::set_max_dynamic_shared(fill_triangle_pair_upper_lanes_kernel, upper_shared_bytes);
        fill_triangle_pair_upper_lanes_kernel<<<unsigned(upper_block_count(nt)), upper_tile, upper_shared_bytes, nullptr>>>(
            quad_.data(), nt, k, a_.data(), n_);
        COPA_GPU_CHECK_LAUNCH("fill_triangle_pair_upper_lanes_kernel");
      } else if (fill_ == GpuFill::block) {
        const dim3 grid(copa::gpu::blocks_for(n_, block_bases), copa::gpu::blocks_for(n_, block_bases));
        fill_block_kernel<<<grid, dim3(block_bases, block_rows), 0, nullptr>>>(quad_.data(), bases_.data(), n_, k, a_.data());
        COPA_GPU_CHECK_LAUNCH("fill_block_kernel");
      } else {
        fill_blas(k);
      }
    }
    {
      copa::Region r(timer, "fill.near");
      const long count = long(p_->near_pairs.size());
      near_correction_kernel<<<copa::gpu::blocks_for(count, 64), 64, 0, nullptr>>>(
          tris_.data(), quad_.data(), near_.data(), count, k, fill_ != GpuFill::blas, symmetric_fill, a_.data(), n_);
      COPA_GPU_CHECK_LAUNCH("near_correction_kernel");
    }
    if (symmetric_fill) return;
    copa::Region r(timer, "fill.symmetrise");
    const dim3 tiles(copa::gpu::blocks_for(n_, 32), copa::gpu::blocks_for(n_, 32));
    symmetrise_kernel<<<tiles, dim3(32, 8), 0, nullptr>>>(a_.data(), n_);
    COPA_GPU_CHECK_LAUNCH("symmetrise_kernel");
  }

  void set_lu_method(const std::string& method) override { lu_method_ = method; }

  // The LU in place. Workspace sizes come from the routine's own query (bytes on device and host
  // for the 64-bit API) and are allocated outside the timed region.
  void factor(copa::RegionTimer& timer) override {
#if defined(COPA_HAVE_CUDA)
    auto* a = reinterpret_cast<cuDoubleComplex*>(a_.data());
    if (info_.size() == 0) info_ = copa::gpu::DeviceArray<int>(1);
    double norm1 = 0;
    {
      copa::Region r(timer, "condition.norm1");
      norm1 = device_norm1(a_.data(), n_);
    }
    if (lu_method_ == "getrf") {
      int lwork = 0;
      check_cusolver(cusolverDnZgetrf_bufferSize(solver_, int(n_), int(n_), a, int(n_), &lwork), "cusolverDnZgetrf_bufferSize");
      if (std::size_t(lwork) * sizeof(Cplx) > work_.size()) work_ = copa::gpu::DeviceArray<char>(std::size_t(lwork) * sizeof(Cplx));
      if (pivots_.size() != std::size_t(n_)) pivots_ = copa::gpu::DeviceArray<int>(n_);
      lu_workspace_bytes_ = double(lwork) * sizeof(Cplx);
      copa::Region r(timer, "lu");
      check_cusolver(cusolverDnZgetrf(solver_, int(n_), int(n_), a, int(n_), reinterpret_cast<cuDoubleComplex*>(work_.data()),
                                      pivots_.data(), info_.data()),
                     "cusolverDnZgetrf");
    } else {
      if (!params_) check_cusolver(cusolverDnCreateParams(&params_), "cusolverDnCreateParams");
      check_cusolver(cusolverDnSetAdvOptions(params_, CUSOLVERDN_GETRF, lu_method_ == "xgetrf-alg1" ? CUSOLVER_ALG_1 : CUSOLVER_ALG_0),
                     "cusolverDnSetAdvOptions");
      std::size_t dev_bytes = 0, host_bytes = 0;
      check_cusolver(cusolverDnXgetrf_bufferSize(solver_, params_, n_, n_, CUDA_C_64F, a, n_, CUDA_C_64F, &dev_bytes, &host_bytes),
                     "cusolverDnXgetrf_bufferSize");
      if (dev_bytes > work_.size()) work_ = copa::gpu::DeviceArray<char>(dev_bytes);
      host_work_.resize(std::max<std::size_t>(host_bytes, 1));
      if (pivots64_.size() != std::size_t(n_)) pivots64_ = copa::gpu::DeviceArray<std::int64_t>(n_);
      lu_workspace_bytes_ = double(dev_bytes);
      copa::Region r(timer, "lu");
      check_cusolver(cusolverDnXgetrf(solver_, params_, n_, n_, CUDA_C_64F, a, n_, pivots64_.data(), CUDA_C_64F, work_.data(), dev_bytes,
                                      host_work_.data(), host_bytes, info_.data()),
                     "cusolverDnXgetrf");
    }
    check_info("zgetrf");
    // ||A||_1 ||A^-1||_1, the second by Hager/Higham with solves on the device factors (cuSOLVER
    // has no zgecon): a few pairs of O(N^2) getrs against the O(N^3) LU.
    copa::Region r(timer, "condition");
    condition_ = norm1 * hager_higham_inverse_norm1(n_, [&](std::vector<complex>& v, bool adjoint) {
                   copa::gpu::DeviceArray<Cplx> rhs(v.size());
                   rhs.copy_from_host(reinterpret_cast<const Cplx*>(v.data()));
                   getrs(rhs.data(), adjoint ? CUBLAS_OP_C : CUBLAS_OP_N);
                   check_info("zgetrs (condition estimate)");
                   rhs.copy_to_host(reinterpret_cast<Cplx*>(v.data()));
                   copa::gpu::synchronize();
                 });
#else
    (void)timer;
    throw copa::RuntimeError("the device LU is unavailable in the HIP build: hipSOLVER/rocSOLVER are not installed here");
#endif
  }

  void solve(std::vector<complex>& b, copa::RegionTimer& timer) override {
#if defined(COPA_HAVE_CUDA)
    copa::gpu::DeviceArray<Cplx> rhs(b.size());
    rhs.copy_from_host(reinterpret_cast<const Cplx*>(b.data()));
    {
      copa::Region r(timer, "solve");
      getrs(rhs.data(), CUBLAS_OP_N);
    }
    check_info("zgetrs");
    rhs.copy_to_host(reinterpret_cast<Cplx*>(b.data()));
    copa::gpu::synchronize();
#else
    (void)b;
    (void)timer;
    throw copa::RuntimeError("the device LU is unavailable in the HIP build: hipSOLVER/rocSOLVER are not installed here");
#endif
  }

  double condition_estimate() const override { return condition_; }

  // cuSOLVER's IRS may leave garbage in the matrix (when it did not converge): it works on the
  // engine's matrix and the kept copy restores it.
  IrsResult solve_irs(const SolverOptions& o, std::vector<complex>& b, copa::RegionTimer& timer) override {
#if defined(COPA_HAVE_CUDA)
    if (kept_.size() != a_.size()) {
      copa::gpu::require_device_memory(a_.bytes(), "the kept copy of the " + std::to_string(n_) + "-unknown matrix (--solver " + o.solver + ")");
      kept_ = copa::gpu::DeviceArray<Cplx>(a_.size());
    }
    copa::gpu::copy_on_device(kept_.data(), a_.data(), a_.bytes());
    const std::vector<complex> rhs = b;
    IrsResult res = device_irs_solve(solver_, o, a_.data(), n_, b, timer);
    copa::gpu::copy_on_device(a_.data(), kept_.data(), a_.bytes());
    res.relative_residual = device_relative_residual(kept_.data(), n_, b, rhs);
    irs_workspace_bytes_ = res.workspace_bytes + kept_.bytes();
    return res;
#else
    (void)b;
    (void)timer;
    throw copa::InputError("--solver " + o.solver + " is unavailable in the HIP build: no iterative-refinement solver here");
#endif
  }
  double relative_residual(const std::vector<complex>& x, const std::vector<complex>& b) override {
    return kept_.size() == 0 ? -1 : device_relative_residual(kept_.data(), n_, x, b);
  }

  std::vector<complex> matrix() override {
    std::vector<complex> out(std::size_t(n_) * n_);
    copa::gpu::synchronize();
    a_.copy_to_host(reinterpret_cast<Cplx*>(out.data()));
    copa::gpu::synchronize();
    return out;
  }

  std::vector<complex> entries(const std::vector<std::array<long, 2>>& at) override {
    std::vector<complex> out(at.size());
    copa::gpu::synchronize();
    for (std::size_t e = 0; e < at.size(); ++e)
      copa::gpu::copy_to_host(&out[e], a_.data() + at[e][0] + at[e][1] * n_, sizeof(Cplx));
    copa::gpu::synchronize();
    return out;
  }

  // The fill workspace (estimate) plus the device LU workspace its query returned (after factor).
  double workspace_bytes() const override { return gpu_workspace_bytes(fill_, n_, nt_) + lu_workspace_bytes_ + irs_workspace_bytes_; }

 private:
#if defined(COPA_HAVE_CUDA)
  // rhs <- op(A)^-1 rhs with the factors of the --lu routine (op: N, or C for the adjoint).
  void getrs(Cplx* rhs, cublasOperation_t op) {
    if (lu_method_ == "getrf")
      check_cusolver(cusolverDnZgetrs(solver_, op, int(n_), 1, reinterpret_cast<const cuDoubleComplex*>(a_.data()), int(n_), pivots_.data(),
                                      reinterpret_cast<cuDoubleComplex*>(rhs), int(n_), info_.data()),
                     "cusolverDnZgetrs");
    else
      check_cusolver(cusolverDnXgetrs(solver_, params_, op, n_, 1, CUDA_C_64F, a_.data(), n_, pivots64_.data(), CUDA_C_64F, rhs, n_,
                                      info_.data()),
                     "cusolverDnXgetrs");
  }
#endif

  void fill_blas(double k) {
#if defined(COPA_HAVE_CUDA)
    const int nt = int(nt_);
    copa::gpu::fill_zero(a_.data(), a_.bytes());
    blas_source_factor_kernel<<<copa::gpu::blocks_for(nt, 128), 128, 0, nullptr>>>(tris_.data(), nt, source_factor_.data());
    COPA_GPU_CHECK_LAUNCH("blas_source_factor_kernel");
    const cuDoubleComplex one{1, 0}, zero{0, 0};
    for (int t0 = 0; t0 < nt; t0 += chunk_) {
      const int tc = std::min(chunk_, nt - t0);
      const long green_count = 21L * tc * nt;
      blas_green_kernel<<<copa::gpu::blocks_for(green_count, 256), 256, 0, nullptr>>>(tris_.data(), nt, t0, tc, k, green_.data());
      COPA_GPU_CHECK_LAUNCH("blas_green_kernel");
      check_cublas(cublasZgemmStridedBatched(blas_, CUBLAS_OP_N, CUBLAS_OP_N, 3 * tc, blas_cols, source_points, &one,
                                             reinterpret_cast<const cuDoubleComplex*>(green_.data()), 3 * tc, 21L * tc,
                                             reinterpret_cast<const cuDoubleComplex*>(source_factor_.data()), source_points,
                                             long(source_points) * blas_cols, &zero,
                                             reinterpret_cast<cuDoubleComplex*>(gemm_out_.data()), 3 * tc, 36L * tc, nt),
                   "cublasZgemmStridedBatched");
      blas_scatter_kernel<<<copa::gpu::blocks_for(long(tc) * nt, 128), 128, 0, nullptr>>>(tris_.data(), nt, t0, tc, k,
                                                                                        gemm_out_.data(), a_.data(), n_);
      COPA_GPU_CHECK_LAUNCH("blas_scatter_kernel");
    }
#else
    (void)k;
#endif
  }

  void check_info(const char* what) {
    int info = 0;
    info_.copy_to_host(&info);
    copa::gpu::synchronize();
    if (info != 0) throw copa::RuntimeError(std::string(what) + " on the device: info " + std::to_string(info) + " (singular EFIE matrix?)");
  }

  GpuFill fill_;
  long n_, nt_;
  const Problem* p_ = nullptr;
  copa::gpu::DeviceArray<Cplx> a_, green_, gemm_out_, source_factor_;
  copa::gpu::DeviceArray<char> work_;  // LU workspace (bytes)
  std::vector<char> host_work_;
  copa::gpu::DeviceArray<std::int64_t> pivots64_;
  std::string lu_method_ = "getrf";
  double lu_workspace_bytes_ = 0;
  double irs_workspace_bytes_ = 0;  // the IRS workspace and the kept copy of the matrix (--solver irs-*)
  double condition_ = 0;
  copa::gpu::DeviceArray<Cplx> kept_;  // the filled matrix, kept by solve_irs
  Formulation form_;
  copa::gpu::DeviceArray<Triangle> tris_;
  copa::gpu::DeviceArray<QuadTriangle> quad_;
  copa::gpu::DeviceArray<BasisTriangles> bases_;
  copa::gpu::DeviceArray<int> near_, pivots_, info_;
  int chunk_ = 0;
#if defined(COPA_HAVE_CUDA)
  cusolverDnHandle_t solver_ = nullptr;
  cusolverDnParams_t params_ = nullptr;
  cublasHandle_t blas_ = nullptr;
#endif
};

}  // namespace

double gpu_workspace_bytes(GpuFill fill, long n, long nt) {
  // cuSOLVER getrf workspace is small (a panel); 1% of the matrix covers it.
  double bytes = 0.01 * 16.0 * double(n) * double(n) + 64.0 * double(n) + 160.0 * double(nt);
  if (fill == GpuFill::blas) bytes += (57.0 * blas_chunk(nt) + 84.0) * 16.0 * double(nt);
  return bytes;
}

void gpu_require_memory(GpuFill fill, const std::string& label, long n, long nt) {
  copa::gpu::require_device_memory(std::size_t(16.0 * double(n) * double(n) + gpu_workspace_bytes(fill, n, nt)),
                                   "the " + std::to_string(n) + "-unknown EFIE matrix (" + label + " fill + LU)");
}

std::unique_ptr<Engine> make_gpu_engine(GpuFill fill, const std::string& label, long n, long triangles) {
  return std::make_unique<GpuEngine>(fill, label, n, triangles);
}

}  // namespace efie
