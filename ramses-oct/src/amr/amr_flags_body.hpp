// The regrid's criterion and refinement flags (amr_regrid.hpp, parts (1) and (2)) written once as
// host/device functions over the tree's view: the host criterion_flags and refinement_flags
// (serial or OpenMP loops) and the device's kernels (amr_gpu.cu: one launch per level and pass)
// call the same bodies, so the device flags equal the host's byte for byte. The passes, in order:
//   criterion: one byte per cell (gradient, everywhere or band; 2 = a missing face neighbour);
//   sons:      per level, finest first, a refined cell takes the OR of its son oct's flags
//              (of its criterion bytes on the finest level), a leaf its own criterion byte;
//   buffer:    every level at once, a flagged cell flags its 26 same-level neighbours that
//              exist (read the flags before the pass, write a copy); `buffer` passes in a row
//              (RAMSES's nexpand, default 1): each widens the flagged region by one cell;
//   balance:   per level l >= 1, finest first, the flagged cells of level l flag the level-(l-1)
//              cells holding their 26 neighbours (RAMSES's 2:1 rule across faces, edges and corners).
#pragma once
#include <cstdint>

#include "amr/amr_plan_body.hpp"
#include "amr/amr_regrid_body.hpp"

namespace ro::amr {

// Bits of the flags' error word (the device sets them, the host reads them with the flags):
// a face neighbour missing for the criterion, a coarse cell missing for the balance.
inline constexpr unsigned flags_error_missing_neighbour = 1u;
inline constexpr unsigned flags_error_unbalanced = 2u;

// RefineCriterion (amr_regrid.hpp) as plain numbers for the device.
inline constexpr int criterion_gradient = 0, criterion_everywhere = 1, criterion_band = 2;
struct CriterionParams {
  int kind = criterion_gradient;
  double gamma = 1.4, density = 0.1, pressure = 0.1;
  double band_lo = 0.25, band_hi = 0.5;
  double dx0 = 1;  // the base level's cell size
  int buffer = 1;  // buffer passes (cells of each level added around the flagged ones)
};

// The criterion byte of cell g: 1 flagged, 0 not, 2 a missing face neighbour (gradient only; an
// unbalanced tree). band: the cell overlaps band_lo <= x <= band_hi; its faces are i dx and
// (i + 1) dx, two products that no compiler can contract into an FMA (x0 + dx could be, so host
// and device might disagree by an ulp at an edge; the same values where dx is dyadic).
RO_HD char criterion_byte(const TreeView& v, const double* u, long long stride, long long g, const CriterionParams& p) {
  if (p.kind == criterion_everywhere) return 1;
  if (p.kind == criterion_band) {
    const long long o = g / 8;
    const double dx = p.dx0 / double(1 << v.level[o]);
    const int i = 2 * v.coord[0][o] + int(g & 1);
    const double x0 = i * dx, x1 = (i + 1) * dx;
    return x1 > p.band_lo && x0 < p.band_hi;
  }
  return gradient_criterion(v, u, stride, g, p.gamma, p.density, p.pressure);
}

// Pass "sons", cell g of a level below the finest: sons_finest when its sons are on the finest
// level (whose cells carry no flags, only criterion bytes). Reads level l + 1, writes cell g.
RO_HD void flags_from_sons(const std::int32_t* son, const char* crit, char* flag, long long g, bool sons_finest) {
  const std::int32_t s = son[g];
  if (s < 0) {
    flag[g] = crit[g];
    return;
  }
  const char* below = sons_finest ? crit : flag;
  bool f = false;
  for (int c = 0; c < 8; ++c) f = f || below[(long long)s * 8 + c];
  flag[g] = f;
}

// The mapped level-l cell coordinate along axis a of position p (0..3: the cells 2x-1 .. 2x+2
// around oct o of level l, boundary mapping applied).
RO_HD int flags_mapped_axis(const PlanView& v, int l, long long o, int a, int p) {
  int m = 2 * v.t.coord[a][o] - 1 + p;
  bool flip;
  view_map_cell_axis(v, l, a, m, flip);
  return m;
}

// The cell of level-l oct `oct` at mapped level-l coordinates m, and the cell of level-(l-1) oct
// `coarse` that holds it.
RO_HD long long flags_cell_at(std::int32_t oct, const int m[3]) {
  return (long long)oct * 8 + (m[0] & 1) + 2 * (m[1] & 1) + 4 * (m[2] & 1);
}
RO_HD long long flags_coarse_cell_at(std::int32_t coarse, const int m[3]) {
  return (long long)coarse * 8 + ((m[0] >> 1) & 1) + 2 * ((m[1] >> 1) & 1) + 4 * ((m[2] >> 1) & 1);
}

// The 26-neighbourhood of the cells of oct o (level l) without a key search per cell: per axis
// the cell coordinates 2x-1 .. 2x+2 after the boundary mapping, and the octs of the 27 oct slots
// they fall in, looked up once per oct and slot. A neighbour (dx, dy, dz) of cell c sits at
// position p = 1 + c_a + d_a (0..3) per axis, in slot (p + 1) / 2.
class FlagsAround {
 public:
  RO_HD FlagsAround(const PlanView& v, long long o) : v_(v), l_(v.t.level[o]) {
    for (int a = 0; a < 3; ++a)
      for (int p = 0; p < 4; ++p) m_[a][p] = flags_mapped_axis(v, l_, o, a, p);
    for (int q = 0; q < 27; ++q) oct_[q] = coarse_[q] = unknown;
  }
  // body(m, q, pos): the mapped cell coordinates m of each of the 26 neighbours of cell c, its
  // oct slot q (0..26) and its position pos (0..63) in the 4^3 block of cells around the oct.
  template <class F>
  RO_HD void for_each_neighbour(int c, F&& body) const {
    const int ca[3] = {c & 1, (c >> 1) & 1, c >> 2};
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (dx == 0 && dy == 0 && dz == 0) continue;
          const int p[3] = {1 + ca[0] + dx, 1 + ca[1] + dy, 1 + ca[2] + dz};
          const int m[3] = {m_[0][p[0]], m_[1][p[1]], m_[2][p[2]]};
          body(m, (p[0] + 1) / 2 + 3 * ((p[1] + 1) / 2) + 9 * ((p[2] + 1) / 2), p[0] + 4 * p[1] + 16 * p[2]);
        }
  }
  // The level-l cell at m, -1 where that region is coarser.
  RO_HD long long cell(const int m[3], int q) {
    if (oct_[q] == unknown) oct_[q] = view_find_oct(v_, l_, m[0] >> 1, m[1] >> 1, m[2] >> 1);
    return oct_[q] < 0 ? -1 : flags_cell_at(oct_[q], m);
  }
  // The level-(l-1) cell holding the level-l cell at m, -1 where it does not exist.
  RO_HD long long coarse_cell(const int m[3], int q) {
    if (coarse_[q] == unknown) coarse_[q] = view_find_oct(v_, l_ - 1, m[0] >> 2, m[1] >> 2, m[2] >> 2);
    return coarse_[q] < 0 ? -1 : flags_coarse_cell_at(coarse_[q], m);
  }

