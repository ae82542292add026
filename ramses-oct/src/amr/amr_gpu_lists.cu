// The step lists on the device: per oct its leaf flag and reflux faces (a lane per cell), their
// exclusive scans, then the leaf octs and the reflux faces in key order (amr_lists_body.hpp).
#include "amr/amr_gpu_step.cuh"

namespace ro::amr::gpu {

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
                       const long long* __restrict__ owned, long long* __restrict__ leaf_flag,
                       std::uint64_t* __restrict__ face_mask, long long* __restrict__ face_count) {
  copa::gpu::wait_for_prior_grid();
  const long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const long long o = g / 8;
  const int c = int(g % 8);
  // Over ranks another rank's oct has neither a leaf entry nor reflux faces here (lists_owns).
  const bool own = o < n && lists_owns(owned, o, v.level[o]);
  const bool leaf = or_of_eight(own && lists_cell_is_leaf(son, o, c)) != 0;
  const std::uint64_t mask = or_of_eight(own && o < ncoarse ? lists_cell_face_mask(v, son, o, c) : 0);
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

void GpuAmrStep::download_lists(StepLists& l) {
  fetch(leaf_octs_, l.leaf_octs);
  fetch(faces_, l.faces);
}

// The step lists built on the device from the uploaded tables (amr_lists_body.hpp; the same
// passes as emulate_device_lists): per oct its leaf flag and reflux faces (a lane per cell),
// one pair scan of both counts, the two totals into the count words, the fill (a thread per
// cell). They replace the host's build_step_lists and its upload. Exact sizing copies the totals
// up (a wait) and sizes leaf_octs_ and faces_ by them; queued sizing waits for nothing: leaf_octs_
// holds every oct (nleaf <= noct) and faces_ a guess (queued_capacity), checked after adopt()'s
// wait (finish_queued_build).
void GpuAmrStep::build_lists(Sizing sizing) {
  const long long n = noct_, ncoarse = level_begin_[max_level_];
  const TreeView v = view();
  leaf_flag_.resize(n + 1);
  leaf_scan_.resize(n + 1);
  face_mask_.resize(ncoarse);
  face_flag_.resize(n + 1);
  face_scan_.resize(n + 1);
  COPA_GPU_LAUNCH_DEPENDENT("amr lists_count_kernel", lists_count_kernel,
                            copa::gpu::blocks_for(8 * (n + 1), lists_threads), lists_threads, v, son_.data(), n,
                            ncoarse, owned(), leaf_flag_.data(), face_mask_.data(), face_flag_.data());
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

}  // namespace ro::amr::gpu
