// The device-resident AMR step's class and what its phase files share (CUDA and HIP from one
// source): the growable device arrays and pinned staging, the regrid's count words, the launch
// shapes, the kernels launched from another phase file than their own, and GpuAmrStep with its
// members. Each phase file holds its kernels and the methods that launch them:
//   amr_gpu_leaf.cu     ghost slots and the leaf update (sibling groups and single octs)
//   amr_gpu_reflux.cu   reflux, restriction, commit and the dt scan (with the device clock)
//   amr_gpu_flags.cu    refinement criterion, flags, buffer and 2:1 balance
//   amr_gpu_rebuild.cu  the new tree's rebuild and links, the state's move
//   amr_gpu_lists.cu    the step lists: leaf octs and reflux faces; over ranks the request lists, base work
//   amr_gpu_plan.cu     the step plan: unit entries, singles and groups, slots, ghosts, counts
//   amr_gpu_step.cu     upload and download, the global and the subcycled step, phase timing
// Only .cu files include it.
#pragma once
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
#include "amr/amr_ranks_body.hpp"
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

namespace ro::amr::gpu {

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

// A leaf-update launch takes one kind of unit: single leaf octs (T = 2) or sibling groups (T = 4).
// One kernel per kind, not one for both: in one kernel (a block took the singles' or the groups'
// path by its index) ptxas (sm_90) gave the pair 64 registers and 216 B of spills, which the groups,
// nearly every leaf cell, paid for although the singles' path caused them.
enum class LeafUnits { singles, groups };

// The reflux and the finest restriction in one launch: blocks
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

// --subcycle, the end of a visit of level l in one launch: blocks [0, commit_blocks) take one
// thread per cell of level l's leaf octs, unew -> u where it is a leaf (commit_cell); the blocks
// after them restrict pairs [first, last), level l + 1 into level l's covered cells of u. They
// touch disjoint cells, so their order does not matter: the commit writes level l's LEAF cells of
// u (and reads the same cells of unew); the restriction writes level l's COVERED cells of u and
// reads level-(l+1) cells of u, which nothing in this launch writes (level l + 1 was committed
// and restricted in its own visits, before). test_amr_subcycle.cpp checks that premise.
inline constexpr int commit_threads = 256;

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

// The counts of the step lists and plan build, written by its small count kernels into one
// device array (the count words) that its later kernels read in place of host counts; the host
// copies them up at its waits (exact sizing), or plan_totals_kernel stores them into host-mapped
// memory that the host reads after adopt()'s one wait (queued sizing).
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

// Pass 2: per unit (singles, then groups) its slot row and ghost count. One warp (wavefront) per
// unit, its lanes over the unit's 27 or 64 slots and a group's 216 member-row entries, the ghost
// count a warp sum: one thread per unit did up to 64 lookups (neighbour-table walks, a hash probe
// where a path crosses a coarser region) in series, 72.6 us on the H200 for Sedov 64^3 + 2 (the
// largest regrid kernel). The warps stride over the units (the unit count is in the count words,
// the launch sized by the host's guess of it: any grid gives the same rows), and the entries
// nunit..bound are 0, so the scan over bound + 1 entries ends with the total at nunit.
inline constexpr int unit_slot_threads = 128;

// The step lists (amr_lists_body.hpp; the same passes as emulate_device_lists). A lane per cell:
// the eight lanes of oct o (o = g / 8) are an aligned group of eight in one warp, so three
// xor-shuffles within the group OR their leaf flags and face masks (a thread per oct ran the 48
// face lookups in series: 18.4 us, H200, Sedov 32^3 + 2).
inline constexpr int lists_threads = 128;

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
// step's scan writes one while the host reads the other. A set holds the
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

// Kernels launched from another phase file than their own.
// amr_gpu_leaf.cu
__global__ void ghost_kernel(const double* __restrict__ u, long long stride, GhostRange a, unsigned blocks_a,
                             GhostRange b, const std::int64_t* __restrict__ src, const std::uint8_t* __restrict__ flip,
                             double gamma, double* __restrict__ ghost);
// amr_gpu_reflux.cu
__global__ void reflux_restrict_kernel(unsigned reflux_blocks, long long nfaces, const RefluxFace* __restrict__ faces,
                                       const std::int8_t* __restrict__ level, const double* __restrict__ fine_flux,
                                       long long stride, double dt, const DeviceClock* __restrict__ clock, double dx0,
                                       long long first, long long last, const std::int64_t* __restrict__ cell,
                                       const std::int64_t* __restrict__ son, double* __restrict__ unew);
// amr_gpu_reflux.cu
__global__ void reflux_sums_kernel(long long nfaces, const RefluxFace* __restrict__ faces,
                                   const std::int8_t* __restrict__ level, const double* __restrict__ sum,
                                   long long stride, double dx0, double* __restrict__ unew);
// amr_gpu_reflux.cu
__global__ void restrict_kernel(long long first, long long last, const std::int64_t* __restrict__ cell,
                                const std::int64_t* __restrict__ son, long long stride, double* __restrict__ u);
// amr_gpu_reflux.cu
__global__ void commit_restrict_kernel(unsigned commit_blocks, long long nleaf,
                                       const std::int32_t* __restrict__ leaf_octs, const std::int32_t* __restrict__ son,
                                       long long stride, const double* __restrict__ unew, long long first,
                                       long long last, const std::int64_t* __restrict__ cell,
                                       const std::int64_t* __restrict__ cell_son, double* __restrict__ u);

class GpuAmrStep final : public DeviceStep {
 public:
  GpuAmrStep(const HydroParams& hp, bool reflux, bool subcycle, int group_min, RegridCapacity capacity);
  void upload(const Tree& t, const std::vector<double>& u) override;
  void upload_tree(const Tree& t);
  void upload_flags(const std::vector<char>& flag) override;
  bool rebuild(std::int64_t max_octs) override;
  void link() override;
  void adopt() override;
  const std::vector<std::int64_t>& level_begin() const override { return level_begin_; }

