// The GPU neighbour-search strategies (one kernel per variant family, each calling the host-device
// bodies of neighbour_loops.hpp), the FP32 density kernels, and the Verlet list build.
// Part of the GPU backend: included by kernels_gpu.cu only (one translation unit).
#pragma once
#include "gpu/launch.cuh"
#include "neighbour_loops.hpp"

namespace mps::gpu {

template <class Op>
__global__ void bucket_block_kernel(View v, BucketsView b, Op op) {
  const int c = blockIdx.x;
  for (int k = b.start[c] + threadIdx.x; k < b.start[c + 1]; k += blockDim.x) target_27_buckets(v, b, op, b.particle(k));
}

template <class Op>
__global__ void bucket_thread_kernel(View v, BucketsView b, Op op, long long cells) {
  const long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cells) return;
  for (int k = b.start[c]; k < b.start[c + 1]; ++k) target_27_buckets(v, b, op, b.particle(k));
}

template <class Op>
__global__ void sorted_particle_kernel(View v, BucketsView b, Op op) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < v.n) target_rows(v, b, op, b.particle(k));
}

template <class Op>
__global__ void verlet_kernel(View v, VerletView l, Op op) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < v.n) target_verlet(v, l, op, i);
}

// Adds to sum the FP32 weights of the candidates k0 <= kk < k1 of one bucket row around particle i
// (qi: its bucket-relative position, made in bucket column cx; float_position above; oy, oz: the
// row's offsets in y and z from qi).
__device__ __forceinline__ void add_row_fp32(const float4* q, const BucketsView& b, int i, float4 qi, int cx, float edge,
                                             float re, float re2, float oy, float oz, int k0, int k1, float& sum) {
  for (int kk = k0; kk < k1; ++kk) {
    const int j = b.particle(kk);
    const float4 qj = q[j];
    const float dx = (__float_as_int(qj.w) - cx) * edge + (qj.x - qi.x), dy = oy + qj.y, dz = oz + qj.z;
    const float r2 = dx * dx + dy * dy + dz * dz;
    if (j != i && r2 < re2) sum += weight_from_r2f(r2, re);
  }
}

// FP32 number density on the bucket-relative float positions (float_position above).
__global__ void density_fp32_kernel(const float4* q, const double* y, const double* z, BucketsView b, int n, float re,
                                    const int* load_id, int targets, double* out) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const int i = b.particle(k);
  if (!is_target(load_id, targets, i)) return;
  const float4 qi = q[i];
  const Grid& g = b.grid;
  const float re2 = re * re, edge = static_cast<float>(g.edge);
  const int cx = __float_as_int(qi.w), cy = g.cy(y[i]), cz = g.cz(z[i]);  // the bucket q was made in
  const int xlo = cx > 0 ? cx - 1 : 0, xhi = cx < g.nx - 1 ? cx + 1 : g.nx - 1;
  const int ylo = cy > 0 ? cy - 1 : 0, yhi = cy < g.ny - 1 ? cy + 1 : g.ny - 1;
  const int zlo = g.dim == 2 ? 0 : (cz > 0 ? cz - 1 : 0), zhi = g.dim == 2 ? 0 : (cz < g.nz - 1 ? cz + 1 : g.nz - 1);
  float sum = 0.f;
  for (int zz = zlo; zz <= zhi; ++zz)
    for (int yy = ylo; yy <= yhi; ++yy) {
      const float oy = (yy - cy) * edge - qi.y, oz = (zz - cz) * edge - qi.z;
      const int k1 = b.start[g.cell(xhi, yy, zz) + 1];
      add_row_fp32(q, b, i, qi, cx, edge, re, re2, oy, oz, b.start[g.cell(xlo, yy, zz)], k1, sum);
    }
  out[i] = sum;
}

// fine-rows: a thread per particle over the pruned row ranges of fine buckets. Per candidate the
// same visit_candidate as every strategy: 8 FLOPs, and 4 more (sqrt, divide, subtract, add) for
// the ~35% within r_e.
template <class Op>
__global__ void fine_rows_kernel(View v, BucketsView b, Op op) {
  const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int i = k < v.n ? b.particle(static_cast<int>(k)) : 0;
  if (!(k < v.n && v.is_target(i))) return;
  auto a = op.init(i);
  const double xi = v.x[i], yi = v.y[i], zi = v.z[i];
  for_each_pruned_row(b.grid, b.start, xi, yi, zi, b.reach, [&](int k0, int k1, int, int) {
    for (int kk = k0; kk < k1; ++kk) visit_candidate(v, op, a, i, xi, yi, zi, b.particle(kk));
  });
  op.finish(i, a);
}

