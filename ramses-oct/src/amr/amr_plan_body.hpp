// The step plan's per-element work (amr_plan.hpp) written once as host/device functions over
// raw tables: the host plan (build_step_plan, serial or OpenMP) and the device plan build
// (amr_gpu.cu: one kernel per pass, CUB scans between) call the same bodies, so both give the same
// plan field by field. The lookups the plan needs (find_oct
// through the per-level coordinate hash, locate, the 27 oct slots, a ghost slot's seven coarse
// sources) are the host tree's functions rewritten over the view.
#pragma once
#include <climits>
#include <cstdint>

#include "amr/amr_lists_body.hpp"
#include "amr/amr_members.hpp"
#include "amr/amr_regrid_body.hpp"
#include "amr/amr_tree.hpp"

namespace ro::amr {

// The GPU gather reads no cell of the 8 corner slots of a leaf oct's 27 (block::Q): they get
// no ghost and hold no_slot (38% fewer ghost slots to prolong in the Sedov 8^3 + 2 levels tree
// of amr_gpu_body_emulation_equals_serial, 44% in its Sod tree).
constexpr bool is_corner_slot(int s) { return s % 3 != 1 && (s / 3) % 3 != 1 && s / 9 != 1; }

// The tree as the plan reads it: the link tables, the son table and the levels' coordinate
// hash tables (Tree::hash_slots, level l's from hash_begin[l]).
struct PlanView {
  TreeView t;
  const std::int32_t* son;
  const Tree::HashEntry* hash;
  long long hash_begin[max_levels + 2];
  int hash_shift[max_levels + 1];
};

RO_HD int view_cells_at(const PlanView& v, int l, int a) { return v.t.base_cells[a] << l; }

// Tree::find_oct on the view: the same probe (Tree::probe), so the same oct.
RO_HD std::int32_t view_find_oct(const PlanView& v, int l, int x, int y, int z) {
  const long long begin = table_entry(v.hash_begin, l);
  const std::uint64_t mask = static_cast<std::uint64_t>(table_entry(v.hash_begin, l + 1) - begin - 1);
  return Tree::probe(v.hash + begin, mask, table_entry(v.hash_shift, l), x, y, z);
}

// map_cell_axis (amr_tree.hpp) on the view.
RO_HD void view_map_cell_axis(const PlanView& v, int l, int a, int& i, bool& flip) {
  map_axis(view_cells_at(v, l, a), v.t.bc[a], i, flip);
}

// locate (amr_tree.hpp) on the view: the finest existing cell containing cell ic of level l after
// the boundary mapping; cell = -1 only for a broken tree (no level-0 oct), which the host checks.
RO_HD void view_locate(const PlanView& v, int l, const int ic_in[3], long long& cell, int& level, bool flip[3]) {
  int ic[3] = {ic_in[0], ic_in[1], ic_in[2]};
  for (int a = 0; a < 3; ++a) view_map_cell_axis(v, l, a, ic[a], flip[a]);
  cell = -1;
  level = -1;
  for (int m = l; m >= 0; --m) {
    const int s = l - m;
    const int x = ic[0] >> s, y = ic[1] >> s, z = ic[2] >> s;
    const std::int32_t o = view_find_oct(v, m, x >> 1, y >> 1, z >> 1);
    if (o >= 0) {
      cell = (long long)o * 8 + (x & 1) + 2 * (y & 1) + 4 * (z & 1);
      level = m;
      return;
    }
  }
}

// The integer coordinates at level l of slot s (0..26, x fastest) around the oct at oc, as in
// Stepper::update_oct: the oct itself across a reflecting/outflow face, periodic faces wrap.
RO_HD void view_slot_coords(const PlanView& v, int l, const int oc[3], int s, int c[3]) {
  const int off[3] = {s % 3 - 1, (s / 3) % 3 - 1, s / 9 - 1};
  for (int a = 0; a < 3; ++a) {
    const int n = view_cells_at(v, l, a) / 2;
    c[a] = oc[a] + off[a];
    if (c[a] < 0 || c[a] >= n) c[a] = v.t.bc[a] == static_cast<int>(Boundary::periodic) ? (c[a] + n) % n : oc[a];
  }
}

// Slot s of oct o through the neighbour tables one axis at a time (the axes map independently,
// so the path ends at the slot); a hash lookup only where the path crosses a coarser region.
// -1: the slot lies in a coarser leaf (a ghost slot).
RO_HD std::int32_t view_slot_oct(const PlanView& v, std::int32_t o, int s) {
  const int off[3] = {s % 3 - 1, (s / 3) % 3 - 1, s / 9 - 1};
  std::int32_t via = o;
  for (int a = 0; a < 3 && via >= 0; ++a)
    if (off[a] != 0) via = v.t.nbor[face_index(a, off[a] > 0)][via];
  if (via >= 0) return via;
  const int l = v.t.level[o];
  const int oc[3] = {v.t.coord[0][o], v.t.coord[1][o], v.t.coord[2][o]};
  int c[3];
  view_slot_coords(v, l, oc, s, c);
  return view_find_oct(v, l, c[0], c[1], c[2]);
}

// The coarse cell cc (level l - 1 coordinates: the oct coordinates of a level-l slot) of a
// ghost slot and its six face neighbours (7 sources and flips): through the neighbour table where
// a neighbour exists on the coarse cell's level (only an axis that leaves the domain through a
// reflecting face flips), else located.
RO_HD void view_ghost_sources_at(const PlanView& v, int l, const int cc[3], std::int64_t* src_out,
                                 std::uint8_t* flip_out) {
  long long centre;
  int centre_level;
  bool centre_flip[3];
  view_locate(v, l - 1, cc, centre, centre_level, centre_flip);
  for (int k = 0; k < 7; ++k) {
    long long cell = centre;
    bool flip[3] = {centre_flip[0], centre_flip[1], centre_flip[2]};
    if (k > 0) {
      const int a = (k - 1) / 2;
      int q[3] = {cc[0], cc[1], cc[2]};
      q[a] += (k - 1) % 2 ? 1 : -1;
      const long long nb = centre_level == l - 1 && centre >= 0
                               ? view_same_level_neighbour(v.t, centre / 8, int(centre % 8), a, (k - 1) % 2)
                               : -1;
      if (nb >= 0) {
        cell = nb;
        flip[a] = (q[a] < 0 || q[a] >= view_cells_at(v, l - 1, a)) && v.t.bc[a] == static_cast<int>(Boundary::reflecting);
      } else {
        int level;
        view_locate(v, l - 1, q, cell, level, flip);
      }
    }
    src_out[k] = cell;
    flip_out[k] = static_cast<std::uint8_t>(flip[0] | (flip[1] << 1) | (flip[2] << 2));
  }
}

// Ghost slot s of oct o: view_ghost_sources_at the slot's coordinates.
RO_HD void view_ghost_sources(const PlanView& v, std::int32_t o, int s, std::int64_t* src_out, std::uint8_t* flip_out) {
  const int l = v.t.level[o];
  const int oc[3] = {v.t.coord[0][o], v.t.coord[1][o], v.t.coord[2][o]};
  int cc[3];
  view_slot_coords(v, l, oc, s, cc);
  view_ghost_sources_at(v, l, cc, src_out, flip_out);
}

// Partial sibling groups. The aligned 2 x 2 x 2 block of
// octs of one level that oct o lies in (its coordinates >> 1; above level 0 the 8 sons of one
// father oct) and o's member index in it (x fastest).
RO_HD int plan_block_member(const PlanView& v, std::int32_t o) {
  return (v.t.coord[0][o] & 1) + 2 * (v.t.coord[1][o] & 1) + 4 * (v.t.coord[2][o] & 1);
}

// Leaf i continues the run of leaf i - 1: the same level and block, a higher member index (key
// order within a block is member order, so a block's leaf octs form one run; that the run is the
// whole block is not relied on).
RO_HD bool plan_run_continues(const PlanView& v, const std::int32_t* leaf_octs, long long i) {
  if (i <= 0) return false;
  const std::int32_t a = leaf_octs[i - 1], b = leaf_octs[i];
  if (v.t.level[a] != v.t.level[b]) return false;
  for (int d = 0; d < 3; ++d)
    if ((v.t.coord[d][a] >> 1) != (v.t.coord[d][b] >> 1)) return false;
  return plan_block_member(v, b) > plan_block_member(v, a);
}

// The boundary kinds of the block of a group whose first leaf oct is o (lo x, y, z, hi x, y, z):
// from the block's coordinates, since an absent corner member leaves no leaf oct to take them
// from (for a complete group they equal its first oct's low and its last oct's high kinds).
RO_HD void plan_group_edges(const PlanView& v, std::int32_t o, std::int8_t* edges) {
  const int l = v.t.level[o];
  for (int a = 0; a < 3; ++a) {
    const int n = view_cells_at(v, l, a) / 2, lo = (v.t.coord[a][o] >> 1) << 1;
    edges[a] = static_cast<std::int8_t>(lo == 0 ? v.t.bc[a] : 0);
    edges[3 + a] = static_cast<std::int8_t>(lo + 1 == n - 1 ? v.t.bc[a] : 0);
  }
}

// The oct coordinates of group slot s (0..63, x fastest) of the block whose first leaf oct is o:
// the block origin plus s's offset (-1..2 per axis), wrapped across periodic faces and clamped to
// the domain across reflecting and outflow ones (view_slot_coords at distance one).
RO_HD void group_slot_coords(const PlanView& v, std::int32_t o, int s, int c[3]) {
  const int l = v.t.level[o];
  const int gs[3] = {s % 4, (s / 4) % 4, s / 16};
  for (int a = 0; a < 3; ++a) {
    const int n = view_cells_at(v, l, a) / 2;
    c[a] = ((v.t.coord[a][o] >> 1) << 1) + gs[a] - 1;
    if (c[a] < 0 || c[a] >= n)
      c[a] = v.t.bc[a] == static_cast<int>(Boundary::periodic) ? (c[a] + n) % n : (c[a] < 0 ? 0 : n - 1);
  }
}

// Group slot s (0..63, 4^3 oct slots x fastest) of a group whose 8 member octs are members[]
// (x fastest): false for the 8 corner slots (never read); otherwise the member next to the slot
// and that member's own slot (0..26) that is the same oct slot, so a group reads exactly the
// octs and ghost cells its members would read alone.
RO_HD bool group_slot_member(const std::int32_t* members, int s, std::int32_t& member, int& slot27) {
  const int gs[3] = {s % 4, (s / 4) % 4, s / 16};
  int m = 0;
  bool corner = true;
  slot27 = 0;
  for (int a = 2; a >= 0; --a) {
    const int pos = gs[a] >= 2 ? 1 : 0;  // the member's position along a: slots 0, 1 -> 0; 2, 3 -> 1
    m = 2 * m + pos;
    slot27 = 3 * slot27 + gs[a] - pos;  // the slot's offset from that member, + 1
    corner = corner && (gs[a] == 0 || gs[a] == 3);
  }
  member = members[m];
  return !corner;
}

// Group slot s of a group whose leaf members are mask's bits, the leaf octs from members[0] on
// (member m at members[member_rank(mask, m)]): false for a corner slot; otherwise true, with
// member >= 0 a present leaf member that has the slot in its own 27-neighbourhood and slot27 that
// slot (group_slot_member's member first, so a complete group reads its slots as before), or
// member = -1 where no present leaf member is next to the slot.
RO_HD bool group_slot_leaf_member(const std::int32_t* members, unsigned mask, int s, std::int32_t& member,
                                  int& slot27) {
  const int gs[3] = {s % 4, (s / 4) % 4, s / 16};
  if ((gs[0] == 0 || gs[0] == 3) && (gs[1] == 0 || gs[1] == 3) && (gs[2] == 0 || gs[2] == 3)) return false;
  // Per axis the preferred member position (gs >= 2) and, for the slots 1 and 2 that two
  // positions reach, the other one; the eight choices in a fixed order.
  for (int choice = 0; choice < 8; ++choice) {
    int m = 0, s27 = 0;
    bool valid = true;
    for (int a = 2; a >= 0 && valid; --a) {
      int pos = gs[a] >= 2 ? 1 : 0;
      if ((choice >> a) & 1) {
        valid = gs[a] == 1 || gs[a] == 2;
        pos = 1 - pos;
      }
      m = 2 * m + pos;
      s27 = 3 * s27 + gs[a] - pos;
    }
    if (!valid || !((mask >> m) & 1u)) continue;
    member = members[member_rank(mask, m)];
    slot27 = s27;
    return true;
  }
  member = -1;
  slot27 = 0;
  return true;
}

// Pass 1, per leaf oct i: its boundary kinds (edges[6 i..]), the faces of its leaf cells next to
// a refined cell of the same level (skip: they take no flux, the reflux adds it), the faces
// whose fine fluxes are kept (keep: a coarser region beyond), head: the member mask of the
// sibling group that starts at i, 0 for none. A group starts at i where leaf i does not continue a
// run (plan_run_continues) and the run from i, at most 8 leaf octs of one aligned 2 x 2 x 2
// block, holds at least group_min of them (1..8; 0 or more than 8: no groups); on level 0 the
// block must lie inside the domain (an odd number of base octs per axis leaves a partial block).
// The skip mask is the step lists' reflux-face mask of the oct (lists_face_mask: the same faces,
// the coarse side of each coarse-fine face; none on the finest level, below ncoarse): the device
// passes the lists' face_mask (computed a lane per cell just before, so the 48 lookups are not
// run again by a thread per leaf oct in series), the host null, and the mask is computed here.
RO_HD void plan_leaf_entries(const PlanView& v, const std::int32_t* leaf_octs, long long nleaf, long long i, bool reflux,
                             int group_min, const std::uint64_t* face_mask, long long ncoarse, std::int8_t* edges,
                             std::uint64_t* skip_out, std::uint8_t* keep_out, std::uint8_t* head_out) {
  const std::int32_t o = leaf_octs[i];
  const int l = v.t.level[o];
  const int oc[3] = {v.t.coord[0][o], v.t.coord[1][o], v.t.coord[2][o]};
  for (int side = 0; side < 2; ++side)
    for (int a = 0; a < 3; ++a) {
      const int n = view_cells_at(v, l, a) / 2;
      const bool at = side == 0 ? oc[a] == 0 : oc[a] == n - 1;
      edges[6 * i + 3 * side + a] = static_cast<std::int8_t>(at ? v.t.bc[a] : 0);
    }
  skip_out[i] = !reflux || o >= ncoarse ? 0 : face_mask ? face_mask[o] : lists_face_mask(v.t, v.son, o);
  std::uint8_t keep = 0;
  for (int f = 0; f < 6 && l > 0; ++f)
    if (v.t.nbor[f][o] < 0) keep |= static_cast<std::uint8_t>(1 << f);
  keep_out[i] = keep;
  bool head = group_min >= 1 && group_min <= 8 && !plan_run_continues(v, leaf_octs, i);
  for (int a = 0; a < 3 && head; ++a) head = ((oc[a] >> 1) << 1) + 1 < view_cells_at(v, l, a) / 2;
  unsigned mask = 1u << plan_block_member(v, o);
  int members = 1;
  for (long long k = i + 1; head && k < nleaf && plan_run_continues(v, leaf_octs, k); ++k, ++members)
    mask |= 1u << plan_block_member(v, leaf_octs[k]);
  head_out[i] = static_cast<std::uint8_t>(head && members >= group_min ? mask : 0u);
}

// The singles/groups split without a serial walk: leaf i is in a group exactly when the run
// through i (plan_run_continues back from i, at most 7 steps: member indices increase) starts at
// a head; heads of other blocks nearby do not matter. Every leaf decides alone; exclusive scans
// of the single and head flags then number the singles and the groups in leaf order.
RO_HD bool plan_is_single(const PlanView& v, const std::int32_t* leaf_octs, const std::uint8_t* head, long long i) {
  for (long long k = i;; --k) {
    if (head[k]) return false;
    if (!plan_run_continues(v, leaf_octs, k)) return true;
  }
}

// After the exclusive scans of the single flags and the head flags: leaf i's place in singles or
// groups; a head also writes its group's member mask and block boundary kinds.
RO_HD void plan_split_scatter(const PlanView& v, const std::int32_t* leaf_octs, const std::uint8_t* head, long long i,
                              const long long* single_scan, const long long* group_scan, std::int32_t* singles,
                              std::int32_t* groups, std::uint8_t* group_members, std::int8_t* group_edges) {
  if (head[i]) {
    const long long g = group_scan[i];
    groups[g] = static_cast<std::int32_t>(i);
    group_members[g] = head[i];
    plan_group_edges(v, leaf_octs[i], group_edges + 6 * g);
  } else if (single_scan[i + 1] > single_scan[i]) {
    singles[single_scan[i]] = static_cast<std::int32_t>(i);
  }
}

// The lookup of slot s of unit u (singles first, then groups): false where the unit has no slot
// there (corners); else oct >= 0, whose own slot s27 it is (a single's oct, or a present leaf
// member of the group next to the slot), or oct = -1: a partial group's slot next to none of its
// leaf octs (plan_unit_slot_entry).
RO_HD bool plan_unit_slot(const std::int32_t* leaf_octs, const std::int32_t* singles, const std::int32_t* groups,
                          const std::uint8_t* group_members, long long nsingle, long long u, int s, std::int32_t& oct,
                          int& s27) {
  if (u < nsingle) {
    oct = leaf_octs[singles[u]];
    s27 = s;
    return !is_corner_slot(s);
  }
  const long long g = u - nsingle;
  return group_slot_leaf_member(leaf_octs + groups[g], group_members[g], s, oct, s27);
}

RO_HD int plan_unit_slot_count(long long u, long long nsingle) { return u < nsingle ? 27 : 64; }

RO_HD std::int32_t* plan_unit_row(std::int32_t* slots, std::int32_t* group_slots, const std::int32_t* singles,
                                  long long nsingle, long long u) {
  return u < nsingle ? slots + 27LL * singles[u] : group_slots + 64LL * (u - nsingle);
}

// Pass 2, per unit: its slot row (oct >= 0, -1 for a ghost still to number, no_slot) and its
// number of ghost slots. A group also clears its leaf members' own 27-slot rows (unused). The work is
// one entry per (unit, slot) and per (group, member slot), each independent of the others (the
// member rows and the unit's row are disjoint), so the device spreads a unit over a warp's lanes
// (amr_gpu.cu) where one thread did 27 or 64 slot lookups in series.
RO_HD int plan_unit_clear_count(long long u, long long nsingle) { return u < nsingle ? 0 : 8 * 27; }

// Entry k (0 .. plan_unit_clear_count - 1) of group unit u's member rows: leaf member k / 27 of
// the group (in leaf order; entries past its leaf members clear nothing), slot k % 27.
RO_HD void plan_unit_clear(const std::int32_t* groups, const std::uint8_t* group_members, long long nsingle,
                           long long u, int k, std::int32_t* slots) {
  const long long g = u - nsingle;
  if (k / 27 < member_rank(group_members[g], 8)) slots[27LL * (groups[g] + k / 27) + k % 27] = no_slot;
}

// Slot s of unit u's row; true where it is a ghost slot.
RO_HD bool plan_unit_slot_entry(const PlanView& v, const std::int32_t* leaf_octs, const std::int32_t* singles,
                                const std::int32_t* groups, const std::uint8_t* group_members, long long nsingle,
                                long long u, int s, std::int32_t* slots, std::int32_t* group_slots) {
  std::int32_t* row = plan_unit_row(slots, group_slots, singles, nsingle, u);
  std::int32_t oct;
  int s27;
  if (!plan_unit_slot(leaf_octs, singles, groups, group_members, nsingle, u, s, oct, s27)) {
    row[s] = no_slot;
    return false;
  }
  // A partial group's slot next to none of its leaf octs (two octs or more from each along some
  // axis) feeds only predictor cells and faces of its absent or covered octs, which update
  // nothing: no_slot, no ghost prolonged for it (it may lie in a leaf coarser than level l - 1);
  // the gather reads the block's own oct nearest to it instead (block::gather).
  const std::int32_t so = oct >= 0 ? view_slot_oct(v, oct, s27) : no_slot;
  row[s] = so;
  return plan_slot_is_ghost(so);
}

RO_HD long long plan_unit_slots(const PlanView& v, const std::int32_t* leaf_octs, const std::int32_t* singles,
                                const std::int32_t* groups, const std::uint8_t* group_members, long long nsingle,
                                long long u, std::int32_t* slots, std::int32_t* group_slots) {
  for (int k = 0; k < plan_unit_clear_count(u, nsingle); ++k) plan_unit_clear(groups, group_members, nsingle, u, k, slots);
  long long ghosts = 0;
  for (int s = 0; s < plan_unit_slot_count(u, nsingle); ++s)
    ghosts += plan_unit_slot_entry(v, leaf_octs, singles, groups, group_members, nsingle, u, s, slots, group_slots);
  return ghosts;
}

// Pass 3, per unit: its ghosts numbered from its first (the exclusive scan of the counts) in slot
// order, each with its seven coarse sources. A ghost slot's number is its unit's first plus the
// ghost slots before it in the row, so the device numbers a unit's slots side by side (a warp per
// unit, the slots below a lane counted by a ballot, amr_gpu.cu) where one thread walked them.

// Ghost slot s of unit u gets number ghost: its row entry and its seven coarse sources. A group's
// coarse cell comes from the block's coordinates (the same cell its members' slot coordinates
// give, so a complete group's sources are as before; an absent member has no oct to start from).
RO_HD void plan_unit_ghost_entry(const PlanView& v, const std::int32_t* leaf_octs, const std::int32_t* singles,
                                 const std::int32_t* groups, long long nsingle, long long u, int s, long long ghost,
                                 std::int32_t* row, std::int64_t* ghost_src, std::uint8_t* ghost_flip) {
  row[s] = static_cast<std::int32_t>(-1 - ghost);
  if (u < nsingle) {
    view_ghost_sources(v, leaf_octs[singles[u]], s, ghost_src + 7 * ghost, ghost_flip + 7 * ghost);
    return;
  }
  const std::int32_t o0 = leaf_octs[groups[u - nsingle]];
  int cc[3];
  group_slot_coords(v, o0, s, cc);
  view_ghost_sources_at(v, v.t.level[o0], cc, ghost_src + 7 * ghost, ghost_flip + 7 * ghost);
}

RO_HD void plan_unit_ghosts(const PlanView& v, const std::int32_t* leaf_octs, const std::int32_t* singles,
                            const std::int32_t* groups, long long nsingle, long long u, long long first_ghost,
                            std::int32_t* slots, std::int32_t* group_slots, std::int64_t* ghost_src,
                            std::uint8_t* ghost_flip) {
  std::int32_t* row = plan_unit_row(slots, group_slots, singles, nsingle, u);
  long long ghost = first_ghost;
  for (int s = 0; s < plan_unit_slot_count(u, nsingle); ++s)
    if (plan_slot_is_ghost(row[s]))
      plan_unit_ghost_entry(v, leaf_octs, singles, groups, nsingle, u, s, ghost++, row, ghost_src, ghost_flip);
}

// Restriction pairs (covered cell, son oct), finest level first, each level's cells in order: per
// oct of levels 0..L-1 its number of covered cells; an exclusive scan of the counts over those
// octs; oct o of level l writes its pairs from offset[l] + scan[o], where offset[l] = (the pairs
// of the levels above l) - scan[level_begin[l]].
RO_HD long long plan_restrict_count(const std::int32_t* son, long long o) {
  long long n = 0;
  for (int c = 0; c < 8; ++c) n += son[o * 8 + c] >= 0;
  return n;
}

RO_HD void plan_restrict_fill(const std::int32_t* son, const std::int8_t* level, long long o, const long long* scan,
                              const long long* offset, std::int64_t* cell, std::int64_t* son_out) {
  long long e = offset[level[o]] + scan[o];
  for (int c = 0; c < 8; ++c)
    if (son[o * 8 + c] >= 0) {
      cell[e] = o * 8 + c;
      son_out[e] = son[o * 8 + c];
      ++e;
    }
}

// The finest-first layout of the restriction pairs from scan_at[l] (l = 0..L, the scan above at
// level l's first oct): per level l from L-1 down to 0 its first pair begin[L-1-l] (begin[L]: the
// total) and offset[l] = begin[L-1-l] - scan_at[l] (plan_restrict_fill). The host's
// restrict_layout and the device's plan counts (amr_gpu.cu, which then needs no count from the
// host to fill the pairs) run this one body.
RO_HD void restrict_layout_at(const long long* scan_at, int max_level, long long* begin, long long* offset) {
  long long base = 0;
  for (int l = max_level - 1; l >= 0; --l) {
    begin[max_level - 1 - l] = base;
    offset[l] = base - scan_at[l];
    base += scan_at[l + 1] - scan_at[l];
  }
  begin[max_level] = base;
}

// --subcycle (the device's amr_step, amr_gpu.cu): the plan's per-level ranges, read from the scans
// the lists and plan builds already ran, at each level's first oct and first leaf index (leaf
// octs, singles and groups are in leaf order, levels concatenated; a group never spans two
// levels; faces are in coarse oct order), so that they come up with the plan's last count copy
// and the per-level launches need no copy of their own. Words: [0] the ghost total; then per
// level l = 0..L+1 (L+1: the ends) five words: its first leaf index, first single, first group,
// the first ghost of its singles (ghost_begin at its first single) and of its groups (at
// nsingle + its first group); then per level l = 0..L its first reflux face (level L has none:
// the total).
RO_HD int plan_level_words(int max_level) { return 1 + 5 * (max_level + 2) + (max_level + 1); }

RO_HD void plan_level_ranges(const long long* level_begin, int max_level, const long long* leaf_scan,
                             const long long* face_scan, const long long* single_scan, const long long* group_scan,
                             const long long* ghost_begin, long long* out) {
  const long long nleaf = leaf_scan[level_begin[max_level + 1]];
  const long long nsingle = single_scan[nleaf], ngroup = group_scan[nleaf];
  out[0] = ghost_begin[nsingle + ngroup];
  for (int l = 0; l <= max_level + 1; ++l) {
    const long long leaf = leaf_scan[level_begin[l]], single = single_scan[leaf], group = group_scan[leaf];
    long long* w = out + 1 + 5 * l;
    w[0] = leaf;
    w[1] = single;
    w[2] = group;
    w[3] = ghost_begin[single];
    w[4] = ghost_begin[nsingle + group];
  }
  for (int l = 0; l <= max_level; ++l) out[1 + 5 * (max_level + 2) + l] = face_scan[level_begin[l]];
}

}  // namespace ro::amr
