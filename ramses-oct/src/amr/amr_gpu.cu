// Device kernels of the AMR step (amr_gpu.hpp); their bodies are amr_leaf_block.hpp, shared with
// the host emulation that a cpu test runs against the oracle. The same functions of
// hydro_math.hpp and amr_interp.hpp as the host, so the result equals the oracle's to round-off
// (FMA contraction differs between host and device).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// First: the GPU runtime header defines __host__/__device__ for RO_HD (HIP does not pre-include it).
#include "copa/gpu.hpp"
#include "amr/amr_flags_body.hpp"
#include "amr/amr_gpu.hpp"
#include "amr/amr_interp.hpp"
#include "amr/amr_leaf_block.hpp"
#include "amr/amr_lists_body.hpp"
#include "amr/amr_plan_body.hpp"
#include "amr/amr_rebuild.hpp"
#include "amr/amr_rebuild_body.hpp"
#include "amr/amr_regrid_body.hpp"
#include "copa/device_memory.hpp"
#include "copa/errors.hpp"
#include "copa/gpu_cub.hpp"
#include "copa/gpu_launch.hpp"
#include "copa/gpu_side_stream.hpp"
#include "copa/gpu_timing.hpp"
#include "hydro/tile_geometry.hpp"

#if defined(COPA_HAVE_CUDA)
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>
#endif

namespace ro::amr {
namespace {

// Whether all eight threads of this thread's aligned group of eight (one ghost's sons) hold true;
// every thread of the warp (wavefront) calls it.
__device__ inline bool all_of_eight(bool ok) {
#if defined(COPA_HAVE_HIP)
  const unsigned long long votes = __ballot(ok);
  return ((votes >> (threadIdx.x & 56)) & 0xffull) == 0xffull;
#else
  const unsigned votes = __ballot_sync(0xffffffffu, ok);
  return ((votes >> (threadIdx.x & 24)) & 0xffu) == 0xffu;
#endif
}

// One thread per (ghost slot, son): each loads the stencil and computes one son; the eight vote on
// the fallback (block::ghost_son). Two ranges of ghost slots in one launch: blocks [0, blocks_a)
// take range a, the blocks after them range b (under --subcycle a level's ghosts are two ranges,
// its singles' and its groups', since all singles' ghosts come first; the global step passes
// all ghosts as range a). A block lies in one range, so each aligned group of eight threads is
// still one ghost's eight sons, and a slot's arithmetic is that of a launch per range.
struct GhostRange {
  long long first, count;
};
inline constexpr int ghost_threads = 128;
__global__ void __launch_bounds__(ghost_threads)
    ghost_kernel(const double* __restrict__ u, long long stride, GhostRange a, unsigned blocks_a, GhostRange b,
                 const std::int64_t* __restrict__ src, const std::uint8_t* __restrict__ flip, double gamma,
                 double* __restrict__ ghost) {
  copa::gpu::wait_for_prior_grid();
  const bool in_a = blockIdx.x < blocks_a;
  const GhostRange r = in_a ? a : b;
  const long long t = (long long)(in_a ? blockIdx.x : blockIdx.x - blocks_a) * blockDim.x + threadIdx.x;
  const bool live = (t >> 3) < r.count;
  const long long g = r.first + (t >> 3);
  const int c = static_cast<int>(t & 7);
  double uc[nvar], son[nvar];
  const bool ok = live ? block::ghost_son(u, stride, g, c, src, flip, gamma, uc, son) : true;
  const bool all = all_of_eight(ok);
  if (live) block::put_ghost_son(g, c, all, uc, son, ghost);
}

// The barrier between a single oct's phases: its 64 threads on NVIDIA (a named barrier per oct,
// ids 1..4; 0 is the block's; immediate ids, so that ptxas reserves five barriers, not all 16); on
// HIP they are one wavefront, but the block's barrier is kept (every thread of the block reaches
// every barrier: idle octs are not returned early).
#if !defined(COPA_HAVE_HIP)
template <int Id>
__device__ inline void named_barrier() {
  asm volatile("bar.sync %0, %1;" ::"n"(Id), "n"(block::lanes) : "memory");
}
#endif

__device__ inline void oct_barrier(int oct) {
#if defined(COPA_HAVE_HIP)
  (void)oct;
  __syncthreads();
#else
  static_assert(block::lanes % COPA_WARP_SIZE == 0 && block::octs_per_block == 4, "four octs of whole warps");
  switch (oct) {
    case 0: named_barrier<1>(); break;
    case 1: named_barrier<2>(); break;
    case 2: named_barrier<3>(); break;
    default: named_barrier<4>(); break;
  }
#endif
}

// Blocks per SM the leaf update is compiled for on NVIDIA: four blocks of 256 threads take 4 x
// 37.9 KB of shared memory and 65536 / 1024 = 64 registers per thread (32 warps per SM). ptxas
// (sm_90) then spills 104 B (stores; 44 B of loads) in the groups' kernel and 88 B in the singles'
// (216 B when one kernel held both). Measured on the H200 (Sedov 128^3 + 2, global dt, steps):
// four blocks 21.18 s; five (48 registers, 304 B of spills) 21.22 s; three (80 registers) 24.73 s
// (results/h200/20261130-4). With one kernel for both, four blocks were 8% faster than three
// (results/h200/20261125-22): the gather is latency-bound and the fourth block hides more of it.
// Groups of 288 threads (three blocks, 72 registers, 16 B of spills) and of 320 (three blocks,
// 64 registers, the gather's 304 cells in one round) took 24.80 and 24.39 s
// (results/h200/20261130-5): 27 or 30 resident warps per SM lose to 32.
// HIP's second __launch_bounds__ argument means warps per execution unit: not given there.
inline constexpr int leaf_blocks_per_sm = 4;
#if defined(COPA_HAVE_HIP)
#define RO_LEAF_LAUNCH_BOUNDS __launch_bounds__(block::group_threads)
#else
#define RO_LEAF_LAUNCH_BOUNDS __launch_bounds__(block::group_threads, leaf_blocks_per_sm)
#endif

// A leaf-update launch takes one kind of unit: single leaf octs (T = 2) or sibling groups (T = 4).
// One kernel per kind, not one for both: in one kernel (a block took the singles' or the groups'
// path by its index) ptxas (sm_90) gave the pair 64 registers and 216 B of spills, which the groups,
// nearly every leaf cell, paid for although the singles' path caused them.
enum class LeafUnits { singles, groups };

// The unit kernel: a block takes octs_per_block single leaf octs (each its own shared slice and
// barrier) or one sibling group (a 4^3 block of cells: the leaf octs of group_members, the block's
// boundary kinds in group_edges). n: the launch's singles or groups; units: their leaf indices
// (a group's first). A halted step (DeviceClock::halt, block::hold_unit): the block copies its
// units' leaf cells and returns before any barrier.
template <LeafUnits K>
__global__ void RO_LEAF_LAUNCH_BOUNDS
    leaf_update_kernel(block::Args a, HydroParams hp, const block::LeafLayout<2>* __restrict__ oct_layout,
                       const block::LeafLayout<4>* __restrict__ group_layout, long long n,
                       const std::int32_t* __restrict__ units, const std::int32_t* __restrict__ slots,
                       const std::uint8_t* __restrict__ group_members, const std::int8_t* __restrict__ group_edges,
                       const double* __restrict__ u, double* __restrict__ unew) {
  copa::gpu::wait_for_prior_grid();
  if constexpr (K == LeafUnits::singles) {
    constexpr int N = block::lanes;
    __shared__ block::OctShared sh[block::octs_per_block];
    const int k = threadIdx.x / N, lane = threadIdx.x % N;
    const long long j = (long long)blockIdx.x * block::octs_per_block + k;
    const bool active = j < n;
    const int i = active ? units[j] : 0;
    if (a.clock && a.clock->halt) {
      if (active) block::hold_unit<N>(a, u, unew, block::UnitRef{i, 1u, nullptr}, lane);
      return;
    }
    block::OctShared& s = sh[k];
    const block::LeafLayout<2>& L = *oct_layout;
    if (active) block::load_slots<2, N>(slots + 27LL * i, lane, s);
    oct_barrier(k);
    if (active) block::gather<2, N>(a, hp, L, u, a.edges + 6LL * i, lane, s);
    oct_barrier(k);
    if (active) block::predict<2, N>(hp, L, block::dtdx_of(a, a.leaf_octs[i]), lane, s);
    oct_barrier(k);
    if (active) block::fluxes<2, N>(hp, L, lane, s);
    oct_barrier(k);
    if (active) block::update<2, N>(a, L, u, unew, block::UnitRef{i, 1u, a.edges + 6LL * i}, lane, s);
  } else {
    constexpr int N = block::group_threads;
    __shared__ block::GroupShared s;
    const unsigned g = blockIdx.x;
    const block::UnitRef unit{units[g], group_members[g], group_edges + 6LL * g};
    const int lane = threadIdx.x;
    if (a.clock && a.clock->halt) {
      block::hold_unit<N>(a, u, unew, unit, lane);
      return;
    }
    const block::LeafLayout<4>& L = *group_layout;
    block::load_slots<4, N>(slots + 64LL * g, lane, s);
    __syncthreads();
    block::gather<4, N>(a, hp, L, u, unit.edges, lane, s);
    __syncthreads();
    block::predict<4, N>(hp, L, block::dtdx_of(a, a.leaf_octs[unit.first]), lane, s);
    __syncthreads();
    block::fluxes<4, N>(hp, L, lane, s);
    __syncthreads();
    block::update<4, N>(a, L, u, unew, unit, lane, s);
  }
}

// Restriction pairs [first, last) over the blocks from skip on (the blocks before them do another
// job of the same launch): one thread per pair (restrict_cell).
__device__ inline void restrict_pairs(unsigned skip, long long first, long long last, const std::int64_t* cell,
                                      const std::int64_t* son, long long stride, double* u) {
  const long long i = first + (blockIdx.x - skip) * (long long)blockDim.x + threadIdx.x;
  if (i < last) restrict_cell(u, stride, cell[i], son[i]);
}

// The reflux and the finest restriction in one launch (README "The device step, round 5"): blocks
// [0, reflux_blocks) take one thread per (reflux face, variable), variable-major so neighbouring
// threads read neighbouring faces, and only the thread at the start of a coarse cell's faces
// works (reflux_cell); the blocks after them restrict pairs [first, last) of the finest level
// that has sons. They touch disjoint cells, so their order does not matter: the reflux reads the
// fine fluxes and writes coarse LEAF cells beside finer octs; the finest restriction writes
// COVERED cells of level L-1 and reads level-L cells, all leaves that no reflux writes (nothing
// is finer than L). A coarser restriction reads level-l+1 cells that this launch writes (leaves
// refluxed, covered cells restricted): it runs after it, one launch per level. clock (the device
// dt): dt is clock->dt, and a halted step refluxes nothing (its fine fluxes may be NaN).
inline constexpr int reflux_threads = 128;
__global__ void __launch_bounds__(reflux_threads)
    reflux_restrict_kernel(unsigned reflux_blocks, long long nfaces, const RefluxFace* __restrict__ faces,
                           const std::int8_t* __restrict__ level, const double* __restrict__ fine_flux,
                           long long stride, double dt, const DeviceClock* __restrict__ clock, double dx0,
                           long long first, long long last, const std::int64_t* __restrict__ cell,
                           const std::int64_t* __restrict__ son, double* __restrict__ unew) {
  copa::gpu::wait_for_prior_grid();
  if (blockIdx.x < reflux_blocks) {
    if (clock) {
      if (clock->halt) return;
      dt = clock->dt;
    }
    const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k < nfaces * nvar)
      block::reflux_cell(k % nfaces, int(k / nfaces), nfaces, faces, level, fine_flux, stride, dt, dx0, unew);
    return;
  }
  restrict_pairs(reflux_blocks, first, last, cell, son, stride, unew);
}

// --subcycle, the reflux of one level's coarse cells from the finer level's sums over its
// substeps (time-integrated: dt = 1, factor 1 / dx_l), read only: the finer level's first
// substep starts them (block::flux_sum_add).
__global__ void __launch_bounds__(reflux_threads)
    reflux_sums_kernel(long long nfaces, const RefluxFace* __restrict__ faces, const std::int8_t* __restrict__ level,
                       const double* __restrict__ sum, long long stride, double dx0, double* __restrict__ unew) {
  copa::gpu::wait_for_prior_grid();
  const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (k < nfaces * nvar)
    block::reflux_cell(k % nfaces, int(k / nfaces), nfaces, faces, level, sum, stride, 1.0, dx0, unew);
}

__global__ void restrict_kernel(long long first, long long last, const std::int64_t* __restrict__ cell,
                                const std::int64_t* __restrict__ son, long long stride, double* __restrict__ u) {
  copa::gpu::wait_for_prior_grid();
  restrict_pairs(0, first, last, cell, son, stride, u);
}

// --subcycle, the end of a visit of level l in one launch: blocks [0, commit_blocks) take one
// thread per cell of level l's leaf octs, unew -> u where it is a leaf (commit_cell); the blocks
// after them restrict pairs [first, last), level l + 1 into level l's covered cells of u. They
// touch disjoint cells, so their order does not matter: the commit writes level l's LEAF cells of
// u (and reads the same cells of unew); the restriction writes level l's COVERED cells of u and
// reads level-(l+1) cells of u, which nothing in this launch writes (level l + 1 was committed
// and restricted in its own visits, before). test_amr_subcycle_fused.cpp checks that premise.
inline constexpr int commit_threads = 256;
__global__ void __launch_bounds__(commit_threads)
    commit_restrict_kernel(unsigned commit_blocks, long long nleaf, const std::int32_t* __restrict__ leaf_octs,
                           const std::int32_t* __restrict__ son, long long stride, const double* __restrict__ unew,
                           long long first, long long last, const std::int64_t* __restrict__ cell,
                           const std::int64_t* __restrict__ cell_son, double* __restrict__ u) {
  copa::gpu::wait_for_prior_grid();
  if (blockIdx.x < commit_blocks) {
    const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k < nleaf * 8) commit_cell((long long)leaf_octs[k >> 3] * 8 + (k & 7), son, stride, unew, u);
    return;
  }
  restrict_pairs(commit_blocks, first, last, cell, cell_son, stride, u);
}

// The dt scan: per level the largest leaf signal speed (bits of a non-negative double, ordered
// like the value) and the lowest bad leaf cell as ~index. Each thread keeps its maxima in
// registers (levels below a compile-time bound, so the per-level array is indexed only by
// unrolled constants), the block reduces them through warp shuffles and shared memory, and one
// thread per word does one integer atomicMax per block: a max is exact and order-independent,
// so the words are those of one atomicMax per cell (before: every leaf cell's atomic on one of
// nlevel + 1 words, serialised on those addresses: 0.25 ms of a 0.58 ms step on the H200).
inline constexpr int scan_threads = 256;
inline constexpr int scan_levels = max_levels + 1;
inline constexpr int scan_warps = scan_threads / COPA_WARP_SIZE;

