// The device-resident AMR step: upload and download of state and tree, the global step (ghosts,
// leaf update, reflux and finest restriction, coarser restrictions and the next scan), the
// subcycled step level by level, and the phase timing.
#include "amr/amr_gpu_step.cuh"

namespace ro::amr::gpu {


void GpuAmrStep::upload(const Tree& t, const std::vector<double>& u) {
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
void GpuAmrStep::upload_tree(const Tree& t) {
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

void GpuAmrStep::set_owned(const Tree& t) {
  owned_table_ = owned_table(t);
  if (owned_table_.empty()) return;
  char* h = staging_.reserve(owned_table_.size() * sizeof(long long));
  std::size_t at = 0;
  put(h, at, owned_, owned_table_);
  copa::gpu::synchronize();
}

// The lists and plan of the current tree built again over the owned ranges set_owned gave (exact
// sizes: a re-cut is rare), as upload_tree ends; the next scan() runs its own.
void GpuAmrStep::replan() {
  drop_scans();
  build_lists(Sizing::exact);
  build_plan(Sizing::exact);
  copa::gpu::synchronize();
}

// Every table through the pinned staging buffer (a pageable copy runs at a fraction of the
// link's speed; the driver calls this for a bad cell's report and the end of the run only).
void GpuAmrStep::download_tree(Tree& t) {
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

void GpuAmrStep::download(std::vector<double>& u) {
  u.resize(u_.size());
  char* h = staging_.reserve(u_.bytes());
  copa::gpu::copy_to_host(h, u_.data(), u_.bytes());
  std::memcpy(u.data(), h, u_.bytes());
}

// The step's launches: ghosts, leaf update, the reflux with
// the finest restriction, one launch per middle level, and the coarsest restriction with the
// next step's scan (the scan alone where the coarsest restriction is the finest, whose launch
// the reflux shares, or where there is none): 4 launches for one or two refined levels, L + 2
// for L >= 2, against L + 6 operations before (the reflux, one launch per level, a memset, the
// scan, a copy).
void GpuAmrStep::advance(double dt) {
  host_dt_only("advance");
  drop_scans();  // held again only once the step and its scan have finished
  const int set = launch_step(dt, nullptr);
  copa::gpu::synchronize();
  if (phases_) phases_->flush();
  next_scan_.hold(leaf_scan_from_words(scan_words_.host(set), max_level_ + 1));
}

// The step with the clock's dt queued behind the scan it starts from (one of the current state
// is queued first where none is: after an upload), then its own scan, which moves the clock on
// to the next step; no wait.
void GpuAmrStep::queue_step() {
  if (!clock_on_) throw std::logic_error("ramses-oct AMR: queue_step before start_clock");
  if (latest_scan_ < 0) launch_scan();
  step_start_scan_ = latest_scan_;
  next_scan_.drop();
  launch_step(0.0, clock_.data());
}

void GpuAmrStep::wait_queued() {
  if (latest_scan_ >= 0) scan_done_[latest_scan_].wait();
}

// The recursion of amr_subcycle.cpp's amr_step with the device plan's per-level ranges: no copy
// and no wait inside the coarse step, then the next scan as advance() ends.
void GpuAmrStep::advance_subcycled(double dt0) {
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

// The step's launches with dt, or with the clock's (clock non-null: dt unused); returns the
// set of its scan's words.
int GpuAmrStep::launch_step(double dt, const DeviceClock* clock) {
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
  // Over ranks: the fine fluxes of other ranks' octs beside this rank's coarse cells, on this
  // stream before the reflux reads them (the exchange packs after the update and unpacks before
  // it returns).
  if (ranks_ && ranks_->fluxes) ranks_->fluxes(-1, fine_flux_.data());
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

// amr_step(l, dt) on the device: the finer level's two substeps first; then level l's ghost
// slots from the current u (level l - 1 at its old time), its units with dt (the global step's
// kernel over the level's slices of singles and groups, which for l >= 1 also adds the
// substep's kept fine fluxes times dt into the sums, starting them on the first of its two
// substeps (first_substep): no launch of its own), the reflux of its coarse cells from level
// l + 1's sums (factor 1 / dx_l: reflux_cell with dt = 1), its leaf cells committed (unew -> u)
// and level l + 1 restricted into its covered cells in one launch (the finest level instead
// alternates u and unew between its two substeps: pingpong below).
void GpuAmrStep::subcycle_level(int l, double dt, bool first_substep) {
  const bool finer = l < max_level_ && level_begin_[l + 2] > level_begin_[l + 1];
  if (finer) {
    subcycle_level(l + 1, 0.5 * dt, true);
    subcycle_level(l + 1, 0.5 * dt, false);
  }
  const PlanLevels& lv = counts_.levels;
  const long long stride = noct_ * 8;
  // The finest level's two substeps (l >= 1 with no finer level) ping-pong: the first reads u
  // and writes unew, the second reads unew and writes u, and neither commits. Nothing reads
  // this level between them (its update reads only its own octs and the ghost slots, prolonged
  // from coarser levels), and it has no covered cells to restrict nor faces to reflux. The commit
  // copied every leaf cell of the level back at each substep: 0.55 of 13.7 ms per coarse step
  // (Sedov 128^3 + 2 on the H200, results/h200/20261130-3).
  const bool pingpong = !finer && l > 0;
  double* in = pingpong && !first_substep ? unew_.data() : u_.data();
  double* out = pingpong && !first_substep ? u_.data() : unew_.data();
  // Over ranks: level l's ghost octs in the state this substep reads (DeviceRanks::ghosts).
  if (ranks_ && ranks_->ghosts) ranks_->ghosts(l, in);
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
  const long long s0 = lv.single_begin[l], nsingle = lv.single_begin[l + 1] - s0;
  const long long g0 = lv.group_begin[l], ngroup = lv.group_begin[l + 1] - g0;
  launch_units(a, nsingle, singles_.data() + s0, ngroup, groups_.data() + g0, group_slots_.data() + 64 * g0,
               group_members_.data() + g0, group_edges_.data() + 6 * g0, in, out);
  if (pingpong) return;
  const long long i0 = lv.leaf_begin[l], nleaf = lv.leaf_begin[l + 1] - i0;
  if (finer && reflux_) {
    // Over ranks: the sums of other ranks' fine octs beside this rank's coarse cells of level l.
    if (ranks_ && ranks_->fluxes) ranks_->fluxes(l, flux_sum_.data());
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

// The host-dt steps take their dt from the host; with the clock on the clock would go stale.
void GpuAmrStep::host_dt_only(const char* call) const {
  if (clock_on_)
    throw std::logic_error(std::string("ramses-oct AMR: ") + call + " (host dt) on a step whose device clock is on");
}

// The end of a regrid part (criterion, rebuild, link, adopt): the device's work is waited for
// only when the parts are timed (--phase-timing: the driver's regrid.* rows); otherwise the
// next part's launches queue behind it on the same stream, and a part that needs a count waits
// in its copy (~10 us of drained pipeline and launch latency saved per part on the H200).
void GpuAmrStep::end_regrid_part() {
  if (phases_) copa::gpu::synchronize();
}

// --phase-timing (time_phases): one event-timed region per phase of advance(), phases back to
// back; without it nothing is recorded.
void GpuAmrStep::begin_phase(const char* name) {
  if (phases_) phases_->begin(name);
}

void GpuAmrStep::end_phase() {
  if (phases_) phases_->end();
}

void GpuAmrStep::next_phase(const char* name) {
  end_phase();
  begin_phase(name);
}

// Device bytes an upload of this tree would add to what the arrays hold now: its tables, the
// lists' workspace, and the plan's arrays and workspace whose sizes the tree gives (per leaf oct,
// per coarse oct), with every oct counted as a leaf oct (an upper bound: the host no longer
// counts them); build_lists and build_plan check the rest once the device counted it.
std::size_t GpuAmrStep::tree_growth(const Tree& t) const {
  const std::size_t n = static_cast<std::size_t>(t.noct());
  std::size_t g = key_.growth(n) + level_.growth(n) + son_.growth(8 * n) + father_.growth(n) +
                  hash_.growth(t.hash_slots.size()) + step_growth(n, t.level_begin[t.max_level]);
  for (int a = 0; a < 3; ++a) g += coord_[a].growth(n);
  for (int f = 0; f < 6; ++f) g += nbor_[f].growth(n);
  return g;
}

// The fine-flux buffer and the lists' and plan's arrays whose sizes the tree gives (n octs,
// ncoarse below the finest level), every oct counted as a leaf oct.
std::size_t GpuAmrStep::step_growth(std::size_t n, std::size_t ncoarse) const {
  const std::size_t nleaf = n;
  return fine_flux_.growth(n * fine_flux_per_oct) + leaf_octs_.growth(nleaf) + leaf_flag_.growth(n + 1) + leaf_scan_.growth(n + 1) + face_mask_.growth(ncoarse) +
                  face_flag_.growth(n + 1) + face_scan_.growth(n + 1) + slots_.growth(27 * nleaf) + edges_.growth(6 * nleaf) +
                  skip_.growth(nleaf) + keep_.growth(nleaf) + head_.growth(nleaf) + single_flag_.growth(nleaf + 1) +
                  head_flag_.growth(nleaf + 1) + single_scan_.growth(nleaf + 1) + group_scan_.growth(nleaf + 1) +
                  restrict_count_.growth(ncoarse + 1) + restrict_scan_.growth(ncoarse + 1) +
         (subcycle_ ? flux_sum_.growth(n * fine_flux_per_oct) : 0) + 4096;
}

// The flux buffers sized and the dt scan's words zeroed for the current tree (noct_, max_level_).
void GpuAmrStep::prepare_step_buffers() {
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

}  // namespace ro::amr::gpu

namespace ro::amr {

std::unique_ptr<DeviceStep> make_gpu_amr_step(const HydroParams& hp, bool reflux, bool subcycle, int group_min,
                                              RegridCapacity capacity) {
  return std::make_unique<gpu::GpuAmrStep>(hp, reflux, subcycle, group_min, capacity);
}

}  // namespace ro::amr