 private:
  static constexpr std::int32_t unknown = -2;
  const PlanView& v_;
  int l_;
  int m_[3][4];
  std::int32_t oct_[27], coarse_[27];
};

// Pass "buffer", oct o of a level below the finest: set(g) once for every unflagged cell g that
// exists on o's level among the 26 neighbours of o's flagged cells. It reads the flags before the
// pass (flag) and never what set writes: the host collects the cells and sets them after the
// pass, the device stores 1 into a copy of the flags (flag_next_), so neither depends on the
// order of the octs.
template <class Set>
RO_HD void flags_buffer_oct(const PlanView& v, const char* flag, long long o, Set&& set) {
  FlagsAround ar(v, o);
  std::uint64_t seen = 0;  // positions in the 4^3 block already visited
  for (int c = 0; c < 8; ++c) {
    if (!flag[o * 8 + c]) continue;
    ar.for_each_neighbour(c, [&](const int m[3], int q, int pos) {
      const std::uint64_t bit = std::uint64_t(1) << pos;
      if (seen & bit) return;
      seen |= bit;
      const long long nb = ar.cell(m, q);
      if (nb >= 0 && !flag[nb]) set(nb);
    });
  }
}

// Pass "balance", oct o of level l >= 1: set(cc) once for each level-(l-1) cell cc (the father
// of one of the 27 oct slots) that holds one of the 26 neighbours of o's flagged cells; false
// where such a cell does not exist (the tree was not balanced: an error). Reads only o's own
// flags (level l), so a launch over level l may store 1 into level l - 1 in any order.
template <class Set>
RO_HD bool flags_balance_oct(const PlanView& v, const char* flag, long long o, Set&& set) {
  FlagsAround ar(v, o);
  bool ok = true;
  std::uint32_t seen = 0;  // oct slots already visited
  for (int c = 0; c < 8; ++c) {
    if (!flag[o * 8 + c]) continue;
    ar.for_each_neighbour(c, [&](const int m[3], int q, int) {
      const std::uint32_t bit = std::uint32_t(1) << q;
      if (seen & bit) return;
      seen |= bit;
      const long long cc = ar.coarse_cell(m, q);
      if (cc < 0)
        ok = false;
      else
        set(cc);
    });
  }
  return ok;
}

