// The step plan on the device: per leaf oct its entries, the singles and groups split, slot rows
// and ghost slots, restriction pairs and the per-level counts, with their exclusive scans
// (amr_plan_body.hpp).
#include "amr/amr_gpu_step.cuh"

namespace ro::amr::gpu {

// The device plan build (amr_plan_body.hpp; the host's build_step_plan runs the same bodies and
// emulate_device_plan these passes in this order). Pass 1: per leaf oct its fixed-size entries
// and group-head mask.
// The number of leaf octs is read from the count words (nleaf_word), so that the launch needs
// only a bound the host knows without waiting.
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

void GpuAmrStep::download_plan(StepPlan& p) {
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
void GpuAmrStep::build_plan(Sizing sizing) {
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
const long long* GpuAmrStep::count_words_up(int end) {
  auto* h = reinterpret_cast<long long*>(scan_host_.reserve(end * sizeof(long long)));
  copa::gpu::copy_to_host(h, count_words_.data(), end * sizeof(long long));
  return h;
}

// The restriction pairs' layout from the count words' scan per level (restrict_layout, the body
// plan_counts_kernel ran for the offsets) into counts_.restrict_begin; returns the pairs' total.
long long GpuAmrStep::restrict_pairs_from_words(const long long* h) {
  const long long* scan_at = h + CountWords::scan_at;
  long long offset[max_levels + 1];
  restrict_layout(std::vector<long long>(scan_at, scan_at + max_level_ + 1), counts_.restrict_begin, offset);
  return counts_.restrict_begin.back();
}

// Every count of the lists and plan from the count words (all of them: CountWords::total):
// counts_, its restriction layout and per-level ranges, the leaf cells per level.
void GpuAmrStep::take_counts(const long long* h) {
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
long long GpuAmrStep::queued_capacity(long long last) const {
  if (capacity_ == RegridCapacity::starved) return last / 2;
  return last + last / 4 + queued_slack;
}

// After adopt()'s wait, the queued build's counts in host-mapped memory: where every count fit
// the capacity it ran with, the arrays take their exact sizes (what the downloads, the memory
// they report and the next regrid's growth read; no allocation: they only shrink) and counts_
// the counts; else the lists and plan are built again with exact sizing (three waits more), the
// arrays then grown to fit.
void GpuAmrStep::finish_queued_build() {
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
void GpuAmrStep::size_to_counts() {
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
void GpuAmrStep::size_leaf_arrays(long long nleaf) {
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
void GpuAmrStep::size_unit_arrays(long long nsingle, long long ngroup, long long nunit, long long npairs) {
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
void GpuAmrStep::size_ghost_arrays(long long nghost) {
  ghost_src_.resize(7 * nghost);
  ghost_flip_.resize(7 * nghost);
  ghost_.resize(nghost * 8 * nvar);
}

// out[k] = in[0] + ... + in[k-1] for k < n (in and out distinct).
void GpuAmrStep::exclusive_sum(const long long* in, long long* out, long long n) {
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
void GpuAmrStep::exclusive_sum2(const long long* in_a, long long* out_a, const long long* in_b, long long* out_b, long long n) {
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

}  // namespace ro::amr::gpu
