// The device counting sort (rebucketing): count with atomic ranks, the three-phase exclusive scan
// (or the fused one), the stable ranks, the vendor library's ranks, the scatter of every
// per-particle array; and the halo pack/unpack kernels of the ghost fill.
// Part of the GPU backend: included by kernels_gpu.cu only (one translation unit).
#pragma once
#include <cstdint>

#include "copa/gpu_cub.hpp"
#include "gpu/launch.cuh"
#include "neighbour_loops.hpp"

namespace mps::gpu {

// count[] is zero on entry (zeroed at load and by scan_add_kernel after every use).
__global__ void count_kernel(Grid g, const double* x, const double* y, const double* z, int n, int* cell, int* rank,
                             int* count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = g.cell_of(x[i], y[i], z[i]);
  cell[i] = c;
  rank[i] = atomicAdd(&count[c], 1);
}

// Ghost fill of a distributed run: the exchanged field holds x, y, z, type in load order (element
// i = id[s] of component c at c n + i), so the halo pattern's indices survive the bucket reordering.
__global__ void halo_pack_kernel(const double* x, const double* y, const double* z, const std::uint8_t* type,
                                 const int* id, int n, double* field) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const long long i = id[s], nn = n;
  field[i] = x[s];
  field[nn + i] = y[s];
  field[2 * nn + i] = z[s];
  field[3 * nn + i] = type[s];
}

__global__ void halo_unpack_kernel(const double* field, const int* id, int n, int owned, double* x, double* y,
                                   double* z, std::uint8_t* type) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n || id[s] < owned) return;
  const long long i = id[s], nn = n;
  x[s] = field[i];
  y[s] = field[nn + i];
  z[s] = field[2 * nn + i];
  type[s] = static_cast<std::uint8_t>(field[3 * nn + i]);
}

// Ghost refresh of one field in a distributed simulation (the same load-order layout, one component).
__global__ void halo_pack_field_kernel(const double* f, const int* id, int n, double* field) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) field[id[s]] = f[s];
}

__global__ void halo_unpack_field_kernel(const double* field, const int* id, int n, int owned, double* f) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n && id[s] >= owned) f[s] = field[id[s]];
}

// Inclusive scan of kScanBlock values in shared memory (Hillis-Steele; the whole block calls it).
__device__ void block_inclusive_scan(int* s) {  // Hillis-Steele over kScanBlock values
  for (unsigned off = 1; off < kScanBlock; off *= 2) {
    const int t = threadIdx.x >= off ? s[threadIdx.x - off] : 0;
    __syncthreads();
    s[threadIdx.x] += t;
    __syncthreads();
  }
}

// Exclusive scan of the block totals in place by one block, in chunks of kScanBlock, carrying the
// running sum in `carry` (shared, zero on entry; the grand total on exit). `seen` reads the
// totals: through a volatile pointer where other blocks wrote them in the same launch.
template <class Totals>
__device__ void scan_totals_in_place(Totals seen, int* totals, int blocks, int* s, int& carry) {
  for (int base = 0; base < blocks; base += kScanBlock) {
    const int b = base + threadIdx.x;
    const int v = b < blocks ? seen[b] : 0;
    s[threadIdx.x] = v;
    __syncthreads();
    block_inclusive_scan(s);
    if (b < blocks) totals[b] = carry + s[threadIdx.x] - v;
    __syncthreads();
    if (threadIdx.x == kScanBlock - 1) carry += s[threadIdx.x];
    __syncthreads();
  }
}

// Exclusive scan in three phases: per-block scan (+ block totals), scan of the totals, add.
__global__ void scan_blocks_kernel(const int* in, int* out, int* totals, long long n) {
  __shared__ int s[kScanBlock];
  const long long i = static_cast<long long>(blockIdx.x) * kScanBlock + threadIdx.x;
  const int v = i < n ? in[i] : 0;
  s[threadIdx.x] = v;
  __syncthreads();
  block_inclusive_scan(s);
  if (i < n) out[i] = s[threadIdx.x] - v;
  if (threadIdx.x == kScanBlock - 1) totals[blockIdx.x] = s[threadIdx.x];
}

// One block scans the block totals in chunks of kScanBlock, carrying the running sum.
__global__ void scan_totals_kernel(int* totals, int blocks, int* grand_total) {
  __shared__ int s[kScanBlock];
  __shared__ int carry;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  scan_totals_in_place(static_cast<const int*>(totals), totals, blocks, s, carry);
  if (threadIdx.x == 0) *grand_total = carry;
}

__global__ void scan_add_kernel(int* out, const int* totals, long long n, const int* grand_total, int* count) {
  const long long i = static_cast<long long>(blockIdx.x) * kScanBlock + threadIdx.x;
  if (i < n) {
    out[i] += totals[blockIdx.x];
    count[i] = 0;  // ready for the next count_kernel: no memset launch
  }
  if (i == n) out[n] = *grand_total;
}

