#include "amr/amr_plan.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "amr/amr_leaf_block.hpp"
#include "amr/amr_lists_body.hpp"
#include "amr/amr_regrid.hpp"
#include "copa/errors.hpp"

namespace ro::amr {

namespace {

// A leaf-update kernel of units of T^3 cells (N threads each, units_per_block per block) run on
// the host: its blocks in turn, in a block each phase over every unit and lane before the next
// (the barriers). Unit j of block b is j = b * units_per_block + k; a unit past the last idles.
// unit(j): the unit (block::UnitRef); row(j): its slot row.
template <int T, int N, class Unit, class Row>
void emulate_units(const block::Args& a, const HydroParams& hp, const std::vector<double>& u, std::vector<double>& unew,
                   int units_per_block, long long nunit, Unit&& unit, Row&& row) {
  std::vector<block::Shared<T>> sh(units_per_block);
  const block::LeafLayout<T>& L = block::leaf_layout<T>();
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
    each([&](long long j, int lane, block::Shared<T>& s) { block::gather<T, N>(a, hp, L, u.data(), unit(j).edges, lane, s); });
    each([&](long long j, int lane, block::Shared<T>& s) {
      block::predict<T, N>(hp, L, block::dtdx_of(a, a.leaf_octs[unit(j).first]), lane, s);
    });
    each([&](long long, int lane, block::Shared<T>& s) { block::fluxes<T, N>(hp, L, lane, s); });
    each([&](long long j, int lane, block::Shared<T>& s) {
      block::update<T, N>(a, L, u.data(), unew.data(), unit(j), lane, s);
    });
  }
}

block::UnitRef single_unit(const StepPlan& p, long long i) { return {i, 1u, &p.edges[6 * i]}; }
block::UnitRef group_unit(const StepPlan& p, long long g) {
  return {p.groups[g], p.group_members[g], &p.group_edges[6 * g]};
}

// The groups' launch over groups [g0, g1) (leaf_update_kernel<groups>): one unit per group.
void emulate_groups(const block::Args& a, const HydroParams& hp, const StepPlan& p, const std::vector<double>& u,
                    std::vector<double>& unew, long long g0, long long g1) {
  emulate_units<4, block::group_threads>(
      a, hp, u, unew, 1, g1 - g0, [&](long long j) { return group_unit(p, g0 + j); },
      [&](long long j) { return &p.group_slots[64 * static_cast<std::size_t>(g0 + j)]; });
}

// Ghost slots [first, last) prolonged from u, each son as one device thread does it, the eight
// deciding the fallback together (ghost_kernel).
void emulate_ghosts(const StepPlan& p, const HydroParams& hp, const std::vector<double>& u, long long stride,
                    long long first, long long last, std::vector<double>& ghost) {
  for (long long g = first; g < last; ++g) {
    double uc[8][nvar], son[8][nvar];
    bool all = true;
    for (int c = 0; c < 8; ++c)
      all = block::ghost_son(u.data(), stride, g, c, p.ghost_src.data(), p.ghost_flip.data(), hp.gamma, uc[c], son[c]) &&
            all;
    for (int c = 0; c < 8; ++c) block::put_ghost_son(g, c, all, uc[c], son[c], ghost.data());
  }
}

}  // namespace

PlanView plan_view(const Tree& t) {
  PlanView v{};
  v.t = tree_view(t);
  v.son = t.son.data();
  v.hash = t.hash_slots.data();
  for (int l = 0; l <= t.max_level; ++l) {
    v.hash_begin[l] = t.hash_begin[l];
    v.hash_shift[l] = t.hash_shift[l];
  }
  v.hash_begin[t.max_level + 1] = t.hash_begin[t.max_level + 1];
  return v;
}

