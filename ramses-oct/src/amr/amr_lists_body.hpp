// The step lists' per-oct work (StepLists, amr_solver.hpp) written once as host/device functions
// over raw tables, as the plan's (amr_plan_body.hpp): the host build_step_lists (serial or OpenMP)
// and the device lists build (amr_gpu.cu: a count kernel, exclusive scans, a fill kernel) call the
// same bodies, so both give the same leaf octs and reflux faces.
#pragma once
#include <cstdint>

#include "amr/amr_regrid_body.hpp"

namespace ro::amr {

// A coarse leaf cell's face whose neighbour on the same level is refined: the cell takes the
// average of the son oct's four face fluxes there (refluxing).
struct RefluxFace {
  std::int64_t cell;
  int face;             // face of the coarse cell, 2*axis + side
  std::int32_t fine_oct;
};

// The bodies come per cell, and per oct as the loop of its eight cells: the device runs a lane per
// cell (the eight lanes of an oct in one warp, combined by shuffles), as an oct's 48 face lookups
// are independent chains of loads that a thread per oct ran in series (lists_count 18.4 us and
// lists_fill 18.8 us, 163 blocks of 128, H200, Sedov 32^3 + 2); the host loops over the cells.

// Over MPI ranks (amr_ranks.hpp) the lists, and so the plan, and the dt scan cover the octs this
// rank owns: owned holds per level l its range [owned[2 l], owned[2 l + 1]) (Tree::owned_begin and
// owned_end); null on one rank, where every oct is owned. The other octs' state is never trusted:
// it is stale, or garbage the step computes from stale cells, until the ghost exchange fills it.
RO_HD bool lists_owns(const long long* owned, long long o, int l) {
  return !owned || (o >= owned[2 * l] && o < owned[2 * l + 1]);
}

// Pass 1, cell c of oct o: whether it is a leaf (the oct is updated by the step when one is).
RO_HD bool lists_cell_is_leaf(const std::int32_t* son, long long o, int c) { return son[o * 8 + c] < 0; }

// Pass 1, every oct: 1 when it holds a leaf cell, else 0.
RO_HD long long lists_leaf_flag(const std::int32_t* son, long long o) {
  for (int c = 0; c < 8; ++c)
    if (lists_cell_is_leaf(son, o, c)) return 1;
  return 0;
}

// Pass 1, cell c of an oct o below the finest level: its reflux faces as bits 6 * c + face, the
// faces of the leaf cell whose same-level neighbour is refined (the coarse side of a coarse-fine
// face). The eight cells' bits are disjoint, so their OR is the oct's mask.
RO_HD std::uint64_t lists_cell_face_mask(const TreeView& v, const std::int32_t* son, long long o, int c) {
  std::uint64_t mask = 0;
  if (!lists_cell_is_leaf(son, o, c)) return mask;
  for (int f = 0; f < 6; ++f) {
    const long long nb = view_same_level_neighbour(v, o, c, f / 2, f % 2);
    if (nb >= 0 && son[nb] >= 0) mask |= std::uint64_t(1) << (6 * c + f);
  }
  return mask;
}

// Pass 1, every oct below the finest level: its reflux faces, the OR of its cells' masks.
RO_HD std::uint64_t lists_face_mask(const TreeView& v, const std::int32_t* son, long long o) {
  std::uint64_t mask = 0;
  for (int c = 0; c < 8; ++c) mask |= lists_cell_face_mask(v, son, o, c);
  return mask;
}

RO_HD long long lists_popcount(std::uint64_t m) {
  long long n = 0;
  for (; m; m &= m - 1) ++n;
  return n;
}

// Pass 2, cell c of oct o, after the exclusive scans of the leaf flags (leaf_scan, n + 1 entries)
// and of the coarse octs' face counts (face_scan, at least ncoarse + 1): cell 0 writes o's entry
// of leaf_octs; every cell of a coarse oct writes its reflux faces in face order, each with the
// fine oct beyond it, from o's first face plus the faces of the cells before c. So the faces come
// in (oct, cell, face) order whatever cells run together (the reflux relies on a cell's faces
// being consecutive).
RO_HD void lists_fill_cell(const TreeView& v, const std::int32_t* son, long long o, int c, long long ncoarse,
                           const long long* leaf_scan, const long long* face_scan, const std::uint64_t* face_mask,
                           std::int32_t* leaf_octs, RefluxFace* faces) {
  if (c == 0 && leaf_scan[o + 1] > leaf_scan[o]) leaf_octs[leaf_scan[o]] = static_cast<std::int32_t>(o);
  if (o >= ncoarse) return;
  const std::uint64_t all = face_mask[o];
  long long e = face_scan[o] + lists_popcount(all & ((std::uint64_t(1) << (6 * c)) - 1));
  // The six faces in a loop of fixed length (unrolled: compile-time axis and side), not a walk over
  // the mask's set bits: a runtime face indexes the view's pointer arrays, and a kernel then copies
  // its whole TreeView parameter to local memory in every thread (112 B per thread, ~1 GB per
  // launch at 1.1M octs on the H200). Same faces, same order.
  const std::uint64_t mask = (all >> (6 * c)) & 63;
  for (int f = 0; f < 6; ++f) {
    if (!((mask >> f) & 1)) continue;
    const long long nb = view_same_level_neighbour(v, o, c, f / 2, f % 2);
    faces[e++] = RefluxFace{o * 8 + c, f, son[nb]};
  }
}

// Pass 2, every oct: its eight cells in order.
RO_HD void lists_fill(const TreeView& v, const std::int32_t* son, long long o, long long ncoarse,
                      const long long* leaf_scan, const long long* face_scan, const std::uint64_t* face_mask,
                      std::int32_t* leaf_octs, RefluxFace* faces) {
  for (int c = 0; c < 8; ++c) lists_fill_cell(v, son, o, c, ncoarse, leaf_scan, face_scan, face_mask, leaf_octs, faces);
}

}  // namespace ro::amr
