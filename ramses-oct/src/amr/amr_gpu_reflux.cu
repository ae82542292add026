// Reflux, restriction, commit and the dt scan: the coarse cells beside finer ones take the fine
// fluxes, covered cells the mean of their sons, and the scan the largest signal speed per level
// (with the device clock, the next dt).
#include "amr/amr_gpu_step.cuh"

namespace ro::amr::gpu {

// Restriction pairs [first, last) over the blocks from skip on (the blocks before them do another
// job of the same launch): one thread per pair (restrict_cell).
__device__ inline void restrict_pairs(unsigned skip, long long first, long long last, const std::int64_t* cell,
                                      const std::int64_t* son, long long stride, double* u) {
  const long long i = first + (blockIdx.x - skip) * (long long)blockDim.x + threadIdx.x;
  if (i < last) restrict_cell(u, stride, cell[i], son[i]);
}

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
                                const long long* __restrict__ owned, double gamma, int nlevel,
                                unsigned long long* __restrict__ words,
                                unsigned long long* __restrict__ out, DeviceClock* __restrict__ clock,
                                bool step_ended) {
  unsigned long long best[scan_levels + 1];  // per level, then the bad cell's ~index
#pragma unroll
  for (int k = 0; k <= scan_levels; ++k) best[k] = 0;
  for (long long g = b * (long long)blockDim.x + threadIdx.x; g < ncell; g += (long long)nb * blockDim.x) {
    int l;
    unsigned long long bits;
    bool ok;
    if (!lists_owns(owned, g >> 3, level[g >> 3])) continue;  // over ranks: the owned leaf cells
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
                         const std::int8_t* __restrict__ level, const long long* __restrict__ owned, double gamma,
                         int nlevel,
                         unsigned long long* __restrict__ words, unsigned long long* __restrict__ out,
                         DeviceClock* __restrict__ clock, bool step_ended) {
  copa::gpu::wait_for_prior_grid();
  if (blockIdx.x < restrict_blocks) {
    restrict_pairs(0, first, last, cell, cell_son, ncell, u);
    return;
  }
  leaf_scan_block(blockIdx.x - restrict_blocks, gridDim.x - restrict_blocks, u, ncell, son, level, owned, gamma,
                  nlevel, words, out, clock, step_ended);
}

LeafScan GpuAmrStep::scan() {
  if (const LeafScan* held = next_scan_.get()) return *held;
  const int set = launch_scan();
  copa::gpu::synchronize();
  return leaf_scan_from_words(scan_words_.host(set), max_level_ + 1);
}

void GpuAmrStep::start_clock(double time, double courant, double tend) {
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

LeafScan GpuAmrStep::step_scan(double& device_dt) {
  if (step_start_scan_ < 0) throw std::logic_error("ramses-oct AMR: step_scan before queue_step");
  scan_done_[step_start_scan_].wait();
  const unsigned long long* h = scan_words_.host(step_start_scan_);
  const int nlevel = max_level_ + 1;
  std::memcpy(&device_dt, h + nlevel + 1, sizeof device_dt);
  return leaf_scan_from_words(h, nlevel);
}

// The dt scan of u_, queued, in one launch with the restriction pairs [first, last) of u_ if
// any (restrict_scan_kernel), into the next set of words, which it returns: scan_words_.host(set)
// reads them once the caller has synchronised. With the clock on, the scan also moves it on
// (step_ended: at the end of a step) and its event is recorded.
int GpuAmrStep::launch_scan(long long first, long long last, bool step_ended) {
  const int set = scan_set_;
  scan_set_ = (scan_set_ + 1) % MappedScanWords::sets;
  const int nlevel = max_level_ + 1;
  const long long ncell = noct_ * 8;
  const unsigned restrict_blocks = copa::gpu::blocks_for(last - first, scan_threads);
  const unsigned blocks = std::max(std::min<unsigned>(copa::gpu::blocks_for(ncell, scan_threads), scan_blocks_), 1u);
  COPA_GPU_LAUNCH_DEPENDENT("amr restrict_scan_kernel", restrict_scan_kernel, restrict_blocks + blocks, scan_threads,
                            restrict_blocks, first, last, restrict_cell_.data(), restrict_son_.data(), u_.data(),
                            ncell, son_.data(), level_.data(), owned(), hp_.gamma, nlevel, scan_.data(),
                            scan_words_.device(set), clock_on_ ? clock_.data() : nullptr, step_ended);
  if (clock_on_) {
    scan_done_[set].record();
    latest_scan_ = set;
  }
  return set;
}

// The state changed (an upload, a regrid's move, a step started): no scan is of it.
void GpuAmrStep::drop_scans() {
  next_scan_.drop();
  latest_scan_ = -1;
}

}  // namespace ro::amr::gpu
