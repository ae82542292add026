// The GPU kernels of the MPS step outside the neighbour sums: displacement and active-set
// reductions, predictor and correction, PPE set-up, fixed-order dot products and the device CG's
// scalar updates, the state check, and the records of the device-side migration.
// Part of the GPU backend: included by kernels_gpu.cu only (one translation unit).
#pragma once
#include <cstdint>

#include "dist/migrate.hpp"
#include "gpu/launch.cuh"
#include "neighbour_loops.hpp"

namespace mps::gpu {

__global__ void predictor_kernel(double* x, double* y, double* z, double* u, double* v, double* w, const double* ax,
                                 const double* ay, const double* az, const std::uint8_t* type, int n, double dt, double nu,
                                 double gx, double gy, double gz, bool three) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || type[i] != fluid) return;
  predict_particle(i, x, y, z, u, v, w, ax, ay, az, dt, nu, gx, gy, gz, three);
}

__global__ void correct_kernel(double* x, double* y, double* z, double* u, double* v, double* w, const double* ax,
                               const double* ay, const double* az, const std::uint8_t* type, int n, double scale, double dt,
                               bool three) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || type[i] != fluid) return;
  correct_particle(i, x, y, z, u, v, w, ax, ay, az, scale, dt, three);
}

__global__ void ppe_setup_kernel(const double* nd, const std::uint8_t* type, int n, double n_surface, double n0, double src,
                                 std::uint8_t* active, double* rhs, double* p, unsigned long long* count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const bool a = type[i] != dummy && nd[i] >= n_surface;
  active[i] = a;
  rhs[i] = a ? src * (nd[i] - n0) / n0 : 0.0;
  if (!a) p[i] = 0.0;
  if (a) atomicAdd(count, 1ull);
}

// The block's (kThreads threads) sum of each thread's sum, pairwise in a fixed order, left in s[0]
// (s: kThreads shared doubles).
__device__ __forceinline__ void block_tree_sum(double* s, double sum) {
  s[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned off = kThreads / 2; off > 0; off /= 2) {
    if (threadIdx.x < off) s[threadIdx.x] += s[threadIdx.x + off];
    __syncthreads();
  }
}

__global__ void dot_partial_kernel(const double* a, const double* b, int n, double* partial) {
  __shared__ double s[kThreads];
  double sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += a[i] * b[i];
  block_tree_sum(s, sum);
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// dot_partial_kernel over the owned particles only (load index id < owned) of a distributed run.
__global__ void dot_owned_partial_kernel(const double* a, const double* b, const int* id, int owned, int n,
                                         double* partial) {
  __shared__ double s[kThreads];
  double sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    sum += id[i] < owned ? a[i] * b[i] : 0.0;
  block_tree_sum(s, sum);
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

__global__ void dot_final_kernel(const double* partial, int blocks, double* out) {
  __shared__ double s[kThreads];
  double sum = 0;
  for (int b = threadIdx.x; b < blocks; b += blockDim.x) sum += partial[b];
  block_tree_sum(s, sum);
  if (threadIdx.x == 0) *out = s[0];
}

// CG steps with the scalars on the device (s = the solver's scalar slots):
// alpha = rr / dAd; p += alpha d; r -= alpha A d. A breakdown (dAd <= 0 while rr > 0) sets the flag
// and takes alpha = 0, so the host sees it at its next check.
__global__ void cg_step_kernel(const double* rr, const double* dad, const double* d, const double* ad, double* p, double* r,
                               int n, double* flag) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double den = *dad, num = *rr;
  const double alpha = den > 0 ? num / den : 0.0;
  if (i == 0 && !(den > 0) && num > 0) *flag = 1.0;
  p[i] += alpha * d[i];
  r[i] -= alpha * ad[i];
}
// beta = rr_new / rr (0 once rr = 0); d = r + beta d.
__global__ void cg_direction_kernel(const double* rr_new, const double* rr, const double* r, double* d, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double old = *rr;
  const double beta = old > 0 ? *rr_new / old : 0.0;
  d[i] = r[i] + beta * d[i];
}

__global__ void axpy_kernel(double alpha, const double* x, double* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += alpha * x[i];
}
__global__ void xpay_kernel(const double* x, double beta, double* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + beta * y[i];
}
__global__ void clamp_kernel(double* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && p[i] < 0) p[i] = 0.0;
}
__global__ void check_kernel(View v, Grid g, const int* id, int* bad) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= v.n) return;
  // bad[] holds particle id + 1 (0 = none), so a zeroed buffer is the initial state.
  if (isnan(v.x[i] + v.y[i] + v.z[i] + v.u[i] + v.v[i] + v.w[i] + v.p[i])) atomicMax(&bad[0], id[i] + 1);
  else if (!g.inside(v.x[i], v.y[i], v.z[i])) atomicMax(&bad[1], id[i] + 1);
}