// Passes over the leaf octs (each in parallel, the result independent of the schedule: the
// serial plan): (1) the fixed-size entries of every leaf oct (edges, masks) and the member mask of
// the group starting there (plan_leaf_entries); a serial walk then puts each oct in singles or a
// group (plan_is_single, plan_split_scatter); (2) per
// unit (singles, then groups) its oct slots and its count of ghost slots; an exclusive prefix sum
// of the counts gives every unit its ghost range; (3) the ghosts filled, numbered in (unit, slot)
// order. Vectors only grow (resize keeps the capacity of the previous regrid's plan).
void build_step_plan(const Tree& t, const StepLists& lists, bool reflux, const Loops& loops, StepPlan& p,
                     int group_min) {
  const PlanView v = plan_view(t);
  p.leaf_octs.assign(lists.leaf_octs.begin(), lists.leaf_octs.end());
  const std::int64_t nleaf = static_cast<std::int64_t>(lists.leaf_octs.size());
  p.slots.resize(27 * nleaf);
  p.edges.resize(6 * nleaf);
  p.skip.resize(nleaf);
  p.keep.resize(nleaf);
  p.head.resize(nleaf);
  loops.run(nleaf, [&](std::int64_t i, int) {
    plan_leaf_entries(v, p.leaf_octs.data(), nleaf, i, reflux, group_min, nullptr, t.level_begin[t.max_level],
                      p.edges.data(), p.skip.data(),
                      p.keep.data(), p.head.data());
  });
  p.singles.clear();
  p.groups.clear();
  p.group_members.clear();
  p.group_edges.clear();
  for (std::int64_t i = 0; i < nleaf; ++i) {
    if (p.head[i]) {
      p.groups.push_back(static_cast<std::int32_t>(i));
      p.group_members.push_back(p.head[i]);
      std::int8_t e[6];
      plan_group_edges(v, p.leaf_octs[i], e);
      p.group_edges.insert(p.group_edges.end(), e, e + 6);
    } else if (plan_is_single(v, p.leaf_octs.data(), p.head.data(), i)) {
      p.singles.push_back(static_cast<std::int32_t>(i));
    }
  }
  const std::int64_t nsingle = static_cast<std::int64_t>(p.singles.size());
  const std::int64_t nunit = nsingle + static_cast<std::int64_t>(p.groups.size());
  p.group_slots.resize(64 * p.groups.size());
  p.ghost_begin.resize(nunit + 1);
  loops.run(nunit, [&](std::int64_t u, int) {
    p.ghost_begin[u + 1] = plan_unit_slots(v, p.leaf_octs.data(), p.singles.data(), p.groups.data(),
                                           p.group_members.data(), nsingle, u, p.slots.data(), p.group_slots.data());
  });
  p.ghost_begin[0] = 0;
  for (std::int64_t u = 0; u < nunit; ++u) p.ghost_begin[u + 1] += p.ghost_begin[u];
  const std::int64_t nghost = p.ghost_begin[nunit];
  p.ghost_src.resize(7 * nghost);
  p.ghost_flip.resize(7 * nghost);
  loops.run(nunit, [&](std::int64_t u, int) {
    if (p.ghost_begin[u] == p.ghost_begin[u + 1]) return;
    plan_unit_ghosts(v, p.leaf_octs.data(), p.singles.data(), p.groups.data(), nsingle, u, p.ghost_begin[u],
                     p.slots.data(), p.group_slots.data(), p.ghost_src.data(), p.ghost_flip.data());
  });
  for (std::int64_t k = 0; k < 7 * nghost; ++k)
    if (p.ghost_src[k] < 0) throw copa::RuntimeError("amr: a ghost slot's coarse cell has no level-0 oct (broken tree)");
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

StepPlan build_step_plan(const Tree& t, const StepLists& lists, bool reflux, int group_min) {
  StepPlan p;
  build_step_plan(t, lists, reflux, *make_serial_loops(), p, group_min);
  return p;
}

void restrict_layout(const std::vector<long long>& scan_at, std::vector<std::int64_t>& restrict_begin,
                     long long offset[max_levels + 1]) {
  const int max_level = static_cast<int>(scan_at.size()) - 1;  // levels 0..L-1 hold covered cells
  long long begin[max_levels + 1];
  restrict_layout_at(scan_at.data(), max_level, begin, offset);
  restrict_begin.assign(begin, begin + max_level + 1);
}

void exclusive_scan(std::vector<long long>& v) {
  long long sum = 0;
  for (long long& x : v) {
    const long long c = x;
    x = sum;
    sum += c;
  }
}

void emulate_device_plan(const Tree& t, const StepLists& lists, bool reflux, StepPlan& p, int group_min) {
  const PlanView v = plan_view(t);
  const long long nleaf = static_cast<long long>(lists.leaf_octs.size());
  p.leaf_octs.assign(lists.leaf_octs.begin(), lists.leaf_octs.end());
  p.slots.resize(27 * nleaf);
  p.edges.resize(6 * nleaf);
  p.skip.resize(nleaf);
  p.keep.resize(nleaf);
  p.head.resize(nleaf);
  for (long long i = 0; i < nleaf; ++i)
    plan_leaf_entries(v, p.leaf_octs.data(), nleaf, i, reflux, group_min, nullptr, t.level_begin[t.max_level],
                      p.edges.data(), p.skip.data(),
                      p.keep.data(), p.head.data());
  std::vector<long long> single_scan(nleaf + 1, 0), group_scan(nleaf + 1, 0);
  for (long long i = 0; i < nleaf; ++i) {
    single_scan[i] = plan_is_single(v, p.leaf_octs.data(), p.head.data(), i);
    group_scan[i] = p.head[i] != 0;
  }
  exclusive_scan(single_scan);
  exclusive_scan(group_scan);
  const long long nsingle = single_scan[nleaf], ngroup = group_scan[nleaf], nunit = nsingle + ngroup;
  p.singles.resize(nsingle);
  p.groups.resize(ngroup);
  p.group_members.resize(ngroup);
  p.group_edges.resize(6 * ngroup);
  for (long long i = 0; i < nleaf; ++i)
    plan_split_scatter(v, p.leaf_octs.data(), p.head.data(), i, single_scan.data(), group_scan.data(),
                       p.singles.data(), p.groups.data(), p.group_members.data(), p.group_edges.data());
  p.group_slots.resize(64 * ngroup);
  // The device runs pass 2 as independent (unit, slot) entries spread over a warp per unit, the
  // ghost count a warp sum: here in another order than any one thread's (slot-major over all
  // units, the member rows cleared first), so the test sees a dependence between entries.
  std::vector<long long> ghosts(nunit + 1, 0);
  for (int k = 0; k < 8 * 27; ++k)
    for (long long u = 0; u < nunit; ++u)
      if (k < plan_unit_clear_count(u, nsingle))
        plan_unit_clear(p.groups.data(), p.group_members.data(), nsingle, u, k, p.slots.data());
  for (int s = 0; s < 64; ++s)
    for (long long u = 0; u < nunit; ++u)
      if (s < plan_unit_slot_count(u, nsingle))
        ghosts[u] += plan_unit_slot_entry(v, p.leaf_octs.data(), p.singles.data(), p.groups.data(),
                                          p.group_members.data(), nsingle, u, s, p.slots.data(), p.group_slots.data());
  exclusive_scan(ghosts);
  p.ghost_begin.assign(ghosts.begin(), ghosts.end());
  const long long nghost = ghosts[nunit];
  p.ghost_src.resize(7 * nghost);
  p.ghost_flip.resize(7 * nghost);
  // The device numbers pass 3's ghosts slot by slot, a warp per unit (each slot's number: its
  // unit's first plus the ghost slots below it): here slot-major over all units as well.
  std::vector<long long> next_ghost(ghosts.begin(), ghosts.end() - 1);
  for (int s = 0; s < 64; ++s)
    for (long long u = 0; u < nunit; ++u) {
      if (s >= plan_unit_slot_count(u, nsingle)) continue;
      std::int32_t* row = plan_unit_row(p.slots.data(), p.group_slots.data(), p.singles.data(), nsingle, u);
      if (plan_slot_is_ghost(row[s]))
        plan_unit_ghost_entry(v, p.leaf_octs.data(), p.singles.data(), p.groups.data(), nsingle, u, s,
                              next_ghost[u]++, row, p.ghost_src.data(), p.ghost_flip.data());
    }
  const long long ncoarse = t.level_begin[t.max_level];
  std::vector<long long> restrict_scan(ncoarse + 1, 0);
  for (long long o = 0; o < ncoarse; ++o) restrict_scan[o] = plan_restrict_count(t.son.data(), o);
  exclusive_scan(restrict_scan);
  std::vector<long long> scan_at(t.max_level + 1);
  for (int l = 0; l <= t.max_level; ++l) scan_at[l] = restrict_scan[t.level_begin[l]];
  long long offset[max_levels + 1];
  restrict_layout(scan_at, p.restrict_begin, offset);
  p.restrict_cell.resize(restrict_scan[ncoarse]);
  p.restrict_son.resize(restrict_scan[ncoarse]);
  for (long long o = 0; o < ncoarse; ++o)
    plan_restrict_fill(t.son.data(), t.level.data(), o, restrict_scan.data(), offset, p.restrict_cell.data(),
                       p.restrict_son.data());
}

std::vector<long long> owned_table(const Tree& t) {
  std::vector<long long> owned;
  if (t.owned_begin.empty()) return owned;
  for (int l = 0; l <= t.max_level; ++l) {
    owned.push_back(t.owned_begin[l]);
    owned.push_back(t.owned_end[l]);
  }
  return owned;
}

void emulate_device_lists(const Tree& t, StepLists& s) {
  const TreeView v = tree_view(t);
  const std::int32_t* son = t.son.data();
  const long long n = t.noct(), ncoarse = t.level_begin[t.max_level];
  const std::vector<long long> table = owned_table(t);
  const long long* owned = table.empty() ? nullptr : table.data();
  std::vector<long long> leaf_scan(n + 1, 0), face_scan(ncoarse + 1, 0);
  std::vector<std::uint64_t> face_mask(ncoarse, 0);
  for (long long o = 0; o < n; ++o) {
    if (!lists_owns(owned, o, t.level[o])) continue;
    leaf_scan[o] = lists_leaf_flag(son, o);
    if (o >= ncoarse) continue;
    face_mask[o] = lists_face_mask(v, son, o);
    face_scan[o] = lists_popcount(face_mask[o]);
  }
  exclusive_scan(leaf_scan);
  exclusive_scan(face_scan);
  s.leaf_octs_begin.resize(t.max_level + 2);
  for (int l = 0; l <= t.max_level + 1; ++l) s.leaf_octs_begin[l] = leaf_scan[t.level_begin[l]];
  s.leaf_octs.resize(leaf_scan[n]);
  s.faces.resize(face_scan[ncoarse]);
  for (long long o = 0; o < n; ++o)
    lists_fill(v, son, o, ncoarse, leaf_scan.data(), face_scan.data(), face_mask.data(), s.leaf_octs.data(),
               s.faces.data());
  s.reflux_octs.clear();
  s.reflux_begin.clear();
}

void emulate_plan_step(const Tree& t, const StepPlan& p, const StepLists& lists, const HydroParams& hp, bool reflux,
                       const std::vector<double>& u, std::vector<double>& unew, double dt,
                       std::vector<double>* fine_flux_out, const std::function<void(double*)>& fluxes) {
  const long long stride = t.noct() * 8;
  const long long nghost = static_cast<long long>(p.ghost_flip.size() / 7);
  std::vector<double> ghost(nghost * 8 * nvar), fine_flux(t.noct() * fine_flux_per_oct, 0.0);
  emulate_ghosts(p, hp, u, stride, 0, nghost, ghost);
  // The device's unew holds an older state (or nothing, after a regrid): the step must write every
  // cell, leaf cells in the units and covered cells in the restriction. NaN here makes a cell it
  // missed show in the state.
  unew.assign(u.size(), std::numeric_limits<double>::quiet_NaN());
  block::Args a{p.leaf_octs.data(), p.edges.data(), p.skip.data(), p.keep.data(), t.level.data(),
                t.son.data(), ghost.data(), fine_flux.data(), nullptr, stride, dt, t.base->dx};
  const long long nsingle = static_cast<long long>(p.singles.size()), ngroup = static_cast<long long>(p.groups.size());
  emulate_units<2, block::lanes>(a, hp, u, unew, block::octs_per_block, nsingle,
                                 [&](long long j) { return single_unit(p, p.singles[j]); },
                                 [&](long long j) { return &p.slots[27 * static_cast<std::size_t>(p.singles[j])]; });
  emulate_groups(a, hp, p, u, unew, 0, ngroup);
  if (fluxes) fluxes(fine_flux.data());
  const long long nfaces = static_cast<long long>(lists.faces.size());
  if (reflux)
    for (long long k = 0; k < nfaces * nvar; ++k)
      block::reflux_cell(k % nfaces, int(k / nfaces), nfaces, lists.faces.data(), t.level.data(), fine_flux.data(),
                         stride, dt, t.base->dx, unew.data());
  for (std::size_t k = 0; k + 1 < p.restrict_begin.size(); ++k)
    for (std::int64_t e = p.restrict_begin[k]; e < p.restrict_begin[k + 1]; ++e)
      restrict_cell(unew.data(), stride, p.restrict_cell[e], p.restrict_son[e]);
  if (fine_flux_out) *fine_flux_out = fine_flux;
}

PlanLevels plan_levels_from_words(const long long* words, int max_level) {
  PlanLevels lv;
  lv.ghosts = words[0];
  std::vector<long long>* per_level[5] = {&lv.leaf_begin, &lv.single_begin, &lv.group_begin, &lv.single_ghost_begin,
                                          &lv.group_ghost_begin};
  for (int k = 0; k < 5; ++k) {
    per_level[k]->resize(max_level + 2);
    for (int l = 0; l <= max_level + 1; ++l) (*per_level[k])[l] = words[1 + 5 * l + k];
  }
  lv.face_begin.assign(words + 1 + 5 * (max_level + 2), words + plan_level_words(max_level));
  return lv;
}

PlanLevels emulate_plan_levels(const Tree& t, const StepPlan& p) {
  const TreeView v = tree_view(t);
  const long long n = t.noct(), ncoarse = t.level_begin[t.max_level];
  const long long nleaf = static_cast<long long>(p.leaf_octs.size());
  std::vector<long long> leaf_scan(n + 1, 0), face_scan(ncoarse + 1, 0), single_scan(nleaf + 1, 0),
      group_scan(nleaf + 1, 0);
  const std::vector<long long> table = owned_table(t);
  const long long* owned = table.empty() ? nullptr : table.data();
  for (long long o = 0; o < n; ++o) {
    if (!lists_owns(owned, o, t.level[o])) continue;
    leaf_scan[o] = lists_leaf_flag(t.son.data(), o);
    if (o < ncoarse) face_scan[o] = lists_popcount(lists_face_mask(v, t.son.data(), o));
  }
  const PlanView pv = plan_view(t);
  for (long long i = 0; i < nleaf; ++i) {
    single_scan[i] = plan_is_single(pv, p.leaf_octs.data(), p.head.data(), i);
    group_scan[i] = p.head[i] != 0;
  }
  for (auto* scan : {&leaf_scan, &face_scan, &single_scan, &group_scan}) exclusive_scan(*scan);
  // The device's element types (the host tables hold std::int64_t).
  const std::vector<long long> level_begin(t.level_begin.begin(), t.level_begin.end());
  const std::vector<long long> ghost_begin(p.ghost_begin.begin(), p.ghost_begin.end());
  std::vector<long long> words(plan_level_words(t.max_level));
  plan_level_ranges(level_begin.data(), t.max_level, leaf_scan.data(), face_scan.data(), single_scan.data(),
                    group_scan.data(), ghost_begin.data(), words.data());
  return plan_levels_from_words(words.data(), t.max_level);
}

void emulate_plan_subcycled_step(const Tree& t, const StepPlan& p, const StepLists& lists, const PlanLevels& lv,
                                 const HydroParams& hp, bool reflux, std::vector<double>& u, std::vector<double>& unew,
                                 std::vector<double>& fine_flux, std::vector<double>& flux_sum, double dt0,
                                 const std::function<void(int, double*)>& ghosts,
                                 const std::function<void(int, double*)>& fluxes) {
  const long long stride = t.noct() * 8;
  // NaN until the ghost pass writes them: the second substep reuses the first's (as the device).
  std::vector<double> ghost(lv.ghosts * 8 * nvar, std::numeric_limits<double>::quiet_NaN());
  // The device never zeroes the sums (block::flux_sum_add), and the finest level's second substep
  // reads the unew its first wrote: a sum or a cell read before this coarse step wrote it would
  // carry NaN into u.
  std::fill(flux_sum.begin(), flux_sum.end(), std::numeric_limits<double>::quiet_NaN());
  std::fill(unew.begin(), unew.end(), std::numeric_limits<double>::quiet_NaN());
  const auto amr_step = [&](const auto& self, int l, double dt, bool first_substep) -> void {
    const bool finer = l < t.max_level && t.octs_at(l + 1) > 0;
    if (finer) {
      self(self, l + 1, 0.5 * dt, true);
      self(self, l + 1, 0.5 * dt, false);
    }
    // The finest level's two substeps ping-pong between u and unew without a commit (the device's
    // subcycle_level).
    const bool pingpong = !finer && l > 0;
    std::vector<double>& in = pingpong && !first_substep ? unew : u;
    std::vector<double>& out = pingpong && !first_substep ? u : unew;
    if (ghosts) ghosts(l, in.data());
    // One ghost_kernel launch over both ranges on the device; the ranges' slots are disjoint and read only u.
    if (first_substep) {
      emulate_ghosts(p, hp, u, stride, lv.single_ghost_begin[l], lv.single_ghost_begin[l + 1], ghost);
      emulate_ghosts(p, hp, u, stride, lv.group_ghost_begin[l], lv.group_ghost_begin[l + 1], ghost);
    }
    double* sums = reflux && l > 0 ? flux_sum.data() : nullptr;
    block::Args a{p.leaf_octs.data(), p.edges.data(), p.skip.data(), p.keep.data(), t.level.data(),
                  t.son.data(), ghost.data(), fine_flux.data(), sums, stride, dt, t.base->dx};
    a.sum_first = first_substep;
    const long long s0 = lv.single_begin[l], g0 = lv.group_begin[l];
    emulate_units<2, block::lanes>(
        a, hp, in, out, block::octs_per_block, lv.single_begin[l + 1] - s0,
        [&](long long j) { return single_unit(p, p.singles[s0 + j]); },
        [&](long long j) { return &p.slots[27 * static_cast<std::size_t>(p.singles[s0 + j])]; });
    emulate_groups(a, hp, p, in, out, g0, lv.group_begin[l + 1]);
    if (pingpong) return;
    const long long i0 = lv.leaf_begin[l], i1 = lv.leaf_begin[l + 1];
    if (finer && reflux) {
      if (fluxes) fluxes(l, flux_sum.data());
      const long long f0 = lv.face_begin[l], nf = lv.face_begin[l + 1] - f0;
      for (long long k = 0; k < nf * nvar; ++k)
        block::reflux_cell(k % nf, int(k / nf), nf, lists.faces.data() + f0, t.level.data(), flux_sum.data(), stride,
                           1.0, t.base->dx, unew.data());
    }
    // commit_restrict_kernel: the commit's blocks, then the restriction's (disjoint cells).
    for (long long i = i0; i < i1; ++i)
      for (int c = 0; c < 8; ++c) commit_cell(std::int64_t(p.leaf_octs[i]) * 8 + c, t.son.data(), stride, unew.data(), u.data());
    if (finer) {
      const std::size_t k = static_cast<std::size_t>(t.max_level - 1 - l);
      for (std::int64_t e = p.restrict_begin[k]; e < p.restrict_begin[k + 1]; ++e)
        restrict_cell(u.data(), stride, p.restrict_cell[e], p.restrict_son[e]);
    }
  };
  amr_step(amr_step, 0, dt0, true);
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
  const std::vector<long long> table = owned_table(t);
  const long long* owned = table.empty() ? nullptr : table.data();
  for (long long g = 0; g < ncell; ++g) {
    int l;
    unsigned long long bits;
    bool ok;
    if (!lists_owns(owned, g >> 3, t.level[g >> 3])) continue;
    if (!block::leaf_speed(u.data(), ncell, t.son.data(), t.level.data(), gamma, g, l, bits, ok)) continue;
    words[l] = std::max(words[l], bits);
    if (!ok) words[nlevel] = std::max(words[nlevel], ~static_cast<unsigned long long>(g));
  }
  return leaf_scan_from_words(words.data(), nlevel);
}

}  // namespace ro::amr