// The clock moved on from a scan's result (per level the max speed, whether a leaf cell is bad),
// one thread; returns the next step's dt as bits for the host's check.
__device__ unsigned long long next_dt_bits(DeviceClock& clock, const double* speed, int nlevel, bool bad,
                                           bool step_ended) {
  DeviceClock c = clock;
  clock_after_scan(c, speed, nlevel, bad, step_ended);
  clock = c;
  return static_cast<unsigned long long>(__double_as_longlong(c.dt));
}

// Scan block b of nb. words: nlevel + 1 result words then the done counter, all zero when the
// launch starts. The last block to finish (the threadfence reduction of the CUDA programming
// guide: each block makes its atomics visible, then counts itself done) moves the words into out,
// host-mapped memory, and zeroes them and the counter for the next launch: no memset before the
// scan and no copy after it. The words are read with atomicExch, so the last block sees every
// other block's atomicMax (done at L2), and a system fence orders its stores before the host's
// read, which comes after the launch's synchronisation. With a clock (the device dt), the last
// block's thread 0 also moves the clock on from the words (clock_after_scan, the host's formula:
// step_ended at the end of a step) and stores the next step's dt as out[nlevel + 1].
__device__ void leaf_scan_block(unsigned b, unsigned nb, const double* u, long long ncell,
                                const std::int32_t* __restrict__ son, const std::int8_t* __restrict__ level,
                                double gamma, int nlevel, unsigned long long* __restrict__ words,
                                unsigned long long* __restrict__ out, DeviceClock* __restrict__ clock,
                                bool step_ended) {
  unsigned long long best[scan_levels + 1];  // per level, then the bad cell's ~index
#pragma unroll
  for (int k = 0; k <= scan_levels; ++k) best[k] = 0;
  for (long long g = b * (long long)blockDim.x + threadIdx.x; g < ncell; g += (long long)nb * blockDim.x) {
    int l;
    unsigned long long bits;
    bool ok;
    if (!block::leaf_speed(u, ncell, son, level, gamma, g, l, bits, ok)) continue;
#pragma unroll
    for (int k = 0; k < scan_levels; ++k)
      if (k == l && bits > best[k]) best[k] = bits;
    const unsigned long long bad = ~static_cast<unsigned long long>(g);
    if (!ok && bad > best[scan_levels]) best[scan_levels] = bad;
  }
  __shared__ unsigned long long part[scan_warps][scan_levels + 1];
  __shared__ bool last;
  const int warp = threadIdx.x / COPA_WARP_SIZE, lane = threadIdx.x % COPA_WARP_SIZE;
#pragma unroll
  for (int k = 0; k <= scan_levels; ++k) {
    const unsigned long long m = copa::gpu::warp_max(best[k]);
    if (lane == 0) part[warp][k] = m;
  }
  __syncthreads();
  const int k = threadIdx.x;
  if (k <= scan_levels) {
    unsigned long long m = 0;
    for (int w = 0; w < scan_warps; ++w) m = part[w][k] > m ? part[w][k] : m;
    if (m != 0) atomicMax(words + (k == scan_levels ? nlevel : k), m);
  }
  __threadfence();
  __syncthreads();
  unsigned long long* done = words + nlevel + 1;
  if (threadIdx.x == 0) last = atomicAdd(done, 1ull) == nb - 1ull;
  __syncthreads();
  if (!last) return;
  // The result for the clock in shared memory (thread 0 reads every level's).
  __shared__ double speed[scan_levels];
  __shared__ bool any_bad;
  if (k <= nlevel) {
    const unsigned long long w = atomicExch(words + k, 0ull);
    out[k] = w;
    if (k < nlevel)
      speed[k] = __longlong_as_double(static_cast<long long>(w));
    else
      any_bad = w != 0;
  }
  if (k == 0) *done = 0;
  if (clock) {
    __syncthreads();
    if (k == 0) out[nlevel + 1] = next_dt_bits(*clock, speed, nlevel, any_bad, step_ended);
  }
  __threadfence_system();
}

// The last restriction and the dt scan of the new state in one launch: blocks [0, restrict_blocks)
// restrict pairs [first, last) (none for a scan alone), the blocks after them scan. The
// restriction writes only COVERED cells and reads the finer level, which earlier launches
// finished; the scan reads only LEAF cells, which the reflux launch before finished: disjoint, so
// the scan sees the state the separate launches left.
__global__ void __launch_bounds__(scan_threads)
    restrict_scan_kernel(unsigned restrict_blocks, long long first, long long last,
                         const std::int64_t* __restrict__ cell, const std::int64_t* __restrict__ cell_son,
                         double* u, long long ncell, const std::int32_t* __restrict__ son,
                         const std::int8_t* __restrict__ level, double gamma, int nlevel,
                         unsigned long long* __restrict__ words, unsigned long long* __restrict__ out,
                         DeviceClock* __restrict__ clock, bool step_ended) {
  copa::gpu::wait_for_prior_grid();
  if (blockIdx.x < restrict_blocks) {
    restrict_pairs(0, first, last, cell, cell_son, ncell, u);
    return;
  }
  leaf_scan_block(blockIdx.x - restrict_blocks, gridDim.x - restrict_blocks, u, ncell, son, level, gamma, nlevel,
                  words, out, clock, step_ended);
}

// The regrid's criterion byte of every cell of the current tree (amr_flags_body.hpp; the
// passes below and emulate_device_flags follow the same order), a missing neighbour or-ed into
// the error word.
__global__ void criterion_kernel(TreeView v, const double* __restrict__ u, long long ncell, CriterionParams p,
                                 char* __restrict__ crit, unsigned* __restrict__ error) {
  copa::gpu::wait_for_prior_grid();
  const long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (g >= ncell) return;
  const char b = criterion_byte(v, u, ncell, g, p);
  crit[g] = b;
  if (b == 2) atomicOr(error, flags_error_missing_neighbour);
}

// The flags' son pass over the cells [first, last) of one level (the level below was done by
// the launch before).
__global__ void flags_sons_kernel(const std::int32_t* __restrict__ son, const char* __restrict__ crit, char* flag,
                                  long long first, long long last, bool sons_finest) {
  copa::gpu::wait_for_prior_grid();
  const long long g = first + blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (g < last) flags_from_sons(son, crit, flag, g, sons_finest);
}

// Whether oct o has a flagged cell, in one 8-byte load (the allocation is aligned, an oct's flags
// are 8 consecutive bytes): most octs have none, and their slot threads leave before any work.
__device__ inline bool oct_has_flag(const char* flag, long long o) {
  return reinterpret_cast<const unsigned long long*>(flag)[o] != 0;
}

// The buffer, every oct below the finest level, one thread per (oct, slot) (flags_buffer_slot: at
// most one hash probe each; one thread per oct probing up to 27 slots in series took 45.8 us on
// the H200 for Sedov 64^3 + 2, the first per-slot form 58.1 us): reads the flags before it (in) and stores 1 into their copy (out;
// the same byte from several threads: any order gives the same flags).
__global__ void flags_buffer_kernel(PlanView v, const char* __restrict__ in, char* __restrict__ out, long long ncoarse) {
  copa::gpu::wait_for_prior_grid();
  const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (k >= ncoarse * 27) return;
  const long long o = k / 27;
  if (!oct_has_flag(in, o)) return;
  flags_buffer_slot(v, in, o, int(k % 27), [out](long long g) { out[g] = 1; });
}

// The 2:1 balance of one level l >= 1, octs [first, last), one thread per (oct, slot): reads level
// l's flags and stores 1 into level l - 1's (the same byte from several threads: any order gives
// the same flags). Octs without a flagged cell leave at once (oct_has_flag), as in the buffer.
__global__ void flags_balance_kernel(PlanView v, char* flag, long long first, long long last,
                                     unsigned* __restrict__ error) {
  copa::gpu::wait_for_prior_grid();
  const long long k = first * 27 + blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (k >= last * 27) return;
  const long long o = k / 27;
  if (!oct_has_flag(flag, o)) return;
  if (!flags_balance_slot(v, flag, o, int(k % 27), [flag](long long g) { flag[g] = 1; }))
    atomicOr(error, flags_error_unbalanced);
}

// The state of every oct of the new tree, from the old tree's state (amr_regrid_body.hpp), one
// thread per new cell (move_cell: kept octs copied cell by cell, coalesced; a new oct's eight sons
// prolonged by its eight threads, which vote on prolong's fallback as the ghost kernel's do). One
// thread per oct copying 8 x nvar values took 20.1 us on the H200 (Sedov 64^3 + 2).
__global__ void move_kernel(long long n, const std::int32_t* __restrict__ source, const std::int64_t* __restrict__ src,
                            const std::uint8_t* __restrict__ flip, const double* __restrict__ u_old,
                            long long old_stride, double gamma, double* __restrict__ u) {
  copa::gpu::wait_for_prior_grid();
  const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const bool live = k < n * 8;
  double uc[nvar], son[nvar];
  const bool ok = live ? move_cell(k >> 3, int(k & 7), source, src, flip, u_old, old_stride, gamma, u, n * 8, uc, son)
                       : true;
  const bool all = all_of_eight(ok);
  if (live) move_put_son(k >> 3, int(k & 7), source, all, uc, son, u, n * 8);
}

// The counts of the step lists and plan build, written by its small count kernels into one
// device array (the count words) that its later kernels read in place of host counts; the host
// copies them up at its waits (exact sizing), or plan_totals_kernel stores them into host-mapped
// memory that the host reads after adopt()'s one wait (queued sizing; README "The regrid's count waits").
// Where each count lies for a tree of nlevel levels: the leaf octs, the reflux faces, the singles,
// the groups, per level the restriction scan at its first oct, its leaf cells and its offset of
// plan_restrict_fill, then the ghost total (--subcycle: plan_level_words from there, the ghost
// total first).
struct CountWords {
  static constexpr int leaf_octs = 0, faces = 1, singles = 2, groups = 3, scan_at = 4;
  int nlevel;
  RO_HD int leaf_cells() const { return scan_at + nlevel; }
  RO_HD int restrict_offset() const { return scan_at + 2 * nlevel; }
  RO_HD int ghosts() const { return scan_at + 3 * nlevel; }
  RO_HD int total(bool subcycle) const { return ghosts() + (subcycle ? plan_level_words(nlevel - 1) : 1); }
};

// The device plan build (amr_plan_body.hpp; the host's build_step_plan runs the same bodies and
// emulate_device_plan these passes in this order). Pass 1: per leaf oct its fixed-size entries
// and group-head mask.
// The number of leaf octs is read from the count words (nleaf_word), so that the launch needs
// only a bound the host knows without waiting (README "The regrid's count waits").
__global__ void plan_leaf_kernel(PlanView v, const std::int32_t* __restrict__ leaf_octs,
                                 const long long* __restrict__ nleaf_word, bool reflux, int group_min,
                                 const std::uint64_t* __restrict__ face_mask, long long ncoarse,
                                 std::int8_t* __restrict__ edges, std::uint64_t* __restrict__ skip,
                                 std::uint8_t* __restrict__ keep, std::uint8_t* __restrict__ head) {
  copa::gpu::wait_for_prior_grid();
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const long long nleaf = *nleaf_word;
  if (i < nleaf)
    plan_leaf_entries(v, leaf_octs, nleaf, i, reflux, group_min, face_mask, ncoarse, edges, skip, keep, head);
}

// The split's flags, entries 0..bound (bound >= nleaf), scanned next: the entries from nleaf on
// are 0, so the scans over bound + 1 entries hold the totals at nleaf and the same values below
// it as scans over nleaf + 1 entries.
__global__ void plan_split_flags_kernel(PlanView v, const std::int32_t* __restrict__ leaf_octs,
                                        const std::uint8_t* __restrict__ head, const long long* __restrict__ nleaf_word,
                                        long long bound, long long* __restrict__ single_flag,
                                        long long* __restrict__ head_flag) {
  copa::gpu::wait_for_prior_grid();
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i > bound) return;
  const long long nleaf = *nleaf_word;
  single_flag[i] = i < nleaf ? plan_is_single(v, leaf_octs, head, i) : 0;
  head_flag[i] = i < nleaf ? head[i] != 0 : 0;
}

__global__ void plan_split_kernel(PlanView v, const std::int32_t* __restrict__ leaf_octs,
                                  const std::uint8_t* __restrict__ head, const long long* __restrict__ nleaf_word,
                                  const long long* __restrict__ single_scan, const long long* __restrict__ group_scan,
                                  std::int32_t* __restrict__ singles, std::int32_t* __restrict__ groups,
                                  std::uint8_t* __restrict__ group_members, std::int8_t* __restrict__ group_edges) {
  copa::gpu::wait_for_prior_grid();
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < *nleaf_word)
    plan_split_scatter(v, leaf_octs, head, i, single_scan, group_scan, singles, groups, group_members, group_edges);
}

// Pass 2: per unit (singles, then groups) its slot row and ghost count. One warp (wavefront) per
// unit, its lanes over the unit's 27 or 64 slots and a group's 216 member-row entries, the ghost
// count a warp sum: one thread per unit did up to 64 lookups (neighbour-table walks, a hash probe
// where a path crosses a coarser region) in series, 72.6 us on the H200 for Sedov 64^3 + 2 (the
// largest regrid kernel). The warps stride over the units (the unit count is in the count words,
// the launch sized by the host's guess of it: any grid gives the same rows), and the entries
// nunit..bound are 0, so the scan over bound + 1 entries ends with the total at nunit.
inline constexpr int unit_slot_threads = 128;
inline constexpr int unit_slot_units_per_block = unit_slot_threads / COPA_WARP_SIZE;

// The warps of the launch and this thread's warp among them (the first unit it takes).
__device__ inline long long unit_warps() { return (long long)gridDim.x * unit_slot_units_per_block; }
__device__ inline long long unit_warp() {
  return (long long)blockIdx.x * unit_slot_units_per_block + threadIdx.x / COPA_WARP_SIZE;
}

// Unit u's row and ghost count, by the lanes of one warp (every lane calls it: the warp sum).
__device__ inline void unit_slots(const PlanView& v, const std::int32_t* leaf_octs, const std::int32_t* singles,
                                  const std::int32_t* groups, const std::uint8_t* group_members, long long nsingle,
                                  long long u, int lane, std::int32_t* slots, std::int32_t* group_slots,
                                  long long* ghosts) {
  for (int k = lane; k < plan_unit_clear_count(u, nsingle); k += COPA_WARP_SIZE)
    plan_unit_clear(groups, group_members, nsingle, u, k, slots);
  int count = 0;
  for (int s = lane; s < plan_unit_slot_count(u, nsingle); s += COPA_WARP_SIZE)
    count += plan_unit_slot_entry(v, leaf_octs, singles, groups, group_members, nsingle, u, s, slots, group_slots);
  count = copa::gpu::warp_sum(count);
  if (lane == 0) ghosts[u] = count;
}

