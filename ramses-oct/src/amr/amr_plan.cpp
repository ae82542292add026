#include "amr_plan.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include "amr_leaf_block.hpp"

namespace ro::amr {

namespace {

// The integer coordinates at level l of slot s (0..26, x fastest) around the oct at oc, as in
// Stepper::update_oct: the oct itself across a reflecting/outflow face, periodic faces wrap.
void slot_coords(const Tree& t, int l, const int oc[3], int s, int c[3]) {
  const int off[3] = {s % 3 - 1, (s / 3) % 3 - 1, s / 9 - 1};
  for (int a = 0; a < 3; ++a) {
    const int n = t.cells_at(l, a) / 2;
    c[a] = oc[a] + off[a];
    if (c[a] < 0 || c[a] >= n) c[a] = t.base->bc[a] == Boundary::periodic ? (c[a] + n) % n : oc[a];
  }
}

// Slot s of oct o through the neighbour tables one axis at a time (the axes map independently,
// so the path ends at the slot); a key search only where the path crosses a coarser region.
// -1: the slot lies in a coarser leaf (a ghost slot).
std::int32_t slot_oct(const Tree& t, std::int32_t o, int s) {
  const int off[3] = {s % 3 - 1, (s / 3) % 3 - 1, s / 9 - 1};
  std::int32_t via = o;
  for (int a = 0; a < 3 && via >= 0; ++a)
    if (off[a] != 0) via = t.nbor[face_index(a, off[a] > 0)][via];
  if (via >= 0) return via;
  const int l = t.level[o];
  const int oc[3] = {t.coord[0][o], t.coord[1][o], t.coord[2][o]};
  int c[3];
  slot_coords(t, l, oc, s, c);
  return t.find_oct(l, c[0], c[1], c[2]);
}

// The coarse cell of ghost slot s of oct o and its six face neighbours (7 sources and flips).
void ghost_sources(const Tree& t, std::int32_t o, int s, std::int64_t* src_out, std::uint8_t* flip_out) {
  const int l = t.level[o];
  const int oc[3] = {t.coord[0][o], t.coord[1][o], t.coord[2][o]};
  int c[3];
  slot_coords(t, l, oc, s, c);
  const std::array<int, 3> cc = {c[0], c[1], c[2]};  // the coarse cell of level l - 1
  const Located centre = locate(t, l - 1, cc);
  for (int k = 0; k < 7; ++k) {
    std::array<int, 3> q = cc;
    if (k > 0) q[(k - 1) / 2] += (k - 1) % 2 ? 1 : -1;
    // The six neighbours of an existing coarse cell through the neighbour table where they exist
    // on its level; only an axis that leaves the domain through a reflecting face flips.
    Located src = centre;
    if (k > 0) {
      const int a = (k - 1) / 2;
      const std::int64_t nb =
          centre.level == l - 1 ? same_level_neighbour(t, centre.cell / 8, int(centre.cell % 8), a, (k - 1) % 2) : -1;
      if (nb >= 0) {
        src.cell = nb;
        src.flip[a] = (q[a] < 0 || q[a] >= t.cells_at(l - 1, a)) && t.base->bc[a] == Boundary::reflecting;
      } else {
        src = locate(t, l - 1, q);
      }
    }
    src_out[k] = src.cell;
    flip_out[k] = static_cast<std::uint8_t>(src.flip[0] | (src.flip[1] << 1) | (src.flip[2] << 2));
  }
}

// A leaf-update kernel of units of T^3 cells (N threads each, units_per_block per block) run on
// the host: its blocks in turn, in a block each phase over every unit and lane before the next
// (the barriers). Unit j of block b is j = b * units_per_block + k; a unit past the last idles.
// first(j): the unit's first leaf index; row(j): its slot row.
template <int T, int N, class First, class Row>
void emulate_units(const block::Args& a, const HydroParams& hp, const std::vector<double>& u, std::vector<double>& unew,
                   int units_per_block, long long nunit, First&& first, Row&& row) {
  std::vector<block::Shared<T>> sh(units_per_block);
  const long long blocks = (nunit + units_per_block - 1) / units_per_block;
  for (long long b = 0; b < blocks; ++b) {
    auto each = [&](auto&& phase) {
      for (int k = 0; k < units_per_block; ++k) {
        const long long j = b * units_per_block + k;
        if (j >= nunit) continue;
        for (int lane = 0; lane < N; ++lane) phase(j, lane, sh[k]);
      }
    };
    each([&](long long j, int lane, block::Shared<T>& s) { block::load_slots<T, N>(row(j), lane, s); });
    each([&](long long j, int lane, block::Shared<T>& s) { block::gather<T, N>(a, hp, u.data(), first(j), lane, s); });
    each([&](long long j, int lane, block::Shared<T>& s) {
      block::predict<T, N>(hp, block::dtdx_of(a, a.leaf_octs[first(j)]), lane, s);
    });
    each([&](long long, int lane, block::Shared<T>& s) { block::fluxes<T, N>(hp, lane, s); });
    each([&](long long j, int lane, block::Shared<T>& s) {
      block::update<T, N>(a, u.data(), unew.data(), first(j), lane, s);
    });
  }
}

}  // namespace

bool group_slot_member(const std::int32_t* members, int s, std::int32_t& member, int& slot27) {
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

// Passes over the leaf octs (each in parallel, the result independent of the schedule: the
// serial plan): (1) the fixed-size entries of every leaf oct (edges, masks) and whether a group
// starts there (8 leaf octs of one level at the aligned 2 x 2 x 2 block's coordinates, in key
// order, consecutive in the list); a serial walk then puts each oct in singles or a group; (2) per
// unit (singles, then groups) its oct slots and its count of ghost slots; an exclusive prefix sum
// of the counts gives every unit its ghost range; (3) the ghosts filled, numbered in (unit, slot)
// order. Vectors only grow (resize keeps the capacity of the previous regrid's plan).
void build_step_plan(const Tree& t, const StepLists& lists, bool reflux, const Loops& loops, StepPlan& p,
                     bool groups) {
  p.leaf_octs.assign(lists.leaf_octs.begin(), lists.leaf_octs.end());
  const std::int64_t nleaf = static_cast<std::int64_t>(lists.leaf_octs.size());
  p.slots.resize(27 * nleaf);
  p.edges.resize(6 * nleaf);
  p.skip.resize(nleaf);
  p.keep.resize(nleaf);
  p.head.resize(nleaf);
  loops.run(nleaf, [&](std::int64_t i, int) {
    const std::int32_t o = lists.leaf_octs[i];
    const int l = t.level[o];
    const int oc[3] = {t.coord[0][o], t.coord[1][o], t.coord[2][o]};
    for (int side = 0; side < 2; ++side)
      for (int a = 0; a < 3; ++a) {
        const int n = t.cells_at(l, a) / 2;
        const bool at = side == 0 ? oc[a] == 0 : oc[a] == n - 1;
        p.edges[6 * i + 3 * side + a] = static_cast<std::int8_t>(at ? static_cast<int>(t.base->bc[a]) : 0);
      }
    // Faces of leaf cells next to a refined cell of the same level take no flux (reflux adds it).
    std::uint64_t skip = 0;
    for (int cell = 0; cell < 8 && reflux; ++cell) {
      if (t.son[std::int64_t(o) * 8 + cell] >= 0) continue;
      for (int f = 0; f < 6; ++f) {
        const std::int64_t nb = same_level_neighbour(t, o, cell, f / 2, f % 2);
        if (nb >= 0 && t.son[nb] >= 0) skip |= std::uint64_t(1) << (6 * cell + f);
      }
    }
    p.skip[i] = skip;
    std::uint8_t keep = 0;
    for (int f = 0; f < 6 && l > 0; ++f)
      if (t.nbor[f][o] < 0) keep |= static_cast<std::uint8_t>(1 << f);
    p.keep[i] = keep;
    bool head = groups && i + 7 < nleaf && oc[0] % 2 == 0 && oc[1] % 2 == 0 && oc[2] % 2 == 0;
    for (int m = 1; m < 8 && head; ++m) {
      const std::int32_t om = lists.leaf_octs[i + m];
      head = t.level[om] == l && t.coord[0][om] == oc[0] + (m & 1) && t.coord[1][om] == oc[1] + ((m >> 1) & 1) &&
             t.coord[2][om] == oc[2] + (m >> 2);
    }
    p.head[i] = head;
  });
  p.singles.clear();
  p.groups.clear();
  for (std::int64_t i = 0; i < nleaf; ++i) {
    if (p.head[i]) {
      p.groups.push_back(static_cast<std::int32_t>(i));
      i += 7;
    } else {
      p.singles.push_back(static_cast<std::int32_t>(i));
    }
  }
  const std::int64_t nsingle = static_cast<std::int64_t>(p.singles.size());
  const std::int64_t ngroup = static_cast<std::int64_t>(p.groups.size());
  const std::int64_t nunit = nsingle + ngroup;
  p.group_slots.resize(64 * ngroup);
  p.ghost_begin.resize(nunit + 1);
  // A unit's slot row, and per slot the oct whose own 27-slot lookup gives it (no slot: false).
  auto unit_slot = [&](std::int64_t u, int s, std::int32_t& oct, int& s27) {
    if (u < nsingle) {
      oct = lists.leaf_octs[p.singles[u]];
      s27 = s;
      return !is_corner_slot(s);
    }
    return group_slot_member(&lists.leaf_octs[p.groups[u - nsingle]], s, oct, s27);
  };
  auto unit_row = [&](std::int64_t u) -> std::int32_t* {
    return u < nsingle ? &p.slots[27 * std::int64_t(p.singles[u])] : &p.group_slots[64 * (u - nsingle)];
  };
  auto unit_slots = [&](std::int64_t u) { return u < nsingle ? 27 : 64; };
  for (std::int64_t g = 0; g < ngroup; ++g)
    for (int m = 0; m < 8; ++m) std::fill_n(&p.slots[27 * (std::int64_t(p.groups[g]) + m)], 27, no_slot);
  loops.run(nunit, [&](std::int64_t u, int) {
    std::int32_t* row = unit_row(u);
    std::int64_t ghosts = 0;
    for (int s = 0; s < unit_slots(u); ++s) {
      std::int32_t oct;
      int s27;
      if (!unit_slot(u, s, oct, s27)) {
        row[s] = no_slot;
        continue;
      }
      const std::int32_t so = slot_oct(t, oct, s27);
      row[s] = so;  // a ghost's -1 is renumbered in the last pass
      ghosts += so < 0;
    }
    p.ghost_begin[u + 1] = ghosts;
  });
  p.ghost_begin[0] = 0;
  for (std::int64_t u = 0; u < nunit; ++u) p.ghost_begin[u + 1] += p.ghost_begin[u];
  const std::int64_t nghost = p.ghost_begin[nunit];
  p.ghost_src.resize(7 * nghost);
  p.ghost_flip.resize(7 * nghost);
  loops.run(nunit, [&](std::int64_t u, int) {
    std::int64_t ghost = p.ghost_begin[u];
    if (ghost == p.ghost_begin[u + 1]) return;
    std::int32_t* row = unit_row(u);
    for (int s = 0; s < unit_slots(u); ++s) {
      if (row[s] >= 0 || row[s] == no_slot) continue;
      std::int32_t oct;
      int s27;
      unit_slot(u, s, oct, s27);
      row[s] = static_cast<std::int32_t>(-1 - ghost);
      ghost_sources(t, oct, s27, &p.ghost_src[7 * ghost], &p.ghost_flip[7 * ghost]);
      ++ghost;
    }
  });
  p.restrict_cell.clear();
  p.restrict_son.clear();
  p.restrict_begin.clear();
  for (int l = t.max_level - 1; l >= 0; --l) {
    p.restrict_begin.push_back(static_cast<std::int64_t>(p.restrict_cell.size()));
    for (std::int64_t g = t.level_begin[l] * 8; g < t.level_begin[l + 1] * 8; ++g)
      if (t.son[g] >= 0) {
        p.restrict_cell.push_back(g);
        p.restrict_son.push_back(t.son[g]);
      }
  }
  p.restrict_begin.push_back(static_cast<std::int64_t>(p.restrict_cell.size()));
}

StepPlan build_step_plan(const Tree& t, const StepLists& lists, bool reflux, bool groups) {
  StepPlan p;
  build_step_plan(t, lists, reflux, *make_serial_loops(), p, groups);
  return p;
}

void emulate_plan_step(const Tree& t, const StepPlan& p, const StepLists& lists, const HydroParams& hp, bool reflux,
                       const std::vector<double>& u, std::vector<double>& unew, double dt) {
  const long long stride = t.noct() * 8;
  const long long nghost = static_cast<long long>(p.ghost_flip.size() / 7);
  std::vector<double> ghost(nghost * 8 * nvar), fine_flux(t.noct() * fine_flux_per_oct, 0.0);
  for (long long g = 0; g < nghost; ++g)
    block::ghost_sons(u.data(), stride, g, p.ghost_src.data(), p.ghost_flip.data(), hp.gamma, ghost.data());
  unew = u;
  const block::Args a{p.leaf_octs.data(), p.edges.data(), p.skip.data(), p.keep.data(), t.level.data(),
                      t.son.data(), ghost.data(), fine_flux.data(), stride, dt, t.base->dx};
  emulate_units<2, block::lanes>(a, hp, u, unew, block::octs_per_block, static_cast<long long>(p.singles.size()),
                                 [&](long long j) { return static_cast<long long>(p.singles[j]); },
                                 [&](long long j) { return &p.slots[27 * static_cast<std::size_t>(p.singles[j])]; });
  emulate_units<4, block::group_threads>(
      a, hp, u, unew, 1, static_cast<long long>(p.groups.size()),
      [&](long long j) { return static_cast<long long>(p.groups[j]); },
      [&](long long j) { return &p.group_slots[64 * static_cast<std::size_t>(j)]; });
  const long long nfaces = static_cast<long long>(lists.faces.size());
  if (reflux)
    for (long long k = 0; k < nfaces * nvar; ++k)
      block::reflux_cell(k % nfaces, int(k / nfaces), nfaces, lists.faces.data(), t.level.data(), fine_flux.data(),
                         stride, dt, t.base->dx, unew.data());
  for (std::size_t k = 0; k + 1 < p.restrict_begin.size(); ++k)
    for (std::int64_t e = p.restrict_begin[k]; e < p.restrict_begin[k + 1]; ++e)
      restrict_cell(unew.data(), stride, p.restrict_cell[e], p.restrict_son[e]);
}

LeafScan leaf_scan_from_words(const unsigned long long* words, int nlevel) {
  LeafScan s;
  s.max_speed.resize(nlevel);
  for (int l = 0; l < nlevel; ++l) std::memcpy(&s.max_speed[l], &words[l], sizeof(double));
  s.bad_cell = words[nlevel] ? static_cast<std::int64_t>(~words[nlevel]) : -1;
  return s;
}

LeafScan emulate_leaf_scan(const Tree& t, const std::vector<double>& u, double gamma) {
  const int nlevel = t.max_level + 1;
  std::vector<unsigned long long> words(nlevel + 1, 0);
  const long long ncell = t.noct() * 8;
  for (long long g = 0; g < ncell; ++g) {
    int l;
    unsigned long long bits;
    bool ok;
    if (!block::leaf_speed(u.data(), ncell, t.son.data(), t.level.data(), gamma, g, l, bits, ok)) continue;
    words[l] = std::max(words[l], bits);
    if (!ok) words[nlevel] = std::max(words[nlevel], ~static_cast<unsigned long long>(g));
  }
  return leaf_scan_from_words(words.data(), nlevel);
}

}  // namespace ro::amr
