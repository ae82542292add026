// The step lists on the device: per oct its leaf flag and reflux faces (a lane per cell), their
// exclusive scans, then the leaf octs and the reflux faces in key order (amr_lists_body.hpp).
// Over MPI ranks also the request lists of the exchanges (amr_ranks_body.hpp): marks, a scan and
// a fill per level for the ghost octs, flags, a scan and a fill for the reflux faces asked for;
// and the partition's work per base oct.
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

// Request lists, level l: a thread per (owned oct of level l, slot) marks the other ranks' octs
// its state loops read (ghost_mark_slot; only stores of 1).
__global__ void ghost_mark_kernel(PlanView v, const long long* __restrict__ owned, long long first, long long count,
                                  long long* __restrict__ mark) {
  copa::gpu::wait_for_prior_grid();
  const long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (g >= 27 * count) return;
  ghost_mark_slot(v, owned, static_cast<std::int32_t>(first + g / 27), int(g % 27), mark);
}

// Request lists: per reflux face e in 0..n its flag (flux_requested; entry n is 0, so the scan of
// n + 1 entries ends with the total).
__global__ void flux_request_flag_kernel(const RefluxFace* __restrict__ faces, long long n,
                                         const std::int8_t* __restrict__ level, const long long* __restrict__ owned,
                                         long long* __restrict__ flag) {
  copa::gpu::wait_for_prior_grid();
  const long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (e > n) return;
  flag[e] = e < n && flux_requested(level, owned, faces[e]);
}

// The marked octs of 0..n in index order (after the marks' exclusive scan): the sorted list.
__global__ void ghost_fill_kernel(const long long* __restrict__ mark, const long long* __restrict__ scan, long long n,
                                  std::int32_t* __restrict__ out) {
  copa::gpu::wait_for_prior_grid();
  const long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (o < n && mark[o]) out[scan[o]] = static_cast<std::int32_t>(o);
}

// The flagged reflux faces of 0..n in their order (after the flags' exclusive scan).
__global__ void flux_request_fill_kernel(const RefluxFace* __restrict__ faces, const long long* __restrict__ flag,
                                         const long long* __restrict__ scan, long long n, RefluxFace* __restrict__ out) {
  copa::gpu::wait_for_prior_grid();
  const long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (e < n && flag[e]) out[scan[e]] = faces[e];
}

// The request lists of the current tree over the owned ranges (the host's rank_lists, pass by
// pass): per level the marks of its owned octs' 27 slots, one scan, the total up, the fill and
// its copy up; then the reflux faces' flags, one scan, the total up, the fill and its copy up,
// split by the coarse cell's level on the host (the faces come level by level). Two waits per
// level and two for the faces; what comes up is the lists alone.
void GpuAmrStep::rank_lists(RankLists& r) {
  if (owned_table_.empty()) throw std::logic_error("ramses-oct AMR: rank_lists without owned ranges (set_owned)");
  const long long n = noct_;
  const PlanView v = plan_view();
  rank_flag_.resize(n + 1);
  rank_scan_.resize(n + 1);
  // The exclusive scan of the n + 1 flags (the last entry 0), its total up, and room for that many
  // items in out: the fill's size.
  const auto scan_and_size = [&](long long n_items, auto& out, const char* what) {
    exclusive_sum(rank_flag_.data(), rank_scan_.data(), n_items + 1);
    long long m = 0;
    copa::gpu::copy_to_host(&m, rank_scan_.data() + n_items, sizeof m);
    copa::gpu::require_device_memory(out.growth(m), what);
    out.resize(m);
    return m;
  };
  r.ghosts.assign(max_level_ + 1, {});
  for (int l = 0; l <= max_level_; ++l) {
    const long long first = owned_table_[2 * l], count = owned_table_[2 * l + 1] - first;
    copa::gpu::fill_zero(rank_flag_.data(), rank_flag_.bytes());
    if (count > 0)
      COPA_GPU_LAUNCH_DEPENDENT("amr ghost_mark_kernel", ghost_mark_kernel, copa::gpu::blocks_for(27 * count, 128), 128,
                                v, owned(), first, count, rank_flag_.data());
    if (scan_and_size(n, rank_octs_, "ramses-oct AMR ghost request lists") > 0) {
      COPA_GPU_LAUNCH_DEPENDENT("amr ghost_fill_kernel", ghost_fill_kernel, copa::gpu::blocks_for(n, 256), 256,
                                rank_flag_.data(), rank_scan_.data(), n, rank_octs_.data());
    }
    fetch(rank_octs_, r.ghosts[l]);
  }
  const long long nf = counts_.faces;
  rank_flag_.resize(nf + 1);
  rank_scan_.resize(nf + 1);
  COPA_GPU_LAUNCH_DEPENDENT("amr flux_request_flag_kernel", flux_request_flag_kernel,
                            copa::gpu::blocks_for(nf + 1, 256), 256, faces_.data(), nf, level_.data(), owned(),
                            rank_flag_.data());
  if (scan_and_size(nf, rank_faces_, "ramses-oct AMR flux request lists") > 0) {
    COPA_GPU_LAUNCH_DEPENDENT("amr flux_request_fill_kernel", flux_request_fill_kernel, copa::gpu::blocks_for(nf, 256),
                              256, faces_.data(), rank_flag_.data(), rank_scan_.data(), nf, rank_faces_.data());
  }
  std::vector<RefluxFace> faces;
  fetch(rank_faces_, faces);
  r.fluxes.assign(max_level_ + 1, {});
  for (const RefluxFace& f : faces) r.fluxes[level_of_index(level_begin_, f.cell / 8)].push_back(f);
}

// The partition's work: per oct o < n its oct_work added to its base oct's total (integer atomics:
// exact in any order).
__global__ void base_work_kernel(const std::uint64_t* __restrict__ key, const std::int8_t* __restrict__ level,
                                 const std::int32_t* __restrict__ son, long long n, bool subcycle,
                                 unsigned long long* __restrict__ work) {
  copa::gpu::wait_for_prior_grid();
  const long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (o >= n) return;
  const int l = level[o];
  const long long w = oct_work(son, o, l, subcycle);
  if (w > 0) atomicAdd(work + base_oct_of(key[o], l), static_cast<unsigned long long>(w));
}

std::vector<std::int64_t> GpuAmrStep::base_work(bool subcycle) {
  const long long nbase = level_begin_[1];
  base_work_.resize(nbase);
  copa::gpu::fill_zero(base_work_.data(), base_work_.bytes());
  if (noct_ > 0)
    COPA_GPU_LAUNCH_DEPENDENT("amr base_work_kernel", base_work_kernel, copa::gpu::blocks_for(noct_, 256), 256,
                              key_.data(), level_.data(), son_.data(), noct_, subcycle, base_work_.data());
  std::vector<std::int64_t> work;
  fetch(base_work_, work);
  return work;
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