__global__ void __launch_bounds__(unit_slot_threads)
    plan_unit_slots_kernel(PlanView v, const std::int32_t* __restrict__ leaf_octs,
                           const std::int32_t* __restrict__ singles, const std::int32_t* __restrict__ groups,
                           const std::uint8_t* __restrict__ group_members, const long long* __restrict__ words,
                           long long bound, std::int32_t* __restrict__ slots,
                           std::int32_t* __restrict__ group_slots, long long* __restrict__ ghosts) {
  copa::gpu::wait_for_prior_grid();
  const long long nsingle = words[CountWords::singles], nunit = nsingle + words[CountWords::groups];
  const int lane = static_cast<int>(threadIdx.x % COPA_WARP_SIZE);
  // u is the same on all lanes of a warp: whole warps loop, the warp sum sees all lanes.
  for (long long u = unit_warp(); u < nunit; u += unit_warps())
    unit_slots(v, leaf_octs, singles, groups, group_members, nsingle, u, lane, slots, group_slots, ghosts);
  const long long threads = (long long)gridDim.x * blockDim.x;
  for (long long u = nunit + blockIdx.x * (long long)blockDim.x + threadIdx.x; u <= bound; u += threads) ghosts[u] = 0;
}

// The number of lanes below this one with pred, and of all lanes with it (the ghost numbering
// of pass 3: one ballot instead of one thread walking the unit's slots).
__device__ inline void lanes_with(bool pred, int lane, int& below, int& total) {
#if defined(COPA_HAVE_HIP)
  const unsigned long long mask = __ballot(pred);
  below = __popcll(mask & ((1ull << lane) - 1ull));
  total = __popcll(mask);
#else
  const unsigned mask = __ballot_sync(0xffffffffu, pred);
  below = __popc(mask & ((1u << lane) - 1u));
  total = __popc(mask);
#endif
}

// Pass 3: one warp per unit, its lanes over the unit's slots (27 or 64; 115.9 us on the H200 for
// Sedov 64^3 + 2 with one thread per unit walking its ghosts' coarse lookups in series): a ghost
// slot's number is the unit's first plus the ghost slots below it (plan_unit_ghost_entry). The
// warps stride over the units, as pass 2's. Only ghosts below ghost_capacity are written: on the
// queued path the ghost arrays are sized by a guess, and a total past it has the plan built again
// with exact sizes (finish_queued_build).
__global__ void __launch_bounds__(unit_slot_threads)
plan_unit_ghosts_kernel(PlanView v, const std::int32_t* __restrict__ leaf_octs, const std::int32_t* __restrict__ singles,
                        const std::int32_t* __restrict__ groups, const long long* __restrict__ words,
                        long long ghost_capacity, const long long* __restrict__ ghost_begin,
                        std::int32_t* __restrict__ slots, std::int32_t* __restrict__ group_slots,
                        std::int64_t* __restrict__ ghost_src, std::uint8_t* __restrict__ ghost_flip) {
  copa::gpu::wait_for_prior_grid();
  const long long nsingle = words[CountWords::singles], nunit = nsingle + words[CountWords::groups];
  const int lane = static_cast<int>(threadIdx.x % COPA_WARP_SIZE);
  // u is the same on all lanes of a warp: whole warps loop and skip, the ballots see all lanes.
  for (long long u = unit_warp(); u < nunit; u += unit_warps()) {
    if (ghost_begin[u + 1] == ghost_begin[u]) continue;
    std::int32_t* row = plan_unit_row(slots, group_slots, singles, nsingle, u);
    const int n = plan_unit_slot_count(u, nsingle);
    long long ghost = ghost_begin[u];
    for (int base = 0; base < n; base += COPA_WARP_SIZE) {
      const int s = base + lane;
      const bool is_ghost = s < n && plan_slot_is_ghost(row[s]);
      int below, total;
      lanes_with(is_ghost, lane, below, total);
      if (is_ghost && ghost + below < ghost_capacity)
        plan_unit_ghost_entry(v, leaf_octs, singles, groups, nsingle, u, s, ghost + below, row, ghost_src, ghost_flip);
      ghost += total;
    }
  }
}

__global__ void plan_restrict_count_kernel(const std::int32_t* __restrict__ son, long long ncoarse,
                                           long long* __restrict__ count) {
  copa::gpu::wait_for_prior_grid();
  const long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (o < ncoarse) count[o] = plan_restrict_count(son, o);
  if (o == ncoarse) count[o] = 0;
}

struct LevelOffsets {
  long long v[max_levels + 1];
};

// offset: the per-level offsets plan_counts_kernel put into the count words.
__global__ void plan_restrict_fill_kernel(const std::int32_t* __restrict__ son, const std::int8_t* __restrict__ level,
                                          long long ncoarse, const long long* __restrict__ scan,
                                          const long long* __restrict__ offset, std::int64_t* __restrict__ cell,
                                          std::int64_t* __restrict__ son_out) {
  copa::gpu::wait_for_prior_grid();
  const long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (o < ncoarse) plan_restrict_fill(son, level, o, scan, offset, cell, son_out);
}

// The plan's counts after the split and restriction scans, into the count words: the singles,
// the groups, the restriction scan at each level's first oct, the leaf cells of each level
// (leaf_cells_kernel's, which had a copy and a wait of their own after every regrid), and the
// restriction pairs' per-level offsets (restrict_layout_at, the host's restrict_layout body), so
// that the pairs are filled without the host.
__global__ void plan_counts_kernel(const long long* __restrict__ single_scan, const long long* __restrict__ group_scan,
                                   const long long* __restrict__ restrict_scan, LevelOffsets starts, int nlevel,
                                   const unsigned long long* __restrict__ leaf_count, long long* __restrict__ words) {
  copa::gpu::wait_for_prior_grid();
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  const CountWords w{nlevel};
  const long long nleaf = words[CountWords::leaf_octs];
  words[CountWords::singles] = single_scan[nleaf];
  words[CountWords::groups] = group_scan[nleaf];
  for (int l = 0; l < nlevel; ++l) words[CountWords::scan_at + l] = restrict_scan[starts.v[l]];
  for (int l = 0; l < nlevel; ++l) words[w.leaf_cells() + l] = static_cast<long long>(leaf_count[l]);
  long long begin[max_levels + 1];
  words[w.restrict_offset() + nlevel - 1] = 0;  // the finest level has no pairs
  restrict_layout_at(words + CountWords::scan_at, nlevel - 1, begin, words + w.restrict_offset());
}

// The step lists (amr_lists_body.hpp; the same passes as emulate_device_lists). A lane per cell:
// the eight lanes of oct o (o = g / 8) are an aligned group of eight in one warp, so three
// xor-shuffles within the group OR their leaf flags and face masks (a thread per oct ran the 48
// face lookups in series: 18.4 us, H200, Sedov 32^3 + 2).
inline constexpr int lists_threads = 128;
static_assert(lists_threads % COPA_WARP_SIZE == 0 && COPA_WARP_SIZE % 8 == 0,
              "an oct's eight lanes must lie in one warp, and every lane of a warp must reach the shuffles");

__device__ inline std::uint64_t or_of_eight(std::uint64_t x) {
  for (int m = 1; m < 8; m *= 2) x |= copa::gpu::shfl_xor(x, m);
  return x;
}

// Pass 1, oct o in 0..n: its leaf flag and, below the finest level, its reflux faces as bits and
// their count. The entries n of both counts are 0 (the face count is 0 for every fine oct too), so
// the two scans have one length, n + 1, and end with the totals.
__global__ void __launch_bounds__(lists_threads)
    lists_count_kernel(TreeView v, const std::int32_t* __restrict__ son, long long n, long long ncoarse,
                       long long* __restrict__ leaf_flag, std::uint64_t* __restrict__ face_mask,
                       long long* __restrict__ face_count) {
  copa::gpu::wait_for_prior_grid();
  const long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const long long o = g / 8;
  const int c = int(g % 8);
  const bool leaf = or_of_eight(o < n && lists_cell_is_leaf(son, o, c)) != 0;
  const std::uint64_t mask = or_of_eight(o < ncoarse ? lists_cell_face_mask(v, son, o, c) : 0);
  if (c != 0 || o > n) return;
  leaf_flag[o] = leaf;
  if (o < ncoarse) face_mask[o] = mask;
  face_count[o] = lists_popcount(mask);
}

// The two totals into the count words (CountWords::leaf_octs and faces).
__global__ void lists_counts_kernel(const long long* __restrict__ leaf_scan, long long n,
                                    const long long* __restrict__ face_scan, long long ncoarse,
                                    long long* __restrict__ out) {
  copa::gpu::wait_for_prior_grid();
  out[0] = leaf_scan[n];
  out[1] = face_scan[ncoarse];
}

// Pass 2, a thread per (oct, cell): o's leaf_octs entry (cell 0) and the cell's reflux faces. On
// the queued path faces holds face_capacity faces, a guess: an oct whose faces would pass it
// writes none (lists_fill_cell stops after the leaf entry for an oct not below its ncoarse), and
// a total past it has the lists built again with exact sizes (finish_queued_build).
__global__ void lists_fill_kernel(TreeView v, const std::int32_t* __restrict__ son, long long n, long long ncoarse,
                                  const long long* __restrict__ leaf_scan, const long long* __restrict__ face_scan,
                                  const std::uint64_t* __restrict__ face_mask, long long face_capacity,
                                  std::int32_t* __restrict__ leaf_octs, RefluxFace* __restrict__ faces) {
  copa::gpu::wait_for_prior_grid();
  const long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (g >= 8 * n) return;
  const long long o = g / 8;
  const bool faces_fit = o >= ncoarse || face_scan[o + 1] <= face_capacity;
  lists_fill_cell(v, son, o, int(g % 8), faces_fit ? ncoarse : 0, leaf_scan, face_scan, face_mask, leaf_octs, faces);
}

// The device rebuild (amr_rebuild_body.hpp; the same passes as emulate_device_rebuild). Pass 1,
// old oct o in 0..n: its sons and created sons in the new tree (entry n is 0, so the scans end
// with the totals).
__global__ void rebuild_count_kernel(RebuildOld v, long long n, long long* __restrict__ sons,
                                     long long* __restrict__ created) {
  copa::gpu::wait_for_prior_grid();
  const long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (o < n) rebuild_count(v, o, sons[o], created[o]);
  if (o == n) sons[o] = created[o] = 0;
}

// Hash shifts passed by value (the level bounds: LevelBegins, amr_rebuild_body.hpp).
struct LevelShifts {
  int v[max_levels + 1];
};

// The counts the host sees, gathered into one copy: the sons scan at each old level's first oct
// (the new level sizes), the created octs (the map's rows), then the flags' error word (null:
// flags uploaded by the host, no word), which thus comes up without a copy and a wait of its own.
__global__ void rebuild_counts_kernel(const long long* __restrict__ son_scan, const long long* __restrict__ created_scan,
                                      LevelBegins old_begin, int nlevel, long long n,
                                      const unsigned* __restrict__ flags_error, long long* __restrict__ out) {
  copa::gpu::wait_for_prior_grid();
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  for (int l = 0; l < nlevel; ++l) out[l] = son_scan[old_begin.v[l]];
  out[nlevel] = created_scan[n];
  out[nlevel + 1] = flags_error ? *flags_error : 0u;
}

// The plan's last counts into the count words: the ghost total, or under --subcycle the ghost
// total and the per-level ranges (plan_level_ranges). Then, where out is given (queued sizing),
// all nword count words into host-mapped memory, ordered before the host's read (which comes
// after adopt()'s synchronisation) by a system fence: no copy and no wait of their own.
__global__ void plan_totals_kernel(LevelBegins level_begin, int max_level, bool subcycle,
                                   const long long* __restrict__ leaf_scan, const long long* __restrict__ face_scan,
                                   const long long* __restrict__ single_scan, const long long* __restrict__ group_scan,
                                   const long long* __restrict__ ghost_begin, long long* __restrict__ words, int nword,
                                   long long* __restrict__ out) {
  copa::gpu::wait_for_prior_grid();
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  const CountWords w{max_level + 1};
  if (subcycle)
    plan_level_ranges(level_begin.v, max_level, leaf_scan, face_scan, single_scan, group_scan, ghost_begin,
                      words + w.ghosts());
  else
    words[w.ghosts()] = ghost_begin[words[CountWords::singles] + words[CountWords::groups]];
  if (!out) return;
  for (int k = 0; k < nword; ++k) out[k] = words[k];
  __threadfence_system();
}

// Before the fill: the new tree's son table set to -1 (rebuild_fill writes the sons that exist)
// and its hash slots emptied (for link()'s inserts), in one launch over the longer of the two;
// two launches before (fill_int32 2.4 us, hash_clear 2.1 us, H200, Sedov 32^3 + 2).
__global__ void rebuild_clear_kernel(std::int32_t* __restrict__ son, long long nson, Tree::HashEntry* __restrict__ slots,
                                     long long nslots) {
  copa::gpu::wait_for_prior_grid();
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < nson) son[i] = -1;
  if (i < nslots) {
    slots[i].packed = Tree::empty_slot;
    slots[i].oct = -1;
  }
}

// Pass 2, per old oct: the new octs and their construction links (son filled with -1 before).
__global__ void rebuild_fill_kernel(RebuildOld v, long long n, const long long* __restrict__ son_scan,
                                    const long long* __restrict__ created_scan, LevelBegins old_begin,
                                    LevelBegins new_begin, RebuildNew w) {
  copa::gpu::wait_for_prior_grid();
  const long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (o < n) rebuild_fill(v, o, son_scan, created_scan, old_begin, new_begin, w);
}

// The new tree's hash as pass 4 inserts into it (slots emptied by rebuild_clear_kernel).
struct HashInsert {
  Tree::HashEntry* slots;
  LevelBegins begin;
  LevelShifts shift;
  const std::int8_t* level;
  const std::int32_t* coord[3];
  long long n;
};

// Passes 3 and 4 in one launch. Blocks [0, row_blocks): a thread per (row, source), one of the
// row's seven old source cells located on the OLD tree. The blocks after them: a thread per new
// oct, its hash entry, the slot claimed by atomicCAS on the packed coordinates. Disjoint (the rows
// read only the old tables, the inserts only the new coordinates and hash), so the result is that
// of two launches in either order, with one launch fewer and the rows' few blocks beside the
// inserts (before: rows 10.7 us in their own launch, the inserts 6.0 us in link()'s, H200).
__global__ void rebuild_rows_hash_kernel(PlanView old, long long rows, const std::int64_t* __restrict__ row_cell,
                                         std::int64_t* __restrict__ src, std::uint8_t* __restrict__ flip,
                                         unsigned row_blocks, HashInsert h) {
  copa::gpu::wait_for_prior_grid();
  if (blockIdx.x < row_blocks) {
    const long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (g < 7 * rows) rebuild_row_source(old, g / 7, int(g % 7), row_cell, src, flip);
    return;
  }
  const long long o = (blockIdx.x - row_blocks) * (long long)blockDim.x + threadIdx.x;
  if (o >= h.n) return;
  rebuild_hash_insert(h.slots, h.begin.v, h.shift.v, h.level, h.coord, o, [](std::uint64_t* slot, std::uint64_t p) {
    using ull = unsigned long long;
    return atomicCAS(reinterpret_cast<ull*>(slot), static_cast<ull>(Tree::empty_slot), static_cast<ull>(p)) ==
           static_cast<ull>(Tree::empty_slot);
  });
}

