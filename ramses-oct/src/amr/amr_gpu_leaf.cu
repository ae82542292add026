// Ghost slots and the leaf update: one thread per ghost son, then the sibling groups (one 4^3 block
// each) and the single octs (octs_per_block per block) through the bodies of amr_leaf_block.hpp.
#include "amr/amr_gpu_step.cuh"

namespace ro::amr::gpu {

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

GpuAmrStep::GpuAmrStep(const HydroParams& hp, bool reflux, bool subcycle, int group_min, RegridCapacity capacity)
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

// The leaf update by units: the singles' launch (octs_per_block octs per block) and the groups'
// (one per block). Two kernels, so that the groups do not carry the singles' registers
// (LeafUnits). The singles run on a side stream forked from the default stream just before the
// groups' launch and joined just after it, so that their short grid runs beside the groups'
// instead of alone before it: with the singles first on the default stream, Sedov 32^3 + 2
// --subcycle's steps took 0.073 s against 0.066 s here. The
// two write disjoint cells and fine-flux rows, so neither waits for the other.
void GpuAmrStep::launch_units(const block::Args& a, long long nsingle, const std::int32_t* singles, long long ngroup,
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

// A level's ghost slots, its singles' range a and its groups' range b, prolonged from u_ in one
// launch (ghost_kernel).
void GpuAmrStep::launch_ghosts(GhostRange a, GhostRange b) {
  const unsigned blocks_a = copa::gpu::blocks_for(a.count * 8, ghost_threads);
  const unsigned blocks_b = copa::gpu::blocks_for(b.count * 8, ghost_threads);
  if (blocks_a + blocks_b == 0) return;
  COPA_GPU_LAUNCH_DEPENDENT("amr ghost_kernel (one level)", ghost_kernel, blocks_a + blocks_b, ghost_threads,
                            u_.data(), noct_ * 8, a, blocks_a, b, ghost_src_.data(), ghost_flip_.data(), hp_.gamma,
                            ghost_.data());
}

}  // namespace ro::amr::gpu
