// The regrid's tree rebuild (rebuild_tree_unlinked: new octs, RegridMap) and link (father, son,
// coordinate hash, neighbours) written once as host/device functions over raw tables, as the
// plan's (amr_plan_body.hpp): the device rebuild (amr_gpu.cu) and its host emulation
// (emulate_device_rebuild, amr_rebuild.cpp) call the same bodies in the same pass order, and the
// emulation must give rebuild_tree's tree and map field by field.
//
// Why the passes run over the OLD octs: rebuild_tree_unlinked walks the new levels top-down and
// appends, for each new oct that has an old oct, one son per flagged cell. A new oct of level l
// has an old oct exactly when that old oct survives: every cell on its father chain is flagged
// (rebuild_kept). The sons of level l + 1 come in the order of their fathers, which are the
// surviving old octs of level l in their (key) order, since created octs have no sons yet. So one
// exclusive scan over the old octs of (survives ? flagged cells : 0) places every new oct of every
// level at once, and a second scan of the flagged cells without an old son numbers the created
// octs (the map's rows) in new-oct order: no per-level round trip to the host.
#pragma once
#include <cstdint>

#include "amr/amr_plan_body.hpp"
#include "amr/amr_tree.hpp"

namespace ro::amr {

// The old tree as the rebuild reads it, with the refinement flags of its cells.
struct RebuildOld {
  const std::int8_t* level;
  const std::uint64_t* key;
  const std::int32_t* coord[3];
  const std::int32_t* father;
  const std::int32_t* son;
  const char* flag;
  int max_level;
};

// A tree's level bounds (level_begin or hash_begin: max_level + 2 entries), by value: the device
// passes them as kernel parameters (read through table_entry).
struct LevelBegins {
  long long v[max_levels + 2];
};

// The new tree's tables the rebuild writes (son and father: the links of the construction).
struct RebuildNew {
  std::uint64_t* key;
  std::int8_t* level;
  std::int32_t* coord[3];
  std::int32_t* father;
  std::int32_t* son;     // 8 per new oct, -1 before the fill
  std::int32_t* source;  // RegridMap::source
  std::int64_t* row_cell;  // per row (created oct): its old father cell
};

// Whether old oct o has a new oct: every cell on its father chain is flagged.
RO_HD bool rebuild_kept(const RebuildOld& v, long long o) {
  for (long long f = v.father[o]; f >= 0; f = v.father[f / 8])
    if (!v.flag[f]) return false;
  return true;
}

// Pass 1, per old oct (entry n is 0, so the scans end with the totals): its sons in the new tree
// (its flagged cells, if it survives and is below the finest level) and how many of them are
// created (no old son: a row of the map).
RO_HD void rebuild_count(const RebuildOld& v, long long o, long long& sons, long long& created) {
  sons = created = 0;
  if (v.level[o] >= v.max_level || !rebuild_kept(v, o)) return;
  for (int c = 0; c < 8; ++c)
    if (v.flag[o * 8 + c]) {
      ++sons;
      created += v.son[o * 8 + c] < 0;
    }
}

// The new index of surviving old oct o: level 0 keeps its index; above, it is the son of its
// father cell's oct F, placed by F's entry of the sons scan and the flagged cells of F before it.
// old_begin, new_begin: the old and new trees' level_begin.
RO_HD long long rebuild_new_index(const RebuildOld& v, long long o, const long long* son_scan,
                                  const LevelBegins& old_begin, const LevelBegins& new_begin) {
  const int l = v.level[o];
  if (l == 0) return o;
  const long long f = v.father[o] / 8;
  const int fc = int(v.father[o] % 8);
  long long i = table_entry(new_begin.v, l) + son_scan[f] - son_scan[table_entry(old_begin.v, l - 1)];
  for (int c = 0; c < fc; ++c) i += v.flag[f * 8 + c] != 0;
  return i;
}

// Pass 2, per old oct o that survives: a level-0 oct copies itself; then each flagged cell c (in
// order) gets its son: key * 8 + c, coordinates 2 x + c's bits, the next level, source = the old
// son or -1 - row (a created oct, whose old father cell its row keeps), and the links father and
// son of the new tree.
RO_HD void rebuild_fill(const RebuildOld& v, long long o, const long long* son_scan, const long long* created_scan,
                        const LevelBegins& old_begin, const LevelBegins& new_begin, const RebuildNew& w) {
  const int l = v.level[o];
  if (l == 0) {
    w.key[o] = v.key[o];
    w.level[o] = 0;
    for (int a = 0; a < 3; ++a) w.coord[a][o] = v.coord[a][o];
    w.father[o] = -1;
    w.source[o] = static_cast<std::int32_t>(o);
  }
  if (l >= v.max_level || son_scan[o + 1] == son_scan[o]) return;
  const long long p = rebuild_new_index(v, o, son_scan, old_begin, new_begin);
  long long j = table_entry(new_begin.v, l + 1) + son_scan[o] - son_scan[table_entry(old_begin.v, l)];
  long long row = created_scan[o];
  for (int c = 0; c < 8; ++c) {
    if (!v.flag[o * 8 + c]) continue;
    const std::int32_t old_son = v.son[o * 8 + c];
    w.key[j] = v.key[o] * 8 + c;
    w.level[j] = static_cast<std::int8_t>(l + 1);
    w.coord[0][j] = 2 * v.coord[0][o] + (c & 1);
    w.coord[1][j] = 2 * v.coord[1][o] + ((c >> 1) & 1);
    w.coord[2][j] = 2 * v.coord[2][o] + (c >> 2);
    w.father[j] = static_cast<std::int32_t>(p * 8 + c);
    w.son[p * 8 + c] = static_cast<std::int32_t>(j);
    if (old_son >= 0) {
      w.source[j] = old_son;
    } else {
      w.source[j] = static_cast<std::int32_t>(-1 - row);
      w.row_cell[row++] = o * 8 + c;
    }
    ++j;
  }
}

// Pass 3, per (row r, source k): source k of the seven old cells the created oct's prolongation
// reads (k = 0 the old father cell, then its -x, +x, -y, +y, -z, +z face neighbours, located on
// the OLD tree as rebuild_tree_unlinked's locate() does) and its momentum flips. One source per
// call: the device runs a thread per (row, source), as the seven locates of a row are independent
// chains of hash probes (a thread per row ran them in series: 10.7 us for a few hundred rows in
// two blocks, H200, Sedov 32^3 + 2).
RO_HD void rebuild_row_source(const PlanView& old, long long r, int k, const std::int64_t* row_cell, std::int64_t* src,
                              std::uint8_t* flip) {
  const long long fc = row_cell[r];
  const long long o = fc / 8;
  const int c = int(fc % 8);
  const int l = old.t.level[o];
  int q[3] = {2 * old.t.coord[0][o] + (c & 1), 2 * old.t.coord[1][o] + ((c >> 1) & 1),
              2 * old.t.coord[2][o] + (c >> 2)};
  if (k > 0) q[(k - 1) / 2] += (k - 1) % 2 ? 1 : -1;
  long long cell;
  int level;
  bool f[3];
  view_locate(old, l, q, cell, level, f);
  src[7 * r + k] = cell;
  flip[7 * r + k] = static_cast<std::uint8_t>(f[0] | (f[1] << 1) | (f[2] << 2));
}

// Pass 4, per new oct o: its entry in its level's coordinate hash (the sizes of build_index),
// linear probing from the hash; claim(slot's packed word, p) takes an empty slot for p or fails
// (the device: atomicCAS, so the slots taken depend on the schedule; a lookup does not, as
// Tree::probe stops at the key or at an empty slot and every inserted key lies on its probe path).
template <class Claim>
RO_HD void rebuild_hash_insert(Tree::HashEntry* slots, const long long* hash_begin, const int* hash_shift,
                               const std::int8_t* level, const std::int32_t* const coord[3], long long o,
                               Claim&& claim) {
  const int l = level[o];
  Tree::HashEntry* s = slots + hash_begin[l];
  const std::uint64_t mask = static_cast<std::uint64_t>(hash_begin[l + 1] - hash_begin[l] - 1);
  const std::uint64_t p = Tree::pack(coord[0][o], coord[1][o], coord[2][o]);
  std::uint64_t h = Tree::hash(p, hash_shift[l]);
  while (!claim(&s[h].packed, p)) h = (h + 1) & mask;
  s[h].oct = static_cast<std::int32_t>(o);
}

// Pass 5, per (new oct o, face f), every level at once: the oct of o's level holding the cell
// beyond the face after the boundary mapping, by hash lookup (-1 where there is none; o itself
// across a reflecting or outflow domain face, whose mapped cell lies in o). This equals the former
// rule above level 0, "the son of the father cell's same-level neighbour": an oct of level l at
// oct coordinates X exists exactly when the cell X of level l - 1 exists and is refined (its son),
// and a missing level l - 1 neighbour means no level l oct there either. The hash needs no other
// level's links, so the device links all levels in one launch of a thread per (oct, face) instead
// of a launch per level in series (three launches of 9.7-10.4 us each, H200, Sedov 32^3 + 2).
// The face is a template argument (the callers switch on it) so that the axis indexes the view's
// tables at compile time (a run-time axis gave the device kernel a 64-byte stack frame).
template <int F>
RO_HD std::int32_t rebuild_nbor_face(const PlanView& v, long long o) {
  constexpr int a = F / 2;
  const int l = v.t.level[o];
  int ic[3] = {2 * v.t.coord[0][o], 2 * v.t.coord[1][o], 2 * v.t.coord[2][o]};
  ic[a] += F % 2 ? 2 : -1;
  bool flip;
  view_map_cell_axis(v, l, a, ic[a], flip);
  return view_find_oct(v, l, ic[0] >> 1, ic[1] >> 1, ic[2] >> 1);
}

// The same for a run-time face (the host's loops; the device kernel switches itself, so that its
// store's face is compile-time too).
RO_HD std::int32_t rebuild_nbor_face(const PlanView& v, long long o, int f) {
  std::int32_t nb = -1;
  with_face(f, [&](auto face) { nb = rebuild_nbor_face<decltype(face)::value>(v, o); });
  return nb;
}

}  // namespace ro::amr