// ---------------------------------------------------------------- device migration (distributed)
// A rebuild of a distributed simulation on the device: the particles travel as records of
// dist::record_size doubles (x y z u v w p type global-id), the host path's format.
constexpr int kRecord = dist::record_size;

struct StatePointers {
  double* f[7];  // x y z u v w p
  std::uint8_t* type;
};

// The owned particles (load index < owned) as records in load order, which is global id order
// (every load and rebuild places the owned particles so); gid is indexed by load index.
__global__ void owned_records_kernel(StatePointers st, const double* gid, const int* id, int n, int owned, double* rec) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n || id[s] >= owned) return;
  double* r = rec + static_cast<long long>(id[s]) * kRecord;
#pragma unroll
  for (int f = 0; f < 7; ++f) r[f] = st.f[f][s];
  r[7] = st.type[s];
  r[8] = gid[id[s]];
}

// Owner of each record's bucket column on the problem's grid g (dist::column_of, dist::Slabs::owner:
// the last rank whose first column is <= the column; cuts has ranks + 1 entries).
__global__ void destination_kernel(const double* rec, int count, Grid g, int axis, const int* cuts, int ranks, int* dest) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const double* r = rec + static_cast<long long>(i) * kRecord;
  const int column = axis == 2 ? g.cz(r[2]) : g.cx(r[0]);
  int owner = 0;
  for (int q = 1; q < ranks; ++q) owner += cuts[q] <= column;
  dest[i] = owner;
}

__global__ void match_kernel(const int* dest, int count, int q, int* flag) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) flag[i] = dest[i] == q;
}

// Ghost selection for one rank: the records whose coordinate along the slab axis lies in its
// widened slab [lo, hi) (the host path's test).
__global__ void band_kernel(const double* rec, int count, int axis, double lo, double hi, int* flag) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const double c = rec[static_cast<long long>(i) * kRecord + (axis == 2 ? 2 : 0)];
  flag[i] = c >= lo && c < hi;
}

// Stream compaction after the exclusive scan pos of the flags (pos[count] = total): record i is
// selected when pos[i + 1] > pos[i]; the selected ones keep their order. index (optional) gets
// the record's index i (the load index of a ghost's source).
__global__ void compact_records_kernel(const double* rec, const int* pos, int count, double* out, long long* index) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count || pos[i + 1] == pos[i]) return;
  const long long k = pos[i];
#pragma unroll
  for (int f = 0; f < kRecord; ++f) out[k * kRecord + f] = rec[static_cast<long long>(i) * kRecord + f];
  if (index) index[k] = i;
}

// The owned particles after migration in global id order, as the host path sorts them: the
// kept records and each source's arrivals are blocks, each sorted by id (every rank lists its
// particles in its own id order), so a record's place is its index in its block plus, in every
// other block, the number of ids below its own (ids are unique: a lower bound by bisection).
__global__ void merge_records_kernel(const double* rec, int count, const int* block_start, int blocks, double* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  int mine = 0;
  while (mine + 1 < blocks && block_start[mine + 1] <= i) ++mine;
  const double id = rec[static_cast<long long>(i) * kRecord + 8];
  long long place = i - block_start[mine];
  for (int b = 0; b < blocks; ++b) {
    if (b == mine) continue;
    int lo = block_start[b], hi = block_start[b + 1];
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (rec[static_cast<long long>(mid) * kRecord + 8] < id) lo = mid + 1;
      else hi = mid;
    }
    place += lo - block_start[b];
  }
#pragma unroll
  for (int f = 0; f < kRecord; ++f) out[place * kRecord + f] = rec[static_cast<long long>(i) * kRecord + f];
}

// The new local state from the records (load order = storage order until the next rebucketing).
__global__ void records_to_state_kernel(const double* rec, int n, StatePointers st, double* gid) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double* r = rec + static_cast<long long>(i) * kRecord;
#pragma unroll
  for (int f = 0; f < 7; ++f) st.f[f][i] = r[f];
  st.type[i] = static_cast<std::uint8_t>(r[7]);
  gid[i] = r[8];
}

}  // namespace mps::gpu