// FP32 number density over the pruned rows of fine buckets, a thread per particle (rows chosen
// in FP64 from x, y, z, so the candidate set is the FP64 one; only the pair arithmetic is FP32).
__global__ void density_fp32_fine_kernel(const float4* q, const double* x, const double* y, const double* z, BucketsView b,
                                         int n, float re, const int* load_id, int targets, double* out) {
  const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int i = k < n ? b.particle(static_cast<int>(k)) : 0;
  if (!(k < n && is_target(load_id, targets, i))) return;
  float sum = 0.f;
  {
    const Grid& g = b.grid;
    const float4 qi = q[i];
    const float re2 = re * re, edge = static_cast<float>(g.edge);
    const int cx = __float_as_int(qi.w), cy = g.cy(y[i]), cz = g.cz(z[i]);  // the bucket q was made in
    for_each_pruned_row(
        g, b.start, x[i], y[i], z[i], b.reach,
        [&](int k0, int k1, int yy, int zz) {
          const float oy = (yy - cy) * edge - qi.y, oz = (zz - cz) * edge - qi.z;
          add_row_fp32(q, b, i, qi, cx, edge, re, re2, oy, oz, k0, k1, sum);
        });
  }
  out[i] = sum;
}

// fine-lean number density: the fine-rows walk (same pruned rows, same candidates, a thread per
// particle) with the candidate loop written for the density alone, to cut instructions per
// candidate, which bound fine-rows at 10M (2.5e11 candidates/s, ~1 per SM cycle):
// * w = re * rsqrt(r^2) - 1 as one FMA after the FP64 reciprocal square root (1 ulp, CUDA math
//   guide) instead of sqrt then divide (two correctly rounded iterations with slow-path tests);
//   |error| <= ~3 ulp of re / r per pair, far below the 1e-12 gate;
// * computed for every candidate and selected (r^2 < re^2 and j != i): ~35% of the candidates
//   are within r_e, so a warp almost always executes the weight anyway; the select drops the
//   branch (rsqrt(0) = inf for j = i is never added);
// * Sorted (reorder on): the candidate is its sorted position, no order[] look-up or test of
//   the order pointer per candidate; positions through const __restrict__ (read-only path);
// * the inner loop unrolled by 2 so the next candidate's three loads are in flight.
// Other ops of the fine-lean variant run the generic fine_rows_kernel.
template <bool Sorted, bool CellRows>
__device__ void fine_lean_density(const double* __restrict__ x, const double* __restrict__ y,
                                  const double* __restrict__ z, const BucketsView& b, int n, double re,
                                  const int* __restrict__ load_id, int targets, double* __restrict__ out) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const int i = Sorted ? k : b.order[k];
  if (!is_target(load_id, targets, i)) return;
  const double xi = x[i], yi = y[i], zi = z[i], re2 = re * re;
  double sum = 0.0;
  const auto row = [&](int k0, int k1, int, int) {
#pragma unroll 2
    for (int kk = k0; kk < k1; ++kk) {
      const int j = Sorted ? kk : b.order[kk];
      const double dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
      const double r2 = dx * dx + dy * dy + dz * dz;
      const double w = fma(re, rsqrt(r2), -1.0);
      sum += (r2 < re2 && j != i) ? w : 0.0;
    }
  };
  if constexpr (CellRows) for_each_pruned_row_cell(b.grid, b.start, xi, yi, zi, b.reach, row);
  else for_each_pruned_row(b.grid, b.start, xi, yi, zi, b.reach, row);
  out[i] = sum;
}
template <bool Sorted>
__global__ void fine_lean_density_kernel(const double* __restrict__ x, const double* __restrict__ y,
                                         const double* __restrict__ z, BucketsView b, int n, double re,
                                         const int* __restrict__ load_id, int targets, double* __restrict__ out) {
  fine_lean_density<Sorted, false>(x, y, z, b, n, re, load_id, targets, out);
}