// The buffer and the balance split by oct slot, the device's decomposition (amr_gpu.cu: one
// thread per (oct, slot), each with at most one hash probe, where one thread per oct probed up to
// 27 slots in series). The positions of the 4^3 block are split among the slots ((p + 1) / 2 per
// axis), and all the positions of a slot lie in one level-l oct (so in one level-(l-1) cell), so
// the 27 parts of an oct set exactly the cells flags_buffer_oct / flags_balance_oct set.

// The oct's flags as 8 bits (cell c: bit c).
RO_HD unsigned flags_of_oct(const char* flag, long long o) {
  unsigned bits = 0;
  for (int c = 0; c < 8; ++c) bits |= (flag[o * 8 + c] ? 1u : 0u) << c;
  return bits;
}

// body(p) for every position p of slot q (0..26) that is one of the 26 neighbours of a flagged
// cell c (at 1 + c_a per axis: |p_a - 1 - c_a| <= 1 on every axis, p not c's own position).
template <class F>
RO_HD void flags_near_positions(unsigned flagged, int q, F&& body) {
  const int qa[3] = {q % 3, (q / 3) % 3, q / 9};
  int lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = qa[a] == 0 ? 0 : qa[a] == 1 ? 1 : 3;
    hi[a] = qa[a] == 1 ? 2 : lo[a];
  }
  for (int pz = lo[2]; pz <= hi[2]; ++pz)
    for (int py = lo[1]; py <= hi[1]; ++py)
      for (int px = lo[0]; px <= hi[0]; ++px) {
        const int p[3] = {px, py, pz};
        bool near = false;
        for (int c = 0; c < 8 && !near; ++c) {
          if (!((flagged >> c) & 1u)) continue;
          const int d[3] = {px - 1 - (c & 1), py - 1 - ((c >> 1) & 1), pz - 1 - (c >> 2)};
          near = d[0] >= -1 && d[0] <= 1 && d[1] >= -1 && d[1] <= 1 && d[2] >= -1 && d[2] <= 1 &&
                 (d[0] != 0 || d[1] != 0 || d[2] != 0);
        }
        if (near) body(p);
      }
}

// Slot q's part of flags_buffer_oct. No FlagsAround: its tables (12 mapped coordinates, 54 oct
// slots set to unknown) cost each of the 27 threads of a flagged oct more than its one probe;
// here only the coordinates of the slot's own positions are mapped, and the slot's oct (all its
// positions lie in one level-l oct) is found once, at its first position near a flagged cell.
template <class Set>
RO_HD void flags_buffer_slot(const PlanView& v, const char* flag, long long o, int q, Set&& set) {
  const unsigned flagged = flags_of_oct(flag, o);
  if (!flagged) return;
  const int l = v.t.level[o];
  std::int32_t so = -2;  // the slot's oct, -2 before the first probe
  flags_near_positions(flagged, q, [&](const int p[3]) {
    int m[3];
    for (int a = 0; a < 3; ++a) m[a] = flags_mapped_axis(v, l, o, a, p[a]);
    if (so == -2) so = view_find_oct(v, l, m[0] >> 1, m[1] >> 1, m[2] >> 1);
    if (so < 0) return;
    const long long nb = flags_cell_at(so, m);
    if (!flag[nb]) set(nb);
  });
}

// Slot q's part of flags_balance_oct: false where the level-(l-1) cell it needs does not exist.
// As flags_buffer_slot, no FlagsAround (the slot's first position mapped alone, one probe of
// level l - 1): its tables, set up by each of the 27 threads of a flagged oct, made
// this the regrid's costliest kernel at 512^3 finest (1.29 ms of ~4.7 ms per regrid, Nsight
// Compute on the H200, results/h200/20261129-3).
template <class Set>
RO_HD bool flags_balance_slot(const PlanView& v, const char* flag, long long o, int q, Set&& set) {
  const unsigned flagged = flags_of_oct(flag, o);
  if (!flagged) return true;
  bool near = false;
  int first[3] = {0, 0, 0};
  flags_near_positions(flagged, q, [&](const int p[3]) {
    if (near) return;
    near = true;
    for (int a = 0; a < 3; ++a) first[a] = p[a];
  });
  if (!near) return true;
  const int l = v.t.level[o];
  int m[3];
  for (int a = 0; a < 3; ++a) m[a] = flags_mapped_axis(v, l, o, a, first[a]);
  const std::int32_t co = view_find_oct(v, l - 1, m[0] >> 2, m[1] >> 2, m[2] >> 2);
  if (co < 0) return false;
  set(flags_coarse_cell_at(co, m));
  return true;
}

}  // namespace ro::amr