// --rebucket fused: the scan in one launch. Every block scans its kScanBlock counts (exclusive,
// within the block) into part[], zeroes them for the next count_kernel and writes its total; the
// last block to finish (a ticket taken after a fence, as in the CUDA threadFenceReduction
// sample: no block waits for another) scans the block totals in place, grand total at
// totals[blocks], and resets the ticket. start[c] = part[c] + totals[c / kScanBlock] is then
// formed by scatter_fused_kernel, which saves scan_totals_kernel and scan_add_kernel (two of
// the five launches that bound the rebucket at 0.22M: 27 us for ~10 us of traffic).
__global__ void scan_blocks_last_kernel(int* count, int* part, int* totals, long long n, unsigned* ticket) {
  __shared__ int s[kScanBlock];
  __shared__ bool last;
  __shared__ int carry;
  const long long i = static_cast<long long>(blockIdx.x) * kScanBlock + threadIdx.x;
  const int v = i < n ? count[i] : 0;
  if (i < n) count[i] = 0;  // ready for the next count_kernel: no memset launch
  s[threadIdx.x] = v;
  __syncthreads();
  block_inclusive_scan(s);
  if (i < n) part[i] = s[threadIdx.x] - v;
  if (threadIdx.x == 0) {  // the writer of the total fences it before it takes the ticket
    totals[blockIdx.x] = s[kScanBlock - 1];
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  const volatile int* seen = totals;  // written by other blocks: read past this SM's L1
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  const int blocks = static_cast<int>(gridDim.x);
  scan_totals_in_place(seen, totals, blocks, s, carry);
  if (threadIdx.x == 0) {
    totals[blocks] = carry;
    *ticket = 0;
  }
}

// --rebucket stable: the atomic ranks of count_kernel only place the particles (order_slots);
// stable_rank then ranks each particle among its bucket's members by storage index, the host's
// order, so the scatter that follows is the same in every run (a few particles per bucket).
__global__ void order_slots_kernel(const int* cell, const int* rank, const int* start, int n, int* order) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) order[start[cell[i]] + rank[i]] = i;
}

__global__ void stable_rank_kernel(const int* cell, const int* start, const int* order, int n, int* rank) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = cell[i];
  int r = 0;
  for (int k = start[c]; k < start[c + 1]; ++k) r += order[k] < i;
  rank[i] = r;
}

__global__ void iota_kernel(int n, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

#if defined(COPA_HAVE_GPU_CUB)
// After the library's sort: order[k] = i for the k-th particle in bucket order, so its rank in
// its bucket is k - start[c] (what the scatter expects).
__global__ void rank_from_order_kernel(const int* order, const int* cell, const int* start, int n, int* rank) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const int i = order[k];
  rank[i] = k - start[cell[i]];
}
#endif

// FP32 positions relative to the particle's own bucket origin (|q| < edge, so rounding is below
// 6e-8 of the bucket edge whatever the box size) plus the bucket's x index in w:
// r_j - r_i = (c_j - c_i) edge + (q_j - q_i), with |c_j - c_i| <= 1 (2 for fine buckets).
__device__ float4 float_position(const Grid& g, double x, double y, double z) {
  const int cx = g.cx(x), cy = g.cy(y), cz = g.cz(z);
  return make_float4(static_cast<float>(x - (g.x0 + cx * g.edge)), static_cast<float>(y - (g.y0 + cy * g.edge)),
                     static_cast<float>(z - (g.z0 + cz * g.edge)), __int_as_float(cx));
}

// The scatter of the counting sort: particle i goes to sorted position k = start[c] + rank;
// with reorder every per-particle array is written there in the same launch (coalesced reads,
// scattered writes), else only order[k] = i. The fp32 position copy is refreshed at the
// particle's storage index.
struct ScatterSet {
  const double* in[7];
  double* out[7];
  const std::uint8_t* type_in;
  std::uint8_t* type_out;
  const int* id_in;
  int* id_out;
  bool reorder;
  float4* q;
};
__device__ void scatter_one(const Grid& g, int i, int k, int* order, const ScatterSet& s) {
  order[k] = i;
  if (s.reorder) {
#pragma unroll
    for (int f = 0; f < 7; ++f) s.out[f][k] = s.in[f][i];
    s.type_out[k] = s.type_in[i];
    s.id_out[k] = s.id_in[i];
  }
  const int dst = s.reorder ? k : i;
  if (s.q) s.q[dst] = float_position(g, s.in[0][i], s.in[1][i], s.in[2][i]);
}
__global__ void scatter_kernel(Grid g, const int* cell, const int* rank, const int* start, int n, int* order, ScatterSet s) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  scatter_one(g, i, start[cell[i]] + rank[i], order, s);
}
// --rebucket fused: thread t writes the bucket start t (t <= cells) from the block-local scan and
// the scanned block totals, and scatters particle t (t < n) to the same start + its rank.
__global__ void scatter_fused_kernel(Grid g, const int* cell, const int* rank, const int* part, const int* totals,
                                     long long cells, int n, int* order, ScatterSet s, int* start) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < cells) start[t] = part[t] + totals[t / kScanBlock];
  else if (t == cells) start[t] = totals[(cells + kScanBlock - 1) / kScanBlock];
  if (t >= n) return;
  const int i = static_cast<int>(t), c = cell[i];
  scatter_one(g, i, part[c] + totals[c / kScanBlock] + rank[i], order, s);
}

}  // namespace mps::gpu