  // Counted by build_plan, which runs after every upload and adopt (the only changes of the tree),
  // and brought up with the plan's counts.
  std::vector<std::int64_t> leaf_cells_per_level() override { return leaf_cells_; }

  void download_tree(Tree& t) override;
  void download_map(RegridMap& m) override;
  const PlanCounts& counts() const override { return counts_; }
  long long regrid_fallbacks() const override { return regrid_fallbacks_; }

  void download_plan(StepPlan& p) override;
  void download_lists(StepLists& l) override;
  void download(std::vector<double>& u) override;
  void criterion(const RefineCriterion& rc, double gamma) override;
  void refinement_flags() override;
  void download_flags(std::vector<char>& flag) override { fetch(flag_, flag); }

  LeafScan scan() override;
  void time_phases(copa::Profile& p) override { phases_ = std::make_unique<copa::gpu::EventTimer>(p); }

  void advance(double dt) override;

  // The device dt: the clock set here, then every scan moves it on.
  bool queues_steps() const override { return true; }
  void start_clock(double time, double courant, double tend) override;
  void queue_step() override;
  LeafScan step_scan(double& device_dt) override;
  void wait_queued() override;
  void advance_subcycled(double dt0) override;
  // Over MPI ranks (DeviceStep::set_ranks): the hooks, the owned ranges, the lists and plan again.
  void set_ranks(const DeviceRanks* ranks) override { ranks_ = ranks; }
  void set_owned(const Tree& t) override;
  void replan() override;
  double* state() override { return u_.data(); }
  void rank_lists(RankLists& r) override;
  std::vector<std::int64_t> base_work(bool subcycle) override;
  void new_tree_keys(std::vector<std::uint64_t>& key, std::vector<std::int64_t>& level_begin) override {
    fetch(nkey_, key);
    copa::gpu::synchronize();
    level_begin = new_begin_;
  }
 private:
  // The lists_owns table on the device; null on one rank (every oct owned).
  const long long* owned() { return owned_table_.empty() ? nullptr : owned_.data(); }
  int launch_step(double dt, const DeviceClock* clock);
  void launch_units(const block::Args& a, long long nsingle, const std::int32_t* singles, long long ngroup,
                    const std::int32_t* groups, const std::int32_t* group_slots, const std::uint8_t* members,
                    const std::int8_t* edges, const double* u, double* unew);
  // How build_lists and build_plan size their launches and arrays:
  // exact, each count copied up once the device has it (a wait each: upload_tree, and the
  // fallback), or queued, by bounds and guesses the host has without waiting (adopt()).
  enum class Sizing { exact, queued };
  // The slack of a queued guess over a quarter more than the last count (queued_capacity): 1024
  // ghosts hold 8 * nvar * 1024 doubles (330 KB), so a small tree that grows a lot still fits.
  static constexpr long long queued_slack = 1024;
  void subcycle_level(int l, double dt, bool first_substep);
  void launch_ghosts(GhostRange a, GhostRange b);
  int launch_scan(long long first = 0, long long last = 0, bool step_ended = false);
  void drop_scans();
  void host_dt_only(const char* call) const;
  void end_regrid_part();
  void begin_phase(const char* name);
  void end_phase();
  void next_phase(const char* name);

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

  void build_lists(Sizing sizing);
  void build_plan(Sizing sizing);
  const long long* count_words_up(int end);
  long long restrict_pairs_from_words(const long long* h);
  void take_counts(const long long* h);
  long long queued_capacity(long long last) const;
  void finish_queued_build();
  void size_to_counts();
  void size_leaf_arrays(long long nleaf);
  void size_unit_arrays(long long nsingle, long long ngroup, long long nunit, long long npairs);
  void size_ghost_arrays(long long nghost);
  void exclusive_sum(const long long* in, long long* out, long long n);
  void exclusive_sum2(const long long* in_a, long long* out_a, const long long* in_b, long long* out_b, long long n);
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

  std::size_t tree_growth(const Tree& t) const;
  std::size_t step_growth(std::size_t n, std::size_t ncoarse) const;
  void prepare_step_buffers();
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
  // Over MPI ranks: the hooks and this rank's owned ranges (set_owned; empty: every oct).
  const DeviceRanks* ranks_ = nullptr;
  std::vector<long long> owned_table_;
  GrowArray<long long> owned_;
  // rank_lists: the marks or flags and their scan, the lists as they come up.
  GrowArray<long long> rank_flag_, rank_scan_;
  GrowArray<std::int32_t> rank_octs_;
  GrowArray<RefluxFace> rank_faces_;
  GrowArray<unsigned long long> base_work_;  // base_work: per base oct
};

}  // namespace ro::amr::gpu
