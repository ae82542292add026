// The request lists of AMR over ranks (amr_ranks.hpp) written once as host/device functions over
// raw tables, as the lists' and the plan's (amr_lists_body.hpp, amr_plan_body.hpp): the host's
// ghost_octs and rank_lists and the GPU step's rank_lists (amr_gpu_lists.cu: a mark kernel per
// level, an exclusive scan, a fill; a flag kernel over the reflux faces, a scan, a fill) call the
// same bodies, so both give the same lists. They are the messages' contents (the octs and fine
// faces asked of their owners), of the halo's size: a device regrid brings up these, not the tree.
#pragma once
#include <cstdint>

#include "amr/amr_lists_body.hpp"
#include "amr/amr_plan_body.hpp"
#include "amr/amr_subcycle.hpp"

namespace ro::amr {

// Slot s (0..26) of owned oct o: mark[g] = 1 for every oct g of another rank that the state loops
// of o read there: the slot's oct (update_oct's 27 slots: the oct itself across a reflecting or
// outflow face, periodic wraps), or where it is missing the level-(l-1) cell that prolong_from
// reads and its six face neighbours (located, after the boundary mapping). The criterion's face
// neighbours and a regrid's prolongation sources are among them. Only stores of 1: the threads
// that mark one oct write the same byte, so the marks need no atomics and do not depend on the
// order. mark holds one entry per oct (the host a byte, the device the long long its scan reads);
// a compaction in index order gives the sorted unique list.
template <class Mark>
RO_HD void ghost_mark_slot(const PlanView& v, const long long* owned, std::int32_t o, int s, Mark* mark) {
  const int l = v.t.level[o];
  const int oc[3] = {v.t.coord[0][o], v.t.coord[1][o], v.t.coord[2][o]};
  int c[3];
  view_slot_coords(v, l, oc, s, c);
  const std::int32_t so = view_find_oct(v, l, c[0], c[1], c[2]);
  if (so >= 0) {
    if (!lists_owns(owned, so, l)) mark[so] = 1;
    return;
  }
  for (int k = 0; k < 7; ++k) {
    int q[3] = {c[0], c[1], c[2]};
    if (k > 0) q[(k - 1) / 2] += (k - 1) % 2 ? 1 : -1;
    long long cell;
    int level;
    bool flip[3];
    view_locate(v, l - 1, q, cell, level, flip);
    // cell < 0 only for a broken tree (no level-0 oct there), which check_father_son reports.
    if (cell >= 0 && !lists_owns(owned, cell / 8, level)) mark[cell / 8] = 1;
  }
}

// A reflux face of this rank's coarse cell whose fine oct another rank owns: its four fine fluxes
// come from that rank before the reflux.
RO_HD bool flux_requested(const std::int8_t* level, const long long* owned, const RefluxFace& f) {
  return !lists_owns(owned, f.fine_oct, level[f.fine_oct]);
}

// The partition's work (base_work, amr_ranks.hpp): oct o of level l adds its leaf cells, each
// weighted by the substeps of its level (2^l under --subcycle, 1 otherwise), to its base oct's
// work. Integers: the sums are exact in any order (the device adds them with atomics).
RO_HD long long oct_work(const std::int32_t* son, long long o, int l, bool subcycle) {
  long long leaves = 0;
  for (int c = 0; c < 8; ++c) leaves += son[o * 8 + c] < 0;
  return leaves * level_substeps(l, subcycle);
}

// The base oct of an oct of level l with key k: the key's base part (a key is its base oct's
// key followed by 3 bits per level, and the base octs' keys are their indices, base_tree).
RO_HD long long base_oct_of(std::uint64_t k, int l) { return static_cast<long long>(k >> (3 * l)); }

}  // namespace ro::amr