// fine-lean-cellrows: the same candidate loop over rows chosen by for_each_pruned_row_cell (FP32,
// in bucket edges relative to the target's bucket) instead of for_each_pruned_row (FP64 floors
// and conversions, IEEE square root per row): fine-lean executes ~6,560 instructions per warp of
// 32 targets at 100M (ncu, H200), ~50 per lockstep candidate iteration, while the unrolled
// candidate body is ~20 PTX instructions: the ~21 row set-ups per target take roughly half
// (RESULTS.md, "Profile of fine-lean"). The bound keeps fine-lean's
// 48 registers and 5 blocks of 256 per SM: without it ptxas gives the cell-row walk 52
// registers, so 4 blocks; with it, 8 bytes of spill (ptxas -v, sm_90).
template <bool Sorted>
__global__ void __launch_bounds__(kThreads, 5)
    fine_lean_cellrows_density_kernel(const double* __restrict__ x, const double* __restrict__ y,
                                      const double* __restrict__ z, BucketsView b, int n, double re,
                                      const int* __restrict__ load_id, int targets, double* __restrict__ out) {
  fine_lean_density<Sorted, true>(x, y, z, b, n, re, load_id, targets, out);
}

// ---------------------------------------------------------------- verlet lists
__global__ void verlet_count_kernel(View v, BucketsView b, double rl2, int* count, int* capacity) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= v.n) return;
  if (!v.is_target(i)) {  // a ghost has no list
    count[i] = 0;
    return;
  }
  const Grid& g = b.grid;
  const double xi = v.x[i], yi = v.y[i], zi = v.z[i];
  int c = 0;
  for_each_row_range(g, b.start, g.cx(xi), g.cy(yi), g.cz(zi), [&](int k0, int k1) {
    for (int k = k0; k < k1; ++k) {
      const int j = b.particle(k);
      const double dx = v.x[j] - xi, dy = v.y[j] - yi, dz = v.z[j] - zi;
      c += (j != i && dx * dx + dy * dy + dz * dz < rl2);
    }
  });
  count[i] = c;
  atomicMax(capacity, c);
}

__global__ void verlet_fill_kernel(View v, BucketsView b, double rl2, int* list) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= v.n || !v.is_target(i)) return;
  const Grid& g = b.grid;
  const double xi = v.x[i], yi = v.y[i], zi = v.z[i];
  long long s = 0;
  for_each_row_range(g, b.start, g.cx(xi), g.cy(yi), g.cz(zi), [&](int k0, int k1) {
    for (int k = k0; k < k1; ++k) {
      const int j = b.particle(k);
      const double dx = v.x[j] - xi, dy = v.y[j] - yi, dz = v.z[j] - zi;
      if (j != i && dx * dx + dy * dy + dz * dz < rl2) list[s++ * v.n + i] = j;
    }
  });
}

// Largest squared displacement since the list build; non-negative doubles order like their bits.
__global__ void displacement_kernel(const double* x, const double* y, const double* z, const double* xb, const double* yb,
                                    const double* zb, int n, unsigned long long* worst) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double dx = x[i] - xb[i], dy = y[i] - yb[i], dz = z[i] - zb[i];
  const double d2 = dx * dx + dy * dy + dz * dz;
  atomicMax(worst, static_cast<unsigned long long>(__double_as_longlong(d2)));
}

// Distributed simulation: positions of the particles of load index < owned, kept in load order
// (element id[s]) so that the bucket reordering between calls does not matter.
__global__ void remember_positions_kernel(const double* x, const double* y, const double* z, const int* id, int n,
                                          int owned, double* xr, double* yr, double* zr) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n || id[s] >= owned) return;
  xr[id[s]] = x[s];
  yr[id[s]] = y[s];
  zr[id[s]] = z[s];
}

// Largest squared displacement of those particles since remember_positions (as displacement_kernel).
__global__ void owned_displacement_kernel(const double* x, const double* y, const double* z, const int* id, int n,
                                          int owned, const double* xr, const double* yr, const double* zr,
                                          unsigned long long* worst) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n || id[s] >= owned) return;
  const int i = id[s];
  const double dx = x[s] - xr[i], dy = y[s] - yr[i], dz = z[s] - zr[i];
  atomicMax(worst, static_cast<unsigned long long>(__double_as_longlong(dx * dx + dy * dy + dz * dz)));
}

__global__ void count_active_kernel(const std::uint8_t* active, const int* id, int n, int owned,
                                    unsigned long long* count) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n && id[s] < owned && active[s]) atomicAdd(count, 1ull);
}

}  // namespace mps::gpu