struct NborOut {
  std::int32_t* f[6];
};

// Pass 5, a thread per (new oct, face) of every level in one launch (hash lookups only), face
// major: a warp's threads share the face (but where a face's range ends), so with_face's branch is
// uniform across the warp and the octs' loads and stores are coalesced. Oct major (the six faces
// of an oct adjacent) diverged six ways once the face became compile-time: 0.16 -> 0.25 ms per
// link on the H200 (Sedov 128^3 + 2, results/h200/20261129-11).
__global__ void rebuild_nbor_kernel(PlanView v, long long n, NborOut out) {
  copa::gpu::wait_for_prior_grid();
  const long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (g >= 6 * n) return;
  const int f = int(g / n);
  const long long o = g % n;
  with_face(f, [&](auto face) { out.f[face][o] = rebuild_nbor_face<decltype(face)::value>(v, o); });
}

// Leaf cells per level of the current tree (the host's counts while its tree is stale). The octs
// are stored level by level, so a warp nearly always holds one level: a warp sum per level, then
// one shared atomic per warp and level and one global atomic per block and level (integers: exact
// in any order). Before, every thread made a 64-bit shared atomic on the same word (15.9 us on the
// H200 for Sedov 64^3 + 2, serialised within each block).
__global__ void leaf_cells_kernel(const std::int32_t* __restrict__ son, const std::int8_t* __restrict__ level,
                                  long long n, int nlevel, unsigned long long* __restrict__ out) {
  copa::gpu::wait_for_prior_grid();
  __shared__ unsigned part[max_levels + 1];
  if (threadIdx.x < nlevel) part[threadIdx.x] = 0;
  __syncthreads();
  const long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  unsigned leaves = 0;
  int l = -1;
  if (o < n) {
    for (int c = 0; c < 8; ++c) leaves += son[o * 8 + c] < 0;
    l = level[o];
  }
  for (int m = 0; m < nlevel; ++m) {
    const unsigned sum = copa::gpu::warp_sum(l == m ? leaves : 0u);
    if (threadIdx.x % COPA_WARP_SIZE == 0 && sum) atomicAdd(&part[m], sum);
  }
  __syncthreads();
  if (threadIdx.x < nlevel && part[threadIdx.x]) atomicAdd(out + threadIdx.x, (unsigned long long)part[threadIdx.x]);
}

#if defined(COPA_HAVE_CUDA)
// The pairwise sum of exclusive_sum2's scan over zipped pairs.
struct PairSum {
  __host__ __device__ thrust::tuple<long long, long long> operator()(const thrust::tuple<long long, long long>& x,
                                                                     const thrust::tuple<long long, long long>& y) const {
    return thrust::tuple<long long, long long>(thrust::get<0>(x) + thrust::get<0>(y),
                                               thrust::get<1>(x) + thrust::get<1>(y));
  }
};
#endif

#if !defined(COPA_HAVE_GPU_CUB)
// HIP without hipCUB: an exclusive scan in one block of 1024 threads, 1024 entries at a time
// (Hillis-Steele in shared memory, a carry between chunks). Correct, not fast.
inline constexpr int plan_scan_threads = 1024;
__global__ void __launch_bounds__(plan_scan_threads)
    plan_block_scan_kernel(const long long* __restrict__ in, long long* __restrict__ out, long long n) {
  copa::gpu::wait_for_prior_grid();
  __shared__ long long part[plan_scan_threads];
  __shared__ long long carry;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (long long first = 0; first < n; first += plan_scan_threads) {
    const long long i = first + threadIdx.x;
    const long long x = i < n ? in[i] : 0;
    part[threadIdx.x] = x;
    __syncthreads();
    for (int off = 1; off < plan_scan_threads; off *= 2) {
      const long long y = threadIdx.x >= off ? part[threadIdx.x - off] : 0;
      __syncthreads();
      part[threadIdx.x] += y;
      __syncthreads();
    }
    if (i < n) out[i] = carry + part[threadIdx.x] - x;
    __syncthreads();
    if (threadIdx.x == plan_scan_threads - 1) carry += part[plan_scan_threads - 1];
    __syncthreads();
  }
}
#endif

// A device array that only grows: a regrid reuses it where it is large enough, and a new
// allocation (the old one released first: callers overwrite the whole array) keeps 1/8 headroom,
// so a slowly growing tree does not reallocate at every regrid.
template <class T>
class GrowArray {
 public:
  T* data() { return a_.data(); }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  // Bytes a resize to n would allocate beyond what the array holds now.
  std::size_t growth(std::size_t n) const {
    return n <= a_.size() ? 0 : (capacity_for(n) - a_.size()) * sizeof(T);
  }
  void resize(std::size_t n) {
    if (n > a_.size()) {
      a_ = copa::gpu::DeviceArray<T>();
      a_ = copa::gpu::DeviceArray<T>(capacity_for(n));
    }
    n_ = n;
  }
  void swap(GrowArray& o) noexcept {
    std::swap(a_, o.a_);
    std::swap(n_, o.n_);
  }

 private:
  static std::size_t capacity_for(std::size_t n) { return std::max<std::size_t>(n + n / 8, 1); }
  copa::gpu::DeviceArray<T> a_;
  std::size_t n_ = 0;
};

// Pinned host memory that only grows: host tables are packed into it and copied from it
// asynchronously (pinned copies run at the link's speed, pageable ones at a fraction of it).
class PinnedStaging {
 public:
  ~PinnedStaging() {
    if (p_) copa::gpu::free_pinned(p_);
  }
  char* reserve(std::size_t bytes) {
    if (bytes > cap_) {
      if (p_) copa::gpu::free_pinned(p_);
      p_ = nullptr;
      cap_ = bytes + bytes / 8;
      p_ = static_cast<char*>(copa::gpu::malloc_pinned(cap_));
    }
    return p_;
  }
  std::size_t capacity() const { return cap_; }

 private:
  char* p_ = nullptr;
  std::size_t cap_ = 0;
};

// Result words in host-mapped pinned memory: a kernel stores them there (the dt scan's last
// block, leaf_scan_block; the regrid's count words, plan_totals_kernel), the host reads them after
// the launch's synchronisation, with no copy of their own. Sized for the most levels a tree can
// have, allocated once.
template <class T>
class MappedWords {
 public:
  explicit MappedWords(std::size_t n)
      : host_(static_cast<T*>(copa::gpu::malloc_mapped(n * sizeof(T)))),
        device_(static_cast<T*>(copa::gpu::device_pointer(host_))) {}
  ~MappedWords() { copa::gpu::free_mapped(host_); }
  MappedWords(const MappedWords&) = delete;
  MappedWords& operator=(const MappedWords&) = delete;
  const T* host() const { return host_; }
  T* device() { return device_; }

 private:
  T* host_;
  T* device_;
};

// The dt scan's result words: two sets, which scans take in turn: with the device dt the next
// step's scan writes one while the host reads the other (README "The device dt"). A set holds the
// words of the most levels a tree can have and the device dt.
class MappedScanWords {
 public:
  static constexpr int sets = 2;
  static constexpr std::size_t words = scan_levels + 2;
  const unsigned long long* host(int set) const { return w_.host() + set * words; }
  unsigned long long* device(int set) { return w_.device() + set * words; }

 private:
  MappedWords<unsigned long long> w_{sets * words};
};

// An event without timing on the default stream: the device dt's host waits for one scan (the
// one the last queued step started from) rather than for the device.
class ScanEvent {
 public:
  ScanEvent() { COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventCreateWithFlags)(&e_, COPA_GPU_SYMBOL(EventDisableTiming))); }
  ~ScanEvent() { (void)COPA_GPU_SYMBOL(EventDestroy)(e_); }
  ScanEvent(const ScanEvent&) = delete;
  ScanEvent& operator=(const ScanEvent&) = delete;
  void record() { COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventRecord)(e_, nullptr)); }
  void wait() { COPA_GPU_CHECK(COPA_GPU_SYMBOL(EventSynchronize)(e_)); }

 private:
  copa::gpu::event_t e_;
};

