#include "amr/amr_rebuild.hpp"

#include <string>

#include "amr/amr_plan.hpp"
#include "amr/amr_rebuild_body.hpp"
#include "copa/errors.hpp"

namespace ro::amr {

void rebuild_layout(long long level0_octs, const std::vector<long long>& son_scan_at, std::int64_t max_octs,
                    std::vector<std::int64_t>& new_begin) {
  const int max_level = static_cast<int>(son_scan_at.size()) - 1;
  new_begin.assign(max_level + 2, 0);
  new_begin[1] = level0_octs;
  for (int l = 0; l < max_level; ++l) new_begin[l + 2] = new_begin[l + 1] + son_scan_at[l + 1] - son_scan_at[l];
  // rebuild_tree_unlinked refuses as soon as its count passes max_octs; the count only grows, so
  // that is when the total does.
  if (new_begin.back() > max_octs)
    throw copa::RuntimeError("amr: the refined grid needs more than --max-octs " + std::to_string(max_octs) +
                             " octs (regrid refused before allocating its state)");
}

void emulate_device_rebuild(const Tree& old, const std::vector<char>& flag, std::int64_t max_octs, Tree& out,
                            RegridMap& m) {
  const long long n_old = old.noct();
  const int L = old.max_level;
  const RebuildOld v{old.level.data(), old.key.data(), {old.coord[0].data(), old.coord[1].data(), old.coord[2].data()},
                     old.father.data(), old.son.data(), flag.data(), L};
  // Pass 1 and the two scans; the counts that come up: the sons scan at each old level's first
  // oct, and the rows.
  std::vector<long long> son_scan(n_old + 1, 0), created_scan(n_old + 1, 0);
  for (long long o = 0; o < n_old; ++o) rebuild_count(v, o, son_scan[o], created_scan[o]);
  exclusive_scan(son_scan);
  exclusive_scan(created_scan);
  std::vector<long long> scan_at(L + 1);
  for (int l = 0; l <= L; ++l) scan_at[l] = son_scan[old.level_begin[l]];
  const long long rows = created_scan[n_old];
  out = Tree();
  out.base = old.base;
  out.max_level = L;
  rebuild_layout(old.octs_at(0), scan_at, max_octs, out.level_begin);
  const long long n = out.level_begin.back();
  out.key.resize(n);
  out.level.resize(n);
  for (int a = 0; a < 3; ++a) out.coord[a].resize(n);
  out.father.resize(n);
  out.son.assign(8 * n, -1);
  m = RegridMap();
  m.old_noct = n_old;
  m.source.resize(n);
  m.src.resize(7 * rows);
  m.flip.resize(7 * rows);
  std::vector<std::int64_t> row_cell(rows);
  // Pass 2: the new octs and their construction links.
  const RebuildNew w{out.key.data(), out.level.data(), {out.coord[0].data(), out.coord[1].data(), out.coord[2].data()},
                     out.father.data(), out.son.data(), m.source.data(), row_cell.data()};
  LevelBegins old_begin{}, new_begin{};
  std::copy(old.level_begin.begin(), old.level_begin.end(), old_begin.v);
  std::copy(out.level_begin.begin(), out.level_begin.end(), new_begin.v);
  for (long long o = 0; o < n_old; ++o) rebuild_fill(v, o, son_scan.data(), created_scan.data(), old_begin, new_begin, w);
  // Pass 3: the rows' sources on the old tree.
  const PlanView old_view = plan_view(old);
  for (long long r = 0; r < rows; ++r)
    for (int k = 0; k < 7; ++k) rebuild_row_source(old_view, r, k, row_cell.data(), m.src.data(), m.flip.data());
  // Pass 4: the hash, in index order (the device's slots may differ; its lookups do not).
  hash_layout(out.level_begin, L, out.hash_begin, out.hash_shift);
  out.hash_slots.assign(out.hash_begin.back(), {Tree::empty_slot, -1});
  const std::int32_t* const coord[3] = {out.coord[0].data(), out.coord[1].data(), out.coord[2].data()};
  const std::vector<long long> hash_begin(out.hash_begin.begin(), out.hash_begin.end());
  for (long long o = 0; o < n; ++o)
    rebuild_hash_insert(out.hash_slots.data(), hash_begin.data(), out.hash_shift.data(), out.level.data(), coord, o,
                        [](std::uint64_t* slot, std::uint64_t p) {
                          if (*slot != Tree::empty_slot) return false;
                          *slot = p;
                          return true;
                        });
  // Pass 5: the neighbours of every (oct, face), by hash lookup.
  for (int f = 0; f < 6; ++f) out.nbor[f].assign(n, -1);
  const PlanView nv = plan_view(out);
  for (long long o = 0; o < n; ++o)
    for (int f = 0; f < 6; ++f) out.nbor[f][o] = rebuild_nbor_face(nv, o, f);
}

}  // namespace ro::amr
