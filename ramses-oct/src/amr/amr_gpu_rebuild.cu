// The new tree on the device: sons counted and placed level by level, keys hashed, neighbour
// links found, and the state moved onto it (amr_rebuild_body.hpp, amr_regrid_body.hpp).
#include "amr/amr_gpu_step.cuh"

namespace ro::amr::gpu {

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

// Passes 1-3 of the device rebuild (amr_rebuild_body.hpp): counts, one pair scan of both
// counts (exclusive_sum2), one copy up of the level sizes and rows, the refusal over max_octs
// and the memory check (the new tables beside the current ones, the map, the new state), then
// the clears, the fill, and the rows' sources beside the new hash's inserts.
bool GpuAmrStep::rebuild(std::int64_t max_octs) {
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
void GpuAmrStep::link() {
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
// of the lists and plan come up there (finish_queued_build).
void GpuAmrStep::adopt() {
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

void GpuAmrStep::download_map(RegridMap& m) {
  m.old_noct = map_old_noct_;
  fetch(source_, m.source);
  fetch(move_src_, m.src);
  fetch(move_flip_, m.flip);
}

}  // namespace ro::amr::gpu
