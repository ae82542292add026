// The step lists' per-oct work (StepLists, amr_solver.hpp) written once as host/device functions
// over raw tables, as the plan's (amr_plan_body.hpp): the host build_step_lists (serial or OpenMP)
// and the device lists build (amr_gpu.cu: a count kernel, exclusive scans, a fill kernel) call the
// same bodies, so both give the same leaf octs and reflux faces (README "AMR", "The device lists").
#pragma once
#include <cstdint>

#include "amr_regrid_body.hpp"
#include "amr_solver.hpp"

namespace ro::amr {

// Pass 1, every oct: 1 when it holds a leaf cell (it is updated by the step), else 0.
RO_HD long long lists_leaf_flag(const std::int32_t* son, long long o) {
  for (int c = 0; c < 8; ++c)
    if (son[o * 8 + c] < 0) return 1;
  return 0;
}

// Pass 1, every oct below the finest level: its reflux faces as bits 6 * cell + face, the faces of
// its leaf cells whose same-level neighbour is refined (the coarse side of a coarse-fine face).
RO_HD std::uint64_t lists_face_mask(const TreeView& v, const std::int32_t* son, long long o) {
  std::uint64_t mask = 0;
  for (int c = 0; c < 8; ++c) {
    if (son[o * 8 + c] >= 0) continue;
    for (int f = 0; f < 6; ++f) {
      const long long nb = view_same_level_neighbour(v, o, c, f / 2, f % 2);
      if (nb >= 0 && son[nb] >= 0) mask |= std::uint64_t(1) << (6 * c + f);
    }
  }
  return mask;
}

RO_HD long long lists_popcount(std::uint64_t m) {
  long long n = 0;
  for (; m; m &= m - 1) ++n;
  return n;
}

// Pass 2, every oct, after the exclusive scans of the leaf flags (leaf_scan, n + 1 entries) and of
// the coarse octs' face counts (face_scan, ncoarse + 1): o's entry of leaf_octs and its reflux
// faces in (cell, face) order, each with the fine oct beyond it.
RO_HD void lists_fill(const TreeView& v, const std::int32_t* son, long long o, long long ncoarse,
                      const long long* leaf_scan, const long long* face_scan, const std::uint64_t* face_mask,
                      std::int32_t* leaf_octs, RefluxFace* faces) {
  if (leaf_scan[o + 1] > leaf_scan[o]) leaf_octs[leaf_scan[o]] = static_cast<std::int32_t>(o);
  if (o >= ncoarse) return;
  long long e = face_scan[o];
  for (std::uint64_t mask = face_mask[o]; mask; mask &= mask - 1) {
    int bit = 0;
    while (!((mask >> bit) & 1)) ++bit;
    const int c = bit / 6, f = bit % 6;
    const long long nb = view_same_level_neighbour(v, o, c, f / 2, f % 2);
    faces[e++] = RefluxFace{o * 8 + c, f, son[nb]};
  }
}

}  // namespace ro::amr