#if defined(COPA_HAVE_CUDA)
// The shared-memory carveout of the leaf update: just what its leaf_blocks_per_sm blocks need
// (each its static shared memory and the driver's reserve), rounded up by the driver to a
// supported size; the rest of the SM's 256 KB stays L1. With the maximum carveout (233 KB of
// shared memory, 23 KB of L1: one block more than the registers let run) Nsight Compute at 512^3
// finest found the update's register spills missing L1 94% of the time (results/h200/20261129-9).
template <LeafUnits K>
void set_leaf_carveout() {
  cudaFuncAttributes attr{};
  COPA_GPU_CHECK(cudaFuncGetAttributes(&attr, leaf_update_kernel<K>));
  const int device = copa::gpu::current_device();
  int per_sm = 0, reserved = 0;
  COPA_GPU_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  COPA_GPU_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
  const long need = long(leaf_blocks_per_sm) * (long(attr.sharedSizeBytes) + reserved);
  const int percent = per_sm > 0 ? int(std::min<long>(100, (100 * need + per_sm - 1) / per_sm)) : 100;
  COPA_GPU_CHECK(cudaFuncSetAttribute(leaf_update_kernel<K>, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
}
#endif

class GpuAmrStep final : public DeviceStep {
 public:
  GpuAmrStep(const HydroParams& hp, bool reflux, bool subcycle, int group_min, RegridCapacity capacity)
      : hp_(hp), reflux_(reflux), subcycle_(subcycle), group_min_(group_min), capacity_(capacity) {
    // One wave of scan blocks (sm_90: 62 registers, so 4 blocks of 256 threads per SM), each
    // looping over its cells: more blocks would only add atomics.
    scan_blocks_ = 4u * static_cast<unsigned>(
                            std::max(copa::gpu::device_info(copa::gpu::current_device()).multiprocessors, 1));
#if defined(COPA_HAVE_CUDA)
    set_leaf_carveout<LeafUnits::singles>();
    set_leaf_carveout<LeafUnits::groups>();
#endif
    copa::gpu::copy_to_device(oct_layout_.data(), &block::leaf_layout<2>(), sizeof(block::LeafLayout<2>));
    copa::gpu::copy_to_device(group_layout_.data(), &block::leaf_layout<4>(), sizeof(block::LeafLayout<4>));
  }

  void upload(const Tree& t, const std::vector<double>& u) override {
    const std::size_t cells = u.size();
    copa::gpu::require_device_memory(u_.growth(cells) + unew_.growth(cells) + tree_growth(t),
                                     "ramses-oct AMR state, fluxes, tree tables and plan workspace");
    u_.resize(cells);
    unew_.resize(cells);
    char* h = staging_.reserve(cells * sizeof(double));
    std::memcpy(h, u.data(), cells * sizeof(double));
    copa::gpu::copy_to_device(u_.data(), h, cells * sizeof(double));
    copa::gpu::synchronize();
    upload_tree(t);
  }

  // The tree's tables copied up and the lists and plan built from them (upload's second half).
  void upload_tree(const Tree& t) {
    drop_scans();
    copa::gpu::require_device_memory(tree_growth(t), "ramses-oct AMR fluxes, tree tables and plan workspace");
    const std::size_t n = static_cast<std::size_t>(t.noct());
    noct_ = static_cast<long long>(n);
    max_level_ = t.max_level;
    dx0_ = t.base->dx;
    for (int a = 0; a < 3; ++a) {
      base_cells_[a] = t.base->cells[a];
      bc_[a] = static_cast<int>(t.base->bc[a]);
    }
    for (int l = 0; l <= max_level_ + 1; ++l) hash_begin_[l] = t.hash_begin[l];
    for (int l = 0; l <= max_level_; ++l) hash_shift_[l] = t.hash_shift[l];
    level_begin_ = t.level_begin;
    prepare_step_buffers();
    // Every table packed into the pinned staging buffer (256-byte aligned pieces), then copied. The
    // size and the packing walk the same list (each_table): a size summed from a separate list
    // once rounded coord and nbor as one piece each, while they are packed as 3 and 6 pieces, and
    // the last copies ran past the pinned buffer (cudaErrorInvalidValue on the H200, sod reflecting).
    std::size_t total = 0;
    each_table(t, [&](auto&, const auto& v) { total += staged_bytes(v.size() * sizeof(v[0])); });
    char* h = staging_.reserve(total);
    std::size_t at = 0;
    each_table(t, [&](auto& d, const auto& v) { put(h, at, d, v); });
    build_lists(Sizing::exact);
    build_plan(Sizing::exact);
    copa::gpu::synchronize();
  }

  void upload_flags(const std::vector<char>& flag) override {
    flags_error_to_check_ = nullptr;
    copa::gpu::require_device_memory(flag_.growth(flag.size()), "ramses-oct AMR regrid flags");
    char* h = staging_.reserve(flag.size());
    std::size_t at = 0;
    put(h, at, flag_, flag);
    copa::gpu::synchronize();
  }

  // Passes 1-3 of the device rebuild (amr_rebuild_body.hpp): counts, one pair scan of both
  // counts (exclusive_sum2), one copy up of the level sizes and rows, the refusal over max_octs
  // and the memory check (the new tables beside the current ones, the map, the new state), then
  // the clears, the fill, and the rows' sources beside the new hash's inserts.
  bool rebuild(std::int64_t max_octs) override {
    const long long n = noct_;
    const int L = max_level_;
    copa::gpu::require_device_memory(rb_sons_.growth(n + 1) + rb_created_.growth(n + 1) + rb_son_scan_.growth(n + 1) +
                                         rb_created_scan_.growth(n + 1) + rb_counts_.growth(L + 3),
                                     "ramses-oct AMR device rebuild counts");
    rb_sons_.resize(n + 1);
    rb_created_.resize(n + 1);
    rb_son_scan_.resize(n + 1);
    rb_created_scan_.resize(n + 1);
    rb_counts_.resize(L + 3);
    const RebuildOld v = rebuild_old();
    COPA_GPU_LAUNCH_DEPENDENT("amr rebuild_count_kernel", rebuild_count_kernel, copa::gpu::blocks_for(n + 1, 128), 128,
                              v, n, rb_sons_.data(), rb_created_.data());
    exclusive_sum2(rb_sons_.data(), rb_son_scan_.data(), rb_created_.data(), rb_created_scan_.data(), n + 1);
    const LevelBegins old_begin = begins(level_begin_);
    COPA_GPU_LAUNCH_DEPENDENT("amr rebuild_counts_kernel", rebuild_counts_kernel, 1, 1, rb_son_scan_.data(),
                              rb_created_scan_.data(), old_begin, L + 1, n, flags_error_to_check_, rb_counts_.data());
    flags_error_to_check_ = nullptr;
    auto* h = reinterpret_cast<long long*>(scan_host_.reserve((L + 3) * sizeof(long long)));
    copa::gpu::copy_to_host(h, rb_counts_.data(), (L + 3) * sizeof(long long));
    check_flags_error(static_cast<unsigned>(h[L + 2]));
    const std::vector<long long> scan_at(h, h + L + 1);
    rows_ = h[L + 1];
    rebuild_layout(level_begin_[1] - level_begin_[0], scan_at, max_octs, new_begin_);
    const long long nn = new_begin_.back();
    rebuilt_ = !(rows_ == 0 && nn == n);  // RegridMap::unchanged: every old oct kept in place
    if (!rebuilt_) return false;
    hash_layout(new_begin_, L, new_hash_begin_, new_hash_shift_);
    std::size_t need = nkey_.growth(nn) + nlevel_.growth(nn) + nfather_.growth(nn) + nson_.growth(8 * nn) +
                       nhash_.growth(new_hash_begin_.back()) + source_.growth(nn) + move_src_.growth(7 * rows_) +
                       move_flip_.growth(7 * rows_) + row_cell_.growth(rows_) + unew_.growth(nn * 8 * nvar);
    for (int a = 0; a < 3; ++a) need += ncoord_[a].growth(nn);
    for (int f = 0; f < 6; ++f) need += nnbor_[f].growth(nn);
    copa::gpu::require_device_memory(need, "ramses-oct AMR device rebuild: the new tree beside the current one");
    nkey_.resize(nn);
    nlevel_.resize(nn);
    nfather_.resize(nn);
    nson_.resize(8 * nn);
    for (int a = 0; a < 3; ++a) ncoord_[a].resize(nn);
    source_.resize(nn);
    move_src_.resize(7 * rows_);
    move_flip_.resize(7 * rows_);
    row_cell_.resize(rows_);
    const long long nslots = new_hash_begin_.back();
    nhash_.resize(nslots);
    COPA_GPU_LAUNCH_DEPENDENT("amr rebuild_clear_kernel", rebuild_clear_kernel,
                              copa::gpu::blocks_for(std::max(8 * nn, nslots), 256), 256, nson_.data(), 8 * nn,
                              nhash_.data(), nslots);
    const RebuildNew w{nkey_.data(),   nlevel_.data(), {ncoord_[0].data(), ncoord_[1].data(), ncoord_[2].data()},
                       nfather_.data(), nson_.data(),  source_.data(),
                       row_cell_.data()};
    if (n > 0) {
      COPA_GPU_LAUNCH_DEPENDENT("amr rebuild_fill_kernel", rebuild_fill_kernel, copa::gpu::blocks_for(n, 128), 128, v,
                                n, rb_son_scan_.data(), rb_created_scan_.data(), old_begin, begins(new_begin_), w);
    }
    HashInsert ins{nhash_.data(), begins(new_hash_begin_), {}, nlevel_.data(), {}, nn};
    for (int l = 0; l <= max_level_; ++l) ins.shift.v[l] = new_hash_shift_[l];
    for (int a = 0; a < 3; ++a) ins.coord[a] = ncoord_[a].data();
    const unsigned row_blocks = copa::gpu::blocks_for(7 * rows_, 128);
    COPA_GPU_LAUNCH_DEPENDENT("amr rebuild_rows_hash_kernel", rebuild_rows_hash_kernel,
                              row_blocks + copa::gpu::blocks_for(nn, 128), 128, plan_view(), rows_, row_cell_.data(),
                              move_src_.data(), move_flip_.data(), row_blocks, ins);
    map_old_noct_ = n;
    end_regrid_part();
    return true;
  }

  // Pass 5: the neighbours of every level in one launch, through the new hash (filled by
  // rebuild()'s last launch).
  void link() override {
    const long long nn = new_begin_.back();
    for (int f = 0; f < 6; ++f) nnbor_[f].resize(nn);
    PlanView v{};
    v.t.level = nlevel_.data();
    for (int a = 0; a < 3; ++a) v.t.coord[a] = ncoord_[a].data();
    for (int f = 0; f < 6; ++f) v.t.nbor[f] = nnbor_[f].data();
    v.t.father = nfather_.data();
    for (int a = 0; a < 3; ++a) {
      v.t.base_cells[a] = base_cells_[a];
      v.t.bc[a] = bc_[a];
    }
    v.son = nson_.data();
    v.hash = nhash_.data();
    for (int l = 0; l <= max_level_ + 1; ++l) v.hash_begin[l] = new_hash_begin_[l];
    for (int l = 0; l <= max_level_; ++l) v.hash_shift[l] = new_hash_shift_[l];
    NborOut out;
    for (int f = 0; f < 6; ++f) out.f[f] = nnbor_[f].data();
    if (nn > 0) {
      COPA_GPU_LAUNCH_DEPENDENT("amr rebuild_nbor_kernel", rebuild_nbor_kernel, copa::gpu::blocks_for(6 * nn, 128), 128,
                                v, nn, out);
    }
    end_regrid_part();
  }

  // The state through the device map (move_kernel, one thread per new cell), then the new tables
  // become the current ones (the old ones are kept as the next rebuild's new arrays), the lists
  // and plan are rebuilt (queued sizing: no count comes up before the end) and the new state is
  // scanned for the next dt. One wait at the end, for all of it: the scan's words and every count
  // of the lists and plan come up there (finish_queued_build; README "The regrid's count waits").
  void adopt() override {
    drop_scans();
    const long long nn = new_begin_.back();
    const std::size_t cells = static_cast<std::size_t>(nn) * 8 * nvar;
    unew_.resize(cells);
    if (nn > 0) {
      COPA_GPU_LAUNCH_DEPENDENT("amr move_kernel", move_kernel, copa::gpu::blocks_for(nn * 8, 128), 128, nn,
                                source_.data(), move_src_.data(), move_flip_.data(), u_.data(), noct_ * 8, hp_.gamma,
                                unew_.data());
    }
    key_.swap(nkey_);
    level_.swap(nlevel_);
    father_.swap(nfather_);
    son_.swap(nson_);
    hash_.swap(nhash_);
    for (int a = 0; a < 3; ++a) coord_[a].swap(ncoord_[a]);
    for (int f = 0; f < 6; ++f) nbor_[f].swap(nnbor_[f]);
    level_begin_ = new_begin_;
    for (int l = 0; l <= max_level_ + 1; ++l) hash_begin_[l] = new_hash_begin_[l];
    for (int l = 0; l <= max_level_; ++l) hash_shift_[l] = new_hash_shift_[l];
    noct_ = nn;
    u_.swap(unew_);
    copa::gpu::require_device_memory(unew_.growth(cells) + step_growth(nn, level_begin_[max_level_]),
                                     "ramses-oct AMR state, fluxes and plan workspace on the rebuilt tree");
    // No copy of u_ into unew_: a step writes every cell of unew_ (leaf cells in the leaf update,
    // covered cells in the restriction; emulate_plan_step starts from NaN to prove it), and the
    // subcycled step reads back only the leaf cells its update wrote. The copy moved the whole
    // state twice per regrid (0.96 GB at 1.5M octs).
    unew_.resize(cells);
    prepare_step_buffers();
    build_lists(Sizing::queued);
    build_plan(Sizing::queued);
    // The next step's dt scan of the moved state, and the one wait of this part: the regrid's
    // kernels then finish inside the regrid's timer (the next step's scan() returns the held
    // words), not in the next step's, as they did once no count copy came after the plan's. The
    // scan reads the state and the tree, not the plan, so a fallback leaves it valid.
    const int set = launch_scan();
    copa::gpu::synchronize();
    next_scan_.hold(leaf_scan_from_words(scan_words_.host(set), max_level_ + 1));
    finish_queued_build();
    end_regrid_part();
  }

  const std::vector<std::int64_t>& level_begin() const override { return level_begin_; }

  // Counted by build_plan, which runs after every upload and adopt (the only changes of the tree),
  // and brought up with the plan's counts.
  std::vector<std::int64_t> leaf_cells_per_level() override { return leaf_cells_; }

  // Every table through the pinned staging buffer (a pageable copy runs at a fraction of the
  // link's speed; the driver calls this for a bad cell's report and the end of the run only).
  void download_tree(Tree& t) override {
    t.max_level = max_level_;
    t.level_begin = level_begin_;
    std::size_t largest = 0;
    each_table(t, [&](auto& d, auto&) { largest = std::max(largest, d.bytes()); });
    char* h = staging_.reserve(largest);
    each_table(t, [&](auto& d, auto& v) {
      static_assert(sizeof(d.data()[0]) == sizeof(v[0]), "device and host element types differ in size");
      v.resize(d.size());
      if (d.size() == 0) return;
      copa::gpu::copy_to_host(h, d.data(), d.bytes());
      std::memcpy(v.data(), h, d.bytes());
    });
    t.hash_begin.assign(hash_begin_, hash_begin_ + max_level_ + 2);
    t.hash_shift.assign(hash_shift_, hash_shift_ + max_level_ + 1);
  }

  void download_map(RegridMap& m) override {
    m.old_noct = map_old_noct_;
    fetch(source_, m.source);
    fetch(move_src_, m.src);
    fetch(move_flip_, m.flip);
  }

  const PlanCounts& counts() const override { return counts_; }
  long long regrid_fallbacks() const override { return regrid_fallbacks_; }

  void download_plan(StepPlan& p) override {
    fetch(leaf_octs_, p.leaf_octs);
    fetch(slots_, p.slots);
    fetch(edges_, p.edges);
    fetch(skip_, p.skip);
    fetch(keep_, p.keep);
    fetch(singles_, p.singles);
    fetch(groups_, p.groups);
    fetch(group_members_, p.group_members);
    fetch(group_edges_, p.group_edges);
    fetch(group_slots_, p.group_slots);
    fetch(ghost_src_, p.ghost_src);
    fetch(ghost_flip_, p.ghost_flip);
    fetch(ghost_begin_, p.ghost_begin);
    fetch(head_, p.head);
    fetch(restrict_cell_, p.restrict_cell);
    fetch(restrict_son_, p.restrict_son);
    p.restrict_begin = counts_.restrict_begin;
  }

  void download_lists(StepLists& l) override {
    fetch(leaf_octs_, l.leaf_octs);
    fetch(faces_, l.faces);
  }

  void download(std::vector<double>& u) override {
    u.resize(u_.size());
    char* h = staging_.reserve(u_.bytes());
    copa::gpu::copy_to_host(h, u_.data(), u_.bytes());
    std::memcpy(u.data(), h, u_.bytes());
  }

  void criterion(const RefineCriterion& rc, double gamma) override {
    const long long ncell = noct_ * 8;
    copa::gpu::require_device_memory(crit_.growth(ncell) + flag_.growth(ncell) + flag_next_.growth(ncell) +
                                         flags_error_.growth(1),
                                     "ramses-oct AMR regrid criterion and flags");
    crit_.resize(ncell);
    flag_.resize(ncell);
    flag_next_.resize(ncell);
    flags_error_.resize(1);
    copa::gpu::fill_zero(flags_error_.data(), flags_error_.bytes());
    const CriterionParams p = criterion_params(rc, gamma, dx0_);
    buffer_passes_ = p.buffer;
    if (ncell > 0) {
      COPA_GPU_LAUNCH_DEPENDENT("amr criterion_kernel", criterion_kernel, copa::gpu::blocks_for(ncell, 128), 128,
                                view(), u_.data(), ncell, p, crit_.data(), flags_error_.data());
    }
    end_regrid_part();
  }

  // The passes of amr_flags_body.hpp in emulate_device_flags's order: the son pass one launch
  // per level (finest first), the buffer one launch per pass (--refine-buffer) reading flag_ and
  // storing into its copy flag_next_ (then swapped), the balance one launch per level l >= 1
  // (finest first). The flags
  // stay in flag_ for rebuild(), whose count copy brings the error word up (one wait fewer per
  // regrid than a copy of its own here) and which throws before using any count.
  void refinement_flags() override {
    const long long ncoarse = level_begin_[max_level_];
    const PlanView v = plan_view();
    copa::gpu::fill_zero(flag_.data(), flag_.bytes());
    for (int l = max_level_ - 1; l >= 0; --l) {
      const long long first = level_begin_[l] * 8, last = level_begin_[l + 1] * 8;
      if (last == first) continue;
      COPA_GPU_LAUNCH_DEPENDENT("amr flags_sons_kernel", flags_sons_kernel, copa::gpu::blocks_for(last - first, 256),
                                256, son_.data(), crit_.data(), flag_.data(), first, last, l + 1 == max_level_);
    }
    for (int pass = 0; pass < buffer_passes_ && ncoarse > 0; ++pass) {
      copa::gpu::copy_on_device(flag_next_.data(), flag_.data(), flag_.bytes());
      COPA_GPU_LAUNCH_DEPENDENT("amr flags_buffer_kernel", flags_buffer_kernel,
                                copa::gpu::blocks_for(ncoarse * 27, 128), 128, v, flag_.data(), flag_next_.data(),
                                ncoarse);
      flag_.swap(flag_next_);
    }
    for (int l = max_level_ - 1; l >= 1; --l) {
      const long long first = level_begin_[l], last = level_begin_[l + 1];
      if (last == first) continue;
      COPA_GPU_LAUNCH_DEPENDENT("amr flags_balance_kernel", flags_balance_kernel,
                                copa::gpu::blocks_for((last - first) * 27, 128), 128, v, flag_.data(), first, last,
                                flags_error_.data());
    }
    flags_error_to_check_ = flags_error_.data();
  }

  void download_flags(std::vector<char>& flag) override { fetch(flag_, flag); }

  LeafScan scan() override {
    if (const LeafScan* held = next_scan_.get()) return *held;
    const int set = launch_scan();
    copa::gpu::synchronize();
    return leaf_scan_from_words(scan_words_.host(set), max_level_ + 1);
  }

  void time_phases(copa::Profile& p) override { phases_ = std::make_unique<copa::gpu::EventTimer>(p); }

  // The step's launches (README "The device step, round 5"): ghosts, leaf update, the reflux with
  // the finest restriction, one launch per middle level, and the coarsest restriction with the
  // next step's scan (the scan alone where the coarsest restriction is the finest, whose launch
  // the reflux shares, or where there is none): 4 launches for one or two refined levels, L + 2
  // for L >= 2, against L + 6 operations before (the reflux, one launch per level, a memset, the
  // scan, a copy).
  void advance(double dt) override {
    host_dt_only("advance");
    drop_scans();  // held again only once the step and its scan have finished
    const int set = launch_step(dt, nullptr);
    copa::gpu::synchronize();
    if (phases_) phases_->flush();
    next_scan_.hold(leaf_scan_from_words(scan_words_.host(set), max_level_ + 1));
  }

  // The device dt (README "The device dt"): the clock set here, then every scan moves it on.
  bool queues_steps() const override { return true; }
  void start_clock(double time, double courant, double tend) override {
    DeviceClock c;
    c.time = time;
    c.courant = courant;
    c.tend = tend;
    c.dx0 = dx0_;
    clock_.resize(1);
    char* h = staging_.reserve(sizeof c);
    std::memcpy(h, &c, sizeof c);
    copa::gpu::copy_to_device(clock_.data(), h, sizeof c);
    copa::gpu::synchronize();
    clock_on_ = true;
    drop_scans();  // a held scan computed no dt
  }

  // The step with the clock's dt queued behind the scan it starts from (one of the current state
  // is queued first where none is: after an upload), then its own scan, which moves the clock on
  // to the next step; no wait.
  void queue_step() override {
    if (!clock_on_) throw std::logic_error("ramses-oct AMR: queue_step before start_clock");
    if (latest_scan_ < 0) launch_scan();
    step_start_scan_ = latest_scan_;
    next_scan_.drop();
    launch_step(0.0, clock_.data());
  }

  LeafScan step_scan(double& device_dt) override {
    if (step_start_scan_ < 0) throw std::logic_error("ramses-oct AMR: step_scan before queue_step");
    scan_done_[step_start_scan_].wait();
    const unsigned long long* h = scan_words_.host(step_start_scan_);
    const int nlevel = max_level_ + 1;
    std::memcpy(&device_dt, h + nlevel + 1, sizeof device_dt);
    return leaf_scan_from_words(h, nlevel);
  }

  void wait_queued() override {
    if (latest_scan_ >= 0) scan_done_[latest_scan_].wait();
  }

  // The recursion of amr_subcycle.cpp's amr_step with the device plan's per-level ranges: no copy
  // and no wait inside the coarse step, then the next scan as advance() ends (README "Level
  // subcycling on the GPU").
  void advance_subcycled(double dt0) override {
    if (!subcycle_)
      throw std::logic_error("ramses-oct AMR: advance_subcycled on a device step built without subcycle "
                             "(make_gpu_amr_step(hp, reflux, true) keeps the per-level ranges)");
    host_dt_only("advance_subcycled");
    drop_scans();
    subcycle_level(0, dt0, true);
    const int set = launch_scan();
    copa::gpu::synchronize();
    next_scan_.hold(leaf_scan_from_words(scan_words_.host(set), max_level_ + 1));
  }

 private:
  // The step's launches with dt, or with the clock's (clock non-null: dt unused); returns the
  // set of its scan's words.
  int launch_step(double dt, const DeviceClock* clock) {
    const long long stride = noct_ * 8;
    const PlanCounts& c = counts_;
    begin_phase("amr.ghosts");
    if (c.ghosts > 0) {
      const unsigned blocks = copa::gpu::blocks_for(c.ghosts * 8, ghost_threads);
      COPA_GPU_LAUNCH_DEPENDENT("amr ghost_kernel", ghost_kernel, blocks, ghost_threads, u_.data(), stride,
                                GhostRange{0, c.ghosts}, blocks, GhostRange{0, 0}, ghost_src_.data(),
                                ghost_flip_.data(), hp_.gamma, ghost_.data());
    }
    next_phase("amr.update");
    block::Args a{leaf_octs_.data(), edges_.data(), skip_.data(), keep_.data(), level_.data(),
                  son_.data(),      ghost_.data(), fine_flux_.data(), nullptr,   stride,
                  dt,               dx0_,          clock};
    launch_units(a, c.singles, singles_.data(), c.groups, groups_.data(), group_slots_.data(), group_members_.data(),
                 group_edges_.data(), u_.data(), unew_.data());
    // The levels' restriction ranges that hold pairs, finest first (a level without sons has none).
    std::vector<std::pair<long long, long long>> ranges;
    for (std::size_t k = 0; k + 1 < c.restrict_begin.size(); ++k)
      if (c.restrict_begin[k + 1] > c.restrict_begin[k]) ranges.emplace_back(c.restrict_begin[k], c.restrict_begin[k + 1]);
    next_phase("amr.reflux+finest_restriction");
    const long long nfaces = reflux_ ? c.faces : 0;
    const std::pair<long long, long long> finest = ranges.empty() ? std::make_pair(0LL, 0LL) : ranges.front();
    const unsigned reflux_blocks = copa::gpu::blocks_for(nfaces * nvar, reflux_threads);
    const unsigned finest_blocks = copa::gpu::blocks_for(finest.second - finest.first, reflux_threads);
    if (reflux_blocks + finest_blocks > 0) {
      COPA_GPU_LAUNCH_DEPENDENT("amr reflux_restrict_kernel", reflux_restrict_kernel, reflux_blocks + finest_blocks,
                                reflux_threads, reflux_blocks, nfaces, faces_.data(), level_.data(), fine_flux_.data(),
                                stride, dt, clock, dx0_, finest.first, finest.second, restrict_cell_.data(),
                                restrict_son_.data(), unew_.data());
    }
    next_phase("amr.coarser_restrictions+scan");
    for (std::size_t k = 1; k + 1 < ranges.size(); ++k) {
      COPA_GPU_LAUNCH_DEPENDENT("amr restrict_kernel", restrict_kernel,
                                copa::gpu::blocks_for(ranges[k].second - ranges[k].first, 256), 256, ranges[k].first,
                                ranges[k].second, restrict_cell_.data(), restrict_son_.data(), stride, unew_.data());
    }
    u_.swap(unew_);
    // The next step's scan queued behind the restriction: the step and the scan cost one wait.
    const int set = ranges.size() >= 2 ? launch_scan(ranges.back().first, ranges.back().second, true)
                                       : launch_scan(0, 0, true);
    end_phase();
    return set;
  }

  // The leaf update by units: the singles' launch (octs_per_block octs per block) and the groups'
  // (one per block). Two kernels, so that the groups do not carry the singles' registers
  // (LeafUnits). The singles run on a side stream forked from the default stream just before the
  // groups' launch and joined just after it, so that their short grid runs beside the groups'
  // instead of alone before it: with the singles first on the default stream, Sedov 32^3 + 2
  // --subcycle's steps took 0.073 s against 0.066 s here (README "Two leaf-update kernels"). The
  // two write disjoint cells and fine-flux rows, so neither waits for the other.
  void launch_units(const block::Args& a, long long nsingle, const std::int32_t* singles, long long ngroup,
                    const std::int32_t* groups, const std::int32_t* group_slots, const std::uint8_t* members,
                    const std::int8_t* edges, const double* u, double* unew) {
    const unsigned single_blocks = copa::gpu::blocks_for(nsingle, block::octs_per_block);
    const bool beside = nsingle > 0 && ngroup > 0;
    if (beside) {
      const copa::gpu::stream_t side = singles_stream_.fork(nullptr);
      leaf_update_kernel<LeafUnits::singles><<<single_blocks, block::group_threads, 0, side>>>(
          a, hp_, oct_layout_.data(), group_layout_.data(), nsingle, singles, slots_.data(), members, edges, u, unew);
      COPA_GPU_CHECK_LAUNCH("amr leaf_update_kernel<singles> (side stream)");
      singles_stream_.mark_end();
    } else if (nsingle > 0) {
      COPA_GPU_LAUNCH_DEPENDENT("amr leaf_update_kernel<singles>", leaf_update_kernel<LeafUnits::singles>,
                                single_blocks, block::group_threads, a, hp_, oct_layout_.data(),
                                group_layout_.data(), nsingle, singles, slots_.data(), members, edges, u, unew);
    }
    if (ngroup > 0)
      COPA_GPU_LAUNCH_DEPENDENT("amr leaf_update_kernel<groups>", leaf_update_kernel<LeafUnits::groups>,
                                static_cast<unsigned>(ngroup), block::group_threads, a, hp_, oct_layout_.data(),
                                group_layout_.data(), ngroup, groups, group_slots, members, edges, u, unew);
    if (beside) singles_stream_.join(nullptr);
  }
  // How build_lists and build_plan size their launches and arrays (README "The regrid's count waits"):
  // exact, each count copied up once the device has it (a wait each: upload_tree, and the
  // fallback), or queued, by bounds and guesses the host has without waiting (adopt()).
  enum class Sizing { exact, queued };
  // The slack of a queued guess over a quarter more than the last count (queued_capacity): 1024
  // ghosts hold 8 * nvar * 1024 doubles (330 KB), so a small tree that grows a lot still fits.
  static constexpr long long queued_slack = 1024;

  // amr_step(l, dt) on the device: the finer level's two substeps first; then level l's ghost
  // slots from the current u (level l - 1 at its old time), its units with dt (the global step's
  // kernel over the level's slices of singles and groups, which for l >= 1 also adds the
  // substep's kept fine fluxes times dt into the sums, starting them on the first of its two
  // substeps (first_substep): no launch of its own), the reflux of its coarse cells from level
  // l + 1's sums (factor 1 / dx_l: reflux_cell with dt = 1), its leaf cells committed (unew -> u)
  // and level l + 1 restricted into its covered cells in one launch (the finest level instead
  // alternates u and unew between its two substeps: pingpong below).
  void subcycle_level(int l, double dt, bool first_substep) {
    const bool finer = l < max_level_ && level_begin_[l + 2] > level_begin_[l + 1];
    if (finer) {
      subcycle_level(l + 1, 0.5 * dt, true);
      subcycle_level(l + 1, 0.5 * dt, false);
    }
    const PlanLevels& lv = counts_.levels;
    const long long stride = noct_ * 8;
    // The second substep's ghost slots are the first's: they are prolonged from the coarser
    // levels, which advance only after both substeps, and no other level writes this level's
    // slots. (0.36 of 13 ms per coarse step for the finest level, Sedov 128^3 + 2 on the H200.)
    if (first_substep)
      launch_ghosts(GhostRange{lv.single_ghost_begin[l], lv.single_ghost_begin[l + 1] - lv.single_ghost_begin[l]},
                    GhostRange{lv.group_ghost_begin[l], lv.group_ghost_begin[l + 1] - lv.group_ghost_begin[l]});
    // Level l >= 1 adds its kept fine fluxes times dt into the sums as it stores them.
    double* sums = reflux_ && l > 0 ? flux_sum_.data() : nullptr;
    block::Args a{leaf_octs_.data(), edges_.data(), skip_.data(), keep_.data(), level_.data(),
                  son_.data(), ghost_.data(), fine_flux_.data(), sums, stride, dt, dx0_};
    a.sum_first = first_substep;
    // The finest level's two substeps (l >= 1 with no finer level) ping-pong: the first reads u
    // and writes unew, the second reads unew and writes u, and neither commits. Nothing reads
    // this level between them (its update reads only its own octs and the ghost slots, prolonged
    // from coarser levels), and it has no covered cells to restrict nor faces to reflux. The commit
    // copied every leaf cell of the level back at each substep: 0.55 of 13.7 ms per coarse step
    // (Sedov 128^3 + 2 on the H200, results/h200/20261130-3).
    const bool pingpong = !finer && l > 0;
    const double* in = pingpong && !first_substep ? unew_.data() : u_.data();
    double* out = pingpong && !first_substep ? u_.data() : unew_.data();
    const long long s0 = lv.single_begin[l], nsingle = lv.single_begin[l + 1] - s0;
    const long long g0 = lv.group_begin[l], ngroup = lv.group_begin[l + 1] - g0;
    launch_units(a, nsingle, singles_.data() + s0, ngroup, groups_.data() + g0, group_slots_.data() + 64 * g0,
                 group_members_.data() + g0, group_edges_.data() + 6 * g0, in, out);
    if (pingpong) return;
    const long long i0 = lv.leaf_begin[l], nleaf = lv.leaf_begin[l + 1] - i0;
    if (finer && reflux_) {
      const long long f0 = lv.face_begin[l], nfaces = lv.face_begin[l + 1] - f0;
      if (nfaces > 0) {
        COPA_GPU_LAUNCH_DEPENDENT("amr reflux_sums_kernel", reflux_sums_kernel,
                                  copa::gpu::blocks_for(nfaces * nvar, reflux_threads), reflux_threads, nfaces,
                                  faces_.data() + f0, level_.data(), flux_sum_.data(), stride, dx0_, unew_.data());
      }
    }
    // The commit of level l and, where a finer level has octs, its restriction: one launch.
    long long first = 0, last = 0;
    if (finer) {
      const std::size_t k = static_cast<std::size_t>(max_level_ - 1 - l);
      first = counts_.restrict_begin[k];
      last = counts_.restrict_begin[k + 1];
    }
    const unsigned commit_blocks = copa::gpu::blocks_for(nleaf * 8, commit_threads);
    const unsigned restrict_blocks = copa::gpu::blocks_for(last - first, commit_threads);
    if (commit_blocks + restrict_blocks > 0) {
      COPA_GPU_LAUNCH_DEPENDENT("amr commit_restrict_kernel", commit_restrict_kernel, commit_blocks + restrict_blocks,
                                commit_threads, commit_blocks, nleaf, leaf_octs_.data() + i0, son_.data(), stride,
                                unew_.data(), first, last, restrict_cell_.data(), restrict_son_.data(), u_.data());
    }
  }

  // A level's ghost slots, its singles' range a and its groups' range b, prolonged from u_ in one
  // launch (ghost_kernel).
  void launch_ghosts(GhostRange a, GhostRange b) {
    const unsigned blocks_a = copa::gpu::blocks_for(a.count * 8, ghost_threads);
    const unsigned blocks_b = copa::gpu::blocks_for(b.count * 8, ghost_threads);
    if (blocks_a + blocks_b == 0) return;
    COPA_GPU_LAUNCH_DEPENDENT("amr ghost_kernel (one level)", ghost_kernel, blocks_a + blocks_b, ghost_threads,
                              u_.data(), noct_ * 8, a, blocks_a, b, ghost_src_.data(), ghost_flip_.data(), hp_.gamma,
                              ghost_.data());
  }

  // The dt scan of u_, queued, in one launch with the restriction pairs [first, last) of u_ if
  // any (restrict_scan_kernel), into the next set of words, which it returns: scan_words_.host(set)
  // reads them once the caller has synchronised. With the clock on, the scan also moves it on
  // (step_ended: at the end of a step) and its event is recorded.
  int launch_scan(long long first = 0, long long last = 0, bool step_ended = false) {
    const int set = scan_set_;
    scan_set_ = (scan_set_ + 1) % MappedScanWords::sets;
    const int nlevel = max_level_ + 1;
    const long long ncell = noct_ * 8;
    const unsigned restrict_blocks = copa::gpu::blocks_for(last - first, scan_threads);
    const unsigned blocks = std::max(std::min<unsigned>(copa::gpu::blocks_for(ncell, scan_threads), scan_blocks_), 1u);
    COPA_GPU_LAUNCH_DEPENDENT("amr restrict_scan_kernel", restrict_scan_kernel, restrict_blocks + blocks, scan_threads,
                              restrict_blocks, first, last, restrict_cell_.data(), restrict_son_.data(), u_.data(),
                              ncell, son_.data(), level_.data(), hp_.gamma, nlevel, scan_.data(),
                              scan_words_.device(set), clock_on_ ? clock_.data() : nullptr, step_ended);
    if (clock_on_) {
      scan_done_[set].record();
      latest_scan_ = set;
    }
    return set;
  }

  // The state changed (an upload, a regrid's move, a step started): no scan is of it.
  void drop_scans() {
    next_scan_.drop();
    latest_scan_ = -1;
  }

  // The host-dt steps take their dt from the host; with the clock on the clock would go stale.
  void host_dt_only(const char* call) const {
    if (clock_on_)
      throw std::logic_error(std::string("ramses-oct AMR: ") + call + " (host dt) on a step whose device clock is on");
  }

  // The end of a regrid part (criterion, rebuild, link, adopt): the device's work is waited for
  // only when the parts are timed (--phase-timing: the driver's regrid.* rows); otherwise the
  // next part's launches queue behind it on the same stream, and a part that needs a count waits
  // in its copy (~10 us of drained pipeline and launch latency saved per part on the H200).
  void end_regrid_part() {
    if (phases_) copa::gpu::synchronize();
  }

  // --phase-timing (time_phases): one event-timed region per phase of advance(), phases back to
  // back; without it nothing is recorded.
  void begin_phase(const char* name) {
    if (phases_) phases_->begin(name);
  }
  void end_phase() {
    if (phases_) phases_->end();
  }
  void next_phase(const char* name) {
    end_phase();
    begin_phase(name);
  }

  // Bytes a table of `bytes` takes in the staging buffer: pieces start 256-byte aligned.
  static std::size_t staged_bytes(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

  // Calls f(device array, host table) for every table of the tree, in packing order: the one list
  // both the staging size and the packing walk.
  template <class TreeT, class F>
  void each_table(TreeT& t, F&& f) {
    f(key_, t.key);
    f(level_, t.level);
    f(son_, t.son);
    for (int a = 0; a < 3; ++a) f(coord_[a], t.coord[a]);
    for (int k = 0; k < 6; ++k) f(nbor_[k], t.nbor[k]);
    f(father_, t.father);
    f(hash_, t.hash_slots);
  }

  // The step lists built on the device from the uploaded tables (amr_lists_body.hpp; the same
  // passes as emulate_device_lists): per oct its leaf flag and reflux faces (a lane per cell),
  // one pair scan of both counts, the two totals into the count words, the fill (a thread per
  // cell). They replace the host's build_step_lists and its upload. Exact sizing copies the totals
  // up (a wait) and sizes leaf_octs_ and faces_ by them; queued sizing waits for nothing: leaf_octs_
  // holds every oct (nleaf <= noct) and faces_ a guess (queued_capacity), checked after adopt()'s
  // wait (finish_queued_build).
  void build_lists(Sizing sizing) {
    const long long n = noct_, ncoarse = level_begin_[max_level_];
    const TreeView v = view();
    leaf_flag_.resize(n + 1);
    leaf_scan_.resize(n + 1);
    face_mask_.resize(ncoarse);
    face_flag_.resize(n + 1);
    face_scan_.resize(n + 1);
    COPA_GPU_LAUNCH_DEPENDENT("amr lists_count_kernel", lists_count_kernel,
                              copa::gpu::blocks_for(8 * (n + 1), lists_threads), lists_threads, v, son_.data(), n,
                              ncoarse, leaf_flag_.data(), face_mask_.data(), face_flag_.data());
    exclusive_sum2(leaf_flag_.data(), leaf_scan_.data(), face_flag_.data(), face_scan_.data(), n + 1);
    count_words_.resize(CountWords{max_level_ + 1}.total(subcycle_));
    COPA_GPU_LAUNCH_DEPENDENT("amr lists_counts_kernel", lists_counts_kernel, 1, 1, leaf_scan_.data(), n,
                              face_scan_.data(), ncoarse, count_words_.data());
    long long nleaf = n;
    if (sizing == Sizing::exact) {
      const long long* h = count_words_up(CountWords::faces + 1);
      nleaf = h[CountWords::leaf_octs];
      face_capacity_ = h[CountWords::faces];
    } else {
      face_capacity_ = queued_capacity(counts_.faces);
    }
    copa::gpu::require_device_memory(leaf_octs_.growth(nleaf) + faces_.growth(face_capacity_),
                                     "ramses-oct AMR step lists");
    leaf_octs_.resize(nleaf);
    faces_.resize(face_capacity_);
    if (n > 0) {
      COPA_GPU_LAUNCH_DEPENDENT("amr lists_fill_kernel", lists_fill_kernel, copa::gpu::blocks_for(8 * n, 128), 128, v,
                                son_.data(), n, ncoarse, leaf_scan_.data(), face_scan_.data(), face_mask_.data(),
                                face_capacity_, leaf_octs_.data(), faces_.data());
    }
  }

  // The step plan built on the device from the uploaded tables (amr_plan_body.hpp; the same
  // passes as emulate_device_plan): per leaf oct its entries, the singles/groups split through
  // scans of flags, per unit its slots and ghost count, a scan, the ghosts; the restriction pairs
  // through a scan of per-oct counts. The kernels read the counts from the count words, and the
  // host launches them over sizes it has: exact sizing copies the plan's counts up after the split
  // and the ghost total after the slots (two waits; upload_tree and the fallback), queued sizing
  // launches over bounds (units and singles <= leaf octs <= noct, groups <= leaf octs / group_min
  // since a group's members are a run of at least group_min leaf octs and runs do not overlap,
  // restriction pairs <= 8 per coarse oct) and sizes the ghost arrays by a guess, so that nothing
  // waits before adopt()'s one wait (finish_queued_build). Every allocation is checked against
  // free memory first.
  void build_plan(Sizing sizing) {
    const bool exact = sizing == Sizing::exact;
    const long long nleaf = static_cast<long long>(leaf_octs_.size());  // exact, or the bound noct_
    const long long ncoarse = level_begin_[max_level_];
    const PlanView v = plan_view();
    const long long* nleaf_word = count_words_.data() + CountWords::leaf_octs;
    size_leaf_arrays(nleaf);
    restrict_count_.resize(ncoarse + 1);
    restrict_scan_.resize(ncoarse + 1);
    if (nleaf > 0) {
      COPA_GPU_LAUNCH_DEPENDENT("amr plan_leaf_kernel", plan_leaf_kernel, copa::gpu::blocks_for(nleaf, 128), 128, v,
                                leaf_octs_.data(), nleaf_word, reflux_, group_min_, face_mask_.data(), ncoarse,
                                edges_.data(), skip_.data(), keep_.data(), head_.data());
    }
    COPA_GPU_LAUNCH_DEPENDENT("amr plan_split_flags_kernel", plan_split_flags_kernel,
                              copa::gpu::blocks_for(nleaf + 1, 256), 256, v, leaf_octs_.data(), head_.data(),
                              nleaf_word, nleaf, single_flag_.data(), head_flag_.data());
    exclusive_sum2(single_flag_.data(), single_scan_.data(), head_flag_.data(), group_scan_.data(), nleaf + 1);
    COPA_GPU_LAUNCH_DEPENDENT("amr plan_restrict_count_kernel", plan_restrict_count_kernel,
                              copa::gpu::blocks_for(ncoarse + 1, 256), 256, son_.data(), ncoarse,
                              restrict_count_.data());
    exclusive_sum(restrict_count_.data(), restrict_scan_.data(), ncoarse + 1);
    LevelOffsets starts{};
    for (int l = 0; l <= max_level_; ++l) starts.v[l] = level_begin_[l];
    const int nlevel = max_level_ + 1;
    const CountWords w{nlevel};
    leaf_count_.resize(nlevel);
    copa::gpu::fill_zero(leaf_count_.data(), leaf_count_.bytes());
    if (noct_ > 0) {
      COPA_GPU_LAUNCH_DEPENDENT("amr leaf_cells_kernel", leaf_cells_kernel, copa::gpu::blocks_for(noct_, 256), 256,
                                son_.data(), level_.data(), noct_, nlevel, leaf_count_.data());
    }
    COPA_GPU_LAUNCH_DEPENDENT("amr plan_counts_kernel", plan_counts_kernel, 1, 1, single_scan_.data(),
                              group_scan_.data(), restrict_scan_.data(), starts, nlevel, leaf_count_.data(),
                              count_words_.data());
    long long nsingle = nleaf, ngroup = nleaf / std::clamp(group_min_, 1, 8), nunit = nleaf, npairs = 8 * ncoarse;
    if (exact) {
      const long long* h = count_words_up(w.restrict_offset());
      nsingle = h[CountWords::singles];
      ngroup = h[CountWords::groups];
      nunit = nsingle + ngroup;
      npairs = restrict_pairs_from_words(h);
    }
    copa::gpu::require_device_memory(singles_.growth(nsingle) + groups_.growth(ngroup) +
                                         group_members_.growth(ngroup) + group_edges_.growth(6 * ngroup) +
                                         group_slots_.growth(64 * ngroup) + ghost_count_.growth(nunit + 1) +
                                         ghost_begin_.growth(nunit + 1) + restrict_cell_.growth(npairs) +
                                         restrict_son_.growth(npairs),
                                     "ramses-oct AMR step plan (units and restriction pairs)");
    size_unit_arrays(nsingle, ngroup, nunit, npairs);
    if (nleaf > 0) {
      COPA_GPU_LAUNCH_DEPENDENT("amr plan_split_kernel", plan_split_kernel, copa::gpu::blocks_for(nleaf, 256), 256, v,
                                leaf_octs_.data(), head_.data(), nleaf_word, single_scan_.data(), group_scan_.data(),
                                singles_.data(), groups_.data(), group_members_.data(), group_edges_.data());
    }
    if (ncoarse > 0) {
      COPA_GPU_LAUNCH_DEPENDENT("amr plan_restrict_fill_kernel", plan_restrict_fill_kernel,
                                copa::gpu::blocks_for(ncoarse, 256), 256, son_.data(), level_.data(), ncoarse,
                                restrict_scan_.data(), count_words_.data() + w.restrict_offset(), restrict_cell_.data(),
                                restrict_son_.data());
    }
    // The unit kernels' warps stride over the units: a warp per unit where the count is known, else
    // per unit of the last plan's guess (queued_capacity), not of the bound (mostly idle warps).
    const long long last_units = counts_.singles + counts_.groups;
    const long long grid_warps = exact ? nunit + 1 : std::min(nunit + 1, queued_capacity(last_units));
    const unsigned unit_blocks = copa::gpu::blocks_for(std::max(grid_warps, 1LL), unit_slot_units_per_block);
    COPA_GPU_LAUNCH_DEPENDENT("amr plan_unit_slots_kernel", plan_unit_slots_kernel, unit_blocks, unit_slot_threads, v,
                              leaf_octs_.data(), singles_.data(), groups_.data(), group_members_.data(),
                              count_words_.data(), nunit, slots_.data(), group_slots_.data(), ghost_count_.data());
    exclusive_sum(ghost_count_.data(), ghost_begin_.data(), nunit + 1);
    const int nword = w.total(subcycle_);
    COPA_GPU_LAUNCH_DEPENDENT("amr plan_totals_kernel", plan_totals_kernel, 1, 1, begins(level_begin_), max_level_,
                              subcycle_, leaf_scan_.data(), face_scan_.data(), single_scan_.data(), group_scan_.data(),
                              ghost_begin_.data(), count_words_.data(), nword,
                              exact ? nullptr : mapped_counts_.device());
    const long long* h = exact ? count_words_up(nword) : nullptr;
    ghost_capacity_ = exact ? h[w.ghosts()] : queued_capacity(counts_.ghosts);
    copa::gpu::require_device_memory(ghost_src_.growth(7 * ghost_capacity_) + ghost_flip_.growth(7 * ghost_capacity_) +
                                         ghost_.growth(ghost_capacity_ * 8 * nvar),
                                     "ramses-oct AMR step plan (ghost slots)");
    size_ghost_arrays(ghost_capacity_);
    if (nunit > 0 && ghost_capacity_ > 0) {
      COPA_GPU_LAUNCH_DEPENDENT("amr plan_unit_ghosts_kernel", plan_unit_ghosts_kernel, unit_blocks, unit_slot_threads,
                                v, leaf_octs_.data(), singles_.data(), groups_.data(), count_words_.data(),
                                ghost_capacity_, ghost_begin_.data(), slots_.data(), group_slots_.data(),
                                ghost_src_.data(), ghost_flip_.data());
    }
    if (exact) take_counts(h);
  }

  // Exact sizing: count words [0, end) copied up (the copy waits for the kernels before it).
  const long long* count_words_up(int end) {
    auto* h = reinterpret_cast<long long*>(scan_host_.reserve(end * sizeof(long long)));
    copa::gpu::copy_to_host(h, count_words_.data(), end * sizeof(long long));
    return h;
  }

  // The restriction pairs' layout from the count words' scan per level (restrict_layout, the body
  // plan_counts_kernel ran for the offsets) into counts_.restrict_begin; returns the pairs' total.
  long long restrict_pairs_from_words(const long long* h) {
    const long long* scan_at = h + CountWords::scan_at;
    long long offset[max_levels + 1];
    restrict_layout(std::vector<long long>(scan_at, scan_at + max_level_ + 1), counts_.restrict_begin, offset);
    return counts_.restrict_begin.back();
  }

  // Every count of the lists and plan from the count words (all of them: CountWords::total):
  // counts_, its restriction layout and per-level ranges, the leaf cells per level.
  void take_counts(const long long* h) {
    const CountWords w{max_level_ + 1};
    counts_.leaf_octs = h[CountWords::leaf_octs];
    counts_.faces = h[CountWords::faces];
    counts_.singles = h[CountWords::singles];
    counts_.groups = h[CountWords::groups];
    restrict_pairs_from_words(h);
    leaf_cells_.assign(h + w.leaf_cells(), h + w.leaf_cells() + w.nlevel);
    counts_.ghosts = h[w.ghosts()];
    if (subcycle_) counts_.levels = plan_levels_from_words(h + w.ghosts(), max_level_);
  }

  // A queued build's capacity for a count last seen as last (this step's previous lists and plan):
  // a quarter more and a slack, as a regrid changes the tree by a fraction; the starved test
  // capacity half of it, so that a regrid that does not halve the count overflows it.
  long long queued_capacity(long long last) const {
    if (capacity_ == RegridCapacity::starved) return last / 2;
    return last + last / 4 + queued_slack;
  }

  // After adopt()'s wait, the queued build's counts in host-mapped memory: where every count fit
  // the capacity it ran with, the arrays take their exact sizes (what the downloads, the memory
  // they report and the next regrid's growth read; no allocation: they only shrink) and counts_
  // the counts; else the lists and plan are built again with exact sizing (three waits more), the
  // arrays then grown to fit (README "The regrid's count waits").
  void finish_queued_build() {
    const long long* h = mapped_counts_.host();
    const CountWords w{max_level_ + 1};
    if (h[CountWords::faces] > face_capacity_ || h[w.ghosts()] > ghost_capacity_) {
      ++regrid_fallbacks_;
      build_lists(Sizing::exact);
      build_plan(Sizing::exact);
      copa::gpu::synchronize();
      return;
    }
    take_counts(h);
    size_to_counts();
  }

  // The lists' and plan's arrays at the sizes of counts_ (as exact sizing leaves them).
  void size_to_counts() {
    const PlanCounts& c = counts_;
    leaf_octs_.resize(c.leaf_octs);
    faces_.resize(c.faces);
    size_leaf_arrays(c.leaf_octs);
    size_unit_arrays(c.singles, c.groups, c.singles + c.groups, c.restrict_begin.back());
    size_ghost_arrays(c.ghosts);
    face_capacity_ = c.faces;
    ghost_capacity_ = c.ghosts;
  }

  // The plan's arrays per leaf oct (its entries and the split's flags and scans, one more entry).
  void size_leaf_arrays(long long nleaf) {
    slots_.resize(27 * nleaf);
    edges_.resize(6 * nleaf);
    skip_.resize(nleaf);
    keep_.resize(nleaf);
    head_.resize(nleaf);
    single_flag_.resize(nleaf + 1);
    head_flag_.resize(nleaf + 1);
    single_scan_.resize(nleaf + 1);
    group_scan_.resize(nleaf + 1);
  }

  // The plan's arrays per unit and per restriction pair (nunit: the singles and groups, or on the
  // queued path the bound of both, the leaf octs).
  void size_unit_arrays(long long nsingle, long long ngroup, long long nunit, long long npairs) {
    singles_.resize(nsingle);
    groups_.resize(ngroup);
    group_members_.resize(ngroup);
    group_edges_.resize(6 * ngroup);
    group_slots_.resize(64 * ngroup);
    ghost_count_.resize(nunit + 1);
    ghost_begin_.resize(nunit + 1);
    restrict_cell_.resize(npairs);
    restrict_son_.resize(npairs);
  }

  // The ghost slots' sources, flips and states.
  void size_ghost_arrays(long long nghost) {
    ghost_src_.resize(7 * nghost);
    ghost_flip_.resize(7 * nghost);
    ghost_.resize(nghost * 8 * nvar);
  }

  // out[k] = in[0] + ... + in[k-1] for k < n (in and out distinct).
  void exclusive_sum(const long long* in, long long* out, long long n) {
    if (n > INT_MAX)
      throw copa::RuntimeError("ramses-oct AMR device plan: a scan of " + std::to_string(n) +
                               " entries, more than the library scan's int count");
#if defined(COPA_HAVE_GPU_CUB)
    std::size_t bytes = 0;
    COPA_GPU_CHECK(copa::gpu_cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, static_cast<int>(n)));
    copa::gpu::require_device_memory(scan_temp_.growth(bytes), "ramses-oct AMR device plan scan workspace");
    scan_temp_.resize(std::max<std::size_t>(bytes, 1));
    COPA_GPU_CHECK(copa::gpu_cub::DeviceScan::ExclusiveSum(scan_temp_.data(), bytes, in, out, static_cast<int>(n)));
#else
    COPA_GPU_LAUNCH_DEPENDENT("amr plan_block_scan_kernel", plan_block_scan_kernel, 1, plan_scan_threads, in, out, n);
#endif
  }

  // out_a = exclusive sum of in_a and out_b = that of in_b, both of n entries, in one library scan
  // over pairs (a zip of the two arrays in and out, the pairwise sum): one init and one scan
  // kernel instead of two of each (a CUB scan of ~20k entries costs 1.9 + 5.5 us, nearly all
  // latency, H200). Integer sums, so each half equals exclusive_sum's. HIP runs two scans (the
  // pair scan needs thrust's zip iterator, which hipCUB builds need not ship).
  void exclusive_sum2(const long long* in_a, long long* out_a, const long long* in_b, long long* out_b, long long n) {
#if defined(COPA_HAVE_CUDA)
    if (n > INT_MAX)
      throw copa::RuntimeError("ramses-oct AMR device plan: a scan of " + std::to_string(n) +
                               " entries, more than the library scan's int count");
    const auto in = thrust::make_zip_iterator(in_a, in_b);
    const auto out = thrust::make_zip_iterator(out_a, out_b);
    const thrust::tuple<long long, long long> zero(0, 0);
    const int count = static_cast<int>(n);
    std::size_t bytes = 0;
    COPA_GPU_CHECK(copa::gpu_cub::DeviceScan::ExclusiveScan(nullptr, bytes, in, out, PairSum{}, zero, count));
    copa::gpu::require_device_memory(scan_temp_.growth(bytes), "ramses-oct AMR device plan scan workspace");
    scan_temp_.resize(std::max<std::size_t>(bytes, 1));
    COPA_GPU_CHECK(copa::gpu_cub::DeviceScan::ExclusiveScan(scan_temp_.data(), bytes, in, out, PairSum{}, zero, count));
#else
    exclusive_sum(in_a, out_a, n);
    exclusive_sum(in_b, out_b, n);
#endif
  }

  template <class T, class H>
  static void fetch(GrowArray<T>& d, std::vector<H>& v) {
    static_assert(sizeof(T) == sizeof(H), "device and host element types differ in size");
    v.resize(d.size());
    if (d.size() > 0) copa::gpu::copy_to_host(v.data(), d.data(), d.bytes());
  }

  // Packs h[at..] with v and starts its copy into d (resized to v's length); the caller
  // synchronises before the staging buffer is reused. A piece that would end past the staging
  // buffer is a packing bug: refused here with the sizes, not left to the copy's "invalid argument".
  template <class T, class H>
  void put(char* h, std::size_t& at, GrowArray<T>& d, const std::vector<H>& v) {
    static_assert(sizeof(T) == sizeof(H), "device and host element types differ in size");
    const std::size_t bytes = v.size() * sizeof(H);
    if (at + bytes > staging_.capacity())
      throw std::logic_error("ramses-oct AMR upload: a table of " + std::to_string(bytes) + " bytes at offset " +
                             std::to_string(at) + " overruns the " + std::to_string(staging_.capacity()) +
                             "-byte pinned staging buffer");
    d.resize(v.size());
    if (bytes > 0) {
      std::memcpy(h + at, v.data(), bytes);
      copa::gpu::copy_to_device(d.data(), h + at, bytes);
    }
    at += staged_bytes(bytes);
  }

  // Device bytes an upload of this tree would add to what the arrays hold now: its tables, the
  // lists' workspace, and the plan's arrays and workspace whose sizes the tree gives (per leaf oct,
  // per coarse oct), with every oct counted as a leaf oct (an upper bound: the host no longer
  // counts them); build_lists and build_plan check the rest once the device counted it.
  std::size_t tree_growth(const Tree& t) const {
    const std::size_t n = static_cast<std::size_t>(t.noct());
    std::size_t g = key_.growth(n) + level_.growth(n) + son_.growth(8 * n) + father_.growth(n) +
                    hash_.growth(t.hash_slots.size()) + step_growth(n, t.level_begin[t.max_level]);
    for (int a = 0; a < 3; ++a) g += coord_[a].growth(n);
    for (int f = 0; f < 6; ++f) g += nbor_[f].growth(n);
    return g;
  }

  // The fine-flux buffer and the lists' and plan's arrays whose sizes the tree gives (n octs,
  // ncoarse below the finest level), every oct counted as a leaf oct.
  std::size_t step_growth(std::size_t n, std::size_t ncoarse) const {
    const std::size_t nleaf = n;
    return fine_flux_.growth(n * fine_flux_per_oct) + leaf_octs_.growth(nleaf) + leaf_flag_.growth(n + 1) + leaf_scan_.growth(n + 1) + face_mask_.growth(ncoarse) +
                    face_flag_.growth(n + 1) + face_scan_.growth(n + 1) + slots_.growth(27 * nleaf) + edges_.growth(6 * nleaf) +
                    skip_.growth(nleaf) + keep_.growth(nleaf) + head_.growth(nleaf) + single_flag_.growth(nleaf + 1) +
                    head_flag_.growth(nleaf + 1) + single_scan_.growth(nleaf + 1) + group_scan_.growth(nleaf + 1) +
                    restrict_count_.growth(ncoarse + 1) + restrict_scan_.growth(ncoarse + 1) +
           (subcycle_ ? flux_sum_.growth(n * fine_flux_per_oct) : 0) + 4096;
  }

  // The flux buffers sized and the dt scan's words zeroed for the current tree (noct_, max_level_).
  void prepare_step_buffers() {
    // The fine fluxes are not zeroed: a step reads only the kept fine faces, which its own leaf
    // update wrote before (amr_subcycle_every_kept_fine_face_is_read_by_one_reflux_face); the
    // memset wrote 960 B per oct at every regrid (1.4 GB at 1.5M octs).
    fine_flux_.resize(static_cast<std::size_t>(noct_) * fine_flux_per_oct);
    // The sums are not zeroed either: each level's first substep starts every sum it keeps
    // (block::flux_sum_add), before any reflux reads it.
    if (subcycle_) flux_sum_.resize(static_cast<std::size_t>(noct_) * fine_flux_per_oct);
    if (max_level_ + 1 > scan_levels)
      throw std::logic_error("ramses-oct AMR dt scan: " + std::to_string(max_level_ + 1) + " levels, more than its " +
                             std::to_string(scan_levels));
    // The words and the done counter of leaf_scan_block: zero here, zeroed again by each scan.
    scan_.resize(max_level_ + 3);
    copa::gpu::fill_zero(scan_.data(), scan_.bytes());
  }

  static LevelBegins begins(const std::vector<std::int64_t>& b) {
    LevelBegins r{};
    for (std::size_t l = 0; l < b.size(); ++l) r.v[l] = b[l];
    return r;
  }

  // The current tree and the flags as the rebuild reads them.
  RebuildOld rebuild_old() {
    return RebuildOld{level_.data(), key_.data(), {coord_[0].data(), coord_[1].data(), coord_[2].data()},
                      father_.data(), son_.data(), flag_.data(), max_level_};
  }

  PlanView plan_view() {
    PlanView v{};
    v.t = view();
    v.son = son_.data();
    v.hash = hash_.data();
    for (int l = 0; l <= max_level_ + 1; ++l) v.hash_begin[l] = hash_begin_[l];
    for (int l = 0; l <= max_level_; ++l) v.hash_shift[l] = hash_shift_[l];
    return v;
  }

  TreeView view() {
    TreeView v;
    v.level = level_.data();
    for (int a = 0; a < 3; ++a) v.coord[a] = coord_[a].data();
    for (int f = 0; f < 6; ++f) v.nbor[f] = nbor_[f].data();
    v.father = father_.data();
    for (int a = 0; a < 3; ++a) {
      v.base_cells[a] = base_cells_[a];
      v.bc[a] = bc_[a];
    }
    return v;
  }

  HydroParams hp_;
  bool reflux_, subcycle_;
  int group_min_;  // tuning group-min (plan_leaf_entries)
  RegridCapacity capacity_;
  // The reflux faces and ghosts the lists and plan arrays were built to hold (the counts on the
  // exact path, queued_capacity's guesses on the queued one), and the queued builds redone exactly.
  long long face_capacity_ = 0, ghost_capacity_ = 0, regrid_fallbacks_ = 0;
  long long noct_ = 0, rows_ = 0, map_old_noct_ = 0;
  bool rebuilt_ = false;
  std::vector<std::int64_t> level_begin_, new_begin_, new_hash_begin_;
  std::vector<int> new_hash_shift_;
  int max_level_ = 0;
  int base_cells_[3] = {0, 0, 0}, bc_[3] = {0, 0, 0};
  double dx0_ = 0;
  long long hash_begin_[max_levels + 2] = {};
  int hash_shift_[max_levels + 1] = {};
  PlanCounts counts_;
  NextScan next_scan_;
  unsigned scan_blocks_ = 1;
  PinnedStaging staging_, scan_host_;
  MappedScanWords scan_words_;
  // The device dt: the clock, whether it is on, the set the next scan writes, the set of the last
  // scan if it is of the current state (-1: none), that of the scan the last queued step started
  // from, and per set the event recorded after its scan.
  GrowArray<DeviceClock> clock_;
  bool clock_on_ = false;
  int scan_set_ = 0, latest_scan_ = -1, step_start_scan_ = -1;
  ScanEvent scan_done_[MappedScanWords::sets];
  // The regrid's count words (CountWords) as the queued build brings them up.
  MappedWords<long long> mapped_counts_{static_cast<std::size_t>(CountWords{max_levels + 1}.total(true))};
  std::unique_ptr<copa::gpu::EventTimer> phases_;
  GrowArray<double> u_, unew_, fine_flux_, ghost_;
  // --subcycle: per oct its fine-face fluxes summed times dt over the substeps.
  GrowArray<double> flux_sum_;
  GrowArray<std::int8_t> level_, edges_, group_edges_;
  GrowArray<std::int32_t> son_, father_, leaf_octs_, slots_, singles_, groups_, group_slots_, source_;
  GrowArray<std::int32_t> coord_[3], nbor_[6];
  GrowArray<std::uint64_t> skip_;
  GrowArray<unsigned long long> scan_;
  GrowArray<std::uint8_t> keep_, ghost_flip_, move_flip_;
  GrowArray<std::int64_t> ghost_src_, move_src_, restrict_cell_, restrict_son_;
  GrowArray<std::uint8_t> head_, group_members_;
  GrowArray<long long> single_flag_, head_flag_, single_scan_, group_scan_, ghost_count_, ghost_begin_;
  GrowArray<long long> restrict_count_, restrict_scan_;
  GrowArray<long long> leaf_flag_, leaf_scan_, face_flag_, face_scan_;
  GrowArray<long long> count_words_;  // the count words on the device (CountWords)
  GrowArray<std::uint64_t> face_mask_;
  GrowArray<unsigned char> scan_temp_;
  GrowArray<Tree::HashEntry> hash_;
  GrowArray<RefluxFace> faces_;
  // The regrid's criterion bytes and flags, one byte per cell of the current tree, and the flags'
  // error word (flags_error_*). flag_ holds the flags after refinement_flags (flag_next_ is the
  // buffer pass's copy).
  GrowArray<char> crit_, flag_, flag_next_;
  GrowArray<unsigned> flags_error_;
  const unsigned* flags_error_to_check_ = nullptr;  // refinement_flags' error word, read by the next rebuild()
  int buffer_passes_ = 1;                           // the criterion's buffer passes, for refinement_flags
  // The leaf block's shared-memory layout tables (amr_leaf_layout.cpp), read through L1.
  copa::gpu::DeviceArray<block::LeafLayout<2>> oct_layout_{1};
  copa::gpu::DeviceArray<block::LeafLayout<4>> group_layout_{1};
  copa::gpu::SideStream singles_stream_;  // the singles' leaf update beside the groups' (launch_units)
  // The device rebuild: the new tree's tables (swapped with the current ones by adopt), the
  // per-old-oct counts and scans, the rows' old father cells, the counts copied up.
  GrowArray<std::uint64_t> key_, nkey_;
  GrowArray<std::int8_t> nlevel_;
  GrowArray<std::int32_t> nfather_, nson_, ncoord_[3], nnbor_[6];
  GrowArray<Tree::HashEntry> nhash_;
  GrowArray<long long> rb_sons_, rb_created_, rb_son_scan_, rb_created_scan_, rb_counts_;
  GrowArray<std::int64_t> row_cell_;
  GrowArray<unsigned long long> leaf_count_;
  std::vector<std::int64_t> leaf_cells_;  // per level, the current tree's leaf cells (build_plan)
};

}  // namespace

std::unique_ptr<DeviceStep> make_gpu_amr_step(const HydroParams& hp, bool reflux, bool subcycle, int group_min,
                                              RegridCapacity capacity) {
  return std::make_unique<GpuAmrStep>(hp, reflux, subcycle, group_min, capacity);
}

}  // namespace ro::amr
