// The leaf update as two cell-parallel passes (--leaf-update cells; README "The leaf update by
// cells"), written once for the device kernels and the host emulation, as amr_leaf_block.hpp is.
// It runs over the same units and slot rows as the unit kernel but keeps no subgrid in shared
// memory: the predicted states go through global memory, where every cell is predicted once.
//   pass 1 (predict_item): one thread per predictor cell of a unit (the T^3 + 6 T^2 cells whose
//     face states the unit's faces need, Unit<T>::P); the unit stores those it owns, its leaf
//     cells and its ghost slots' cells: qh and dq_x, dq_y, dq_z ([ext_vars][rows]; a leaf cell's
//     row is its cell index oct * 8 + c, a ghost cell's stride + ghost * 8 + c). A cell of another
//     unit's leaf oct is that unit's to store, a covered cell's state is never read.
//   pass 2 (update_item): one thread per leaf cell; per face the flux from its own and its
//     neighbour's stored states (a face between two leaf cells is solved by both, from the same
//     operands in the same order: the same bits, so the update stays conservative), no flux
//     where the neighbour is refined, the kept fine fluxes stored (and summed under --subcycle) as
//     the unit kernel does; then conservative_update's sum. Two neighbours no pass 1 thread
//     stores have their state predicted there: an image beyond a reflecting or outflow face of
//     the domain, and (without reflux, the test-only switch, where a face next to a refined cell
//     takes the flux of the covered cell's restricted state) a covered cell.
// Per leaf cell: 1 predictor (plus the ghost cells', against 2.5 in the sibling-group unit), 6
// Riemann solves (3.75), 7 gathered cells read through the L1/L2 caches (4.75 into shared memory).
// The uniform analogue (split_cells.hpp, variant split) ran at 4.5e9 cell updates/s on the H200
// against 3.65e9 for the subgrid8 tile (balanced) and 4.1e9 for zmarch; this one did not beat
// the unit kernel (Sedov 128^3 + 2 levels: steps 27.0 s against 21.8 s): the slot rows' lookups
// of the neighbours, the predictor items a unit does not own and 80-114 registers per thread
// cost more here than the shared memory saved. It stays an option, measured, for other GPUs.
#pragma once
#include <cstdint>

#include "amr_leaf_block.hpp"
#include "tile_geometry.hpp"

// The state predicted where it is read (an image, a covered cell without reflux) stays out of
// line on the device: the predictor's registers do not add to the update's, which calls it only
// for cells beside the domain's reflecting or outflow faces.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define RO_CELLS_OUT_OF_LINE __noinline__
#else
#define RO_CELLS_OUT_OF_LINE
#endif

namespace ro::amr::cells {

inline constexpr int ext_vars = 4 * nvar;  // qh, dq_x, dq_y, dq_z

// Where subgrid cell tc ((T + 4)^3 coordinates of the unit, interior [2, T + 1]) is read from,
// by the gather's rule (block::gather): mirrored or copied inside the unit across a reflecting
// or outflow face of the domain, a partial group's empty slot read as its nearest block oct.
struct Source {
  std::int32_t entry;  // the slot row's entry: oct >= 0, -1 - ghost, or no_slot
  std::int32_t src;    // what is read: oct >= 0, or -1 - ghost
  int local;           // the cell within it
  unsigned flip;       // bit d: the momentum along d changes sign (a reflecting image)
  bool image;          // beyond a reflecting or outflow face of the domain
  int member;          // the unit's own position (x fastest) holding tc, or -1 outside them
};

template <int T>
RO_HD Source source(const std::int32_t* row, const std::int8_t* edges, const int tc[3]) {
  using U = block::Unit<T>;
  Source s{};
  int sl[3], loc[3];
  bool inside = true;
  for (int d = 0; d < 3; ++d) {
    bool flip;
    tile_axis_source(tc[d], U::B, edges[d], edges[3 + d], sl[d], loc[d], flip);
    if (flip) s.flip |= 1u << d;
    const int kind = sl[d] == 0 ? edges[d] : (sl[d] == U::B + 1 ? edges[3 + d] : 0);
    if (kind != 0) s.image = true;
    if (sl[d] < 1 || sl[d] > U::B) inside = false;
  }
  s.local = loc[0] + 2 * loc[1] + 4 * loc[2];
  s.entry = row[sl[0] + U::S * (sl[1] + U::S * sl[2])];
  s.src = s.entry;
  if (s.src == no_slot) s.src = row[block::nearest_inner_slot(sl, U::B)];
  s.member = inside ? (sl[0] - 1) + U::B * ((sl[1] - 1) + U::B * (sl[2] - 1)) : -1;
  return s;
}

// The primitives of a source cell: the gather's load, sign flips and conversion.
RO_HD void load_prim(const block::Args& a, double gamma, const double* u, const Source& s, double q[nvar]) {
  double uc[nvar];
  if (s.src >= 0) {
    for (int f = 0; f < nvar; ++f) uc[f] = u[f * a.stride + (long long)s.src * 8 + s.local];
  } else {
    const double* gv = a.ghost + (long long)(-1 - s.src) * 8 * nvar + s.local * nvar;
    for (int f = 0; f < nvar; ++f) uc[f] = gv[f];
  }
  for (int d = 0; d < 3; ++d)
    if ((s.flip >> d) & 1u) uc[1 + d] = -uc[1 + d];
  cons_to_prim(uc, gamma, q);
}

// The source of tc's face neighbour on side (0 low, 1 high) of axis x, tc's own source s given:
// in the same oct (tc's cell bit along x is 1 - side, and tc is no image, whose cells the gather
// maps by the boundary's rule) it is s with that bit flipped, without the slot row's lookup.
template <int T>
RO_HD Source neighbour_source(const std::int32_t* row, const std::int8_t* edges, const int tc[3], const Source& s,
                              int x, int side) {
  if (!s.image && (tc[x] & 1) != side) {
    Source n = s;
    n.local ^= 1 << x;
    return n;
  }
  int t[3] = {tc[0], tc[1], tc[2]};
  t[x] += side ? 1 : -1;
  return source<T>(row, edges, t);
}

// Slopes and the half-step state of subgrid cell tc with source s (block::predict's arithmetic
// on the same values: the cell, then its low and high neighbours along x, y, z).
template <int T>
RO_HD void predict_at(const block::Args& a, const HydroParams& hp, const double* u, const std::int32_t* row,
                      const std::int8_t* edges, const int tc[3], const Source& s, double dtdx, double qh[nvar],
                      double d[3][nvar]) {
  double qc[nvar];
  load_prim(a, hp.gamma, u, s, qc);
#pragma unroll
  for (int x = 0; x < 3; ++x) {
    double ql[nvar], qr[nvar];
    load_prim(a, hp.gamma, u, neighbour_source<T>(row, edges, tc, s, x, 0), ql);
    load_prim(a, hp.gamma, u, neighbour_source<T>(row, edges, tc, s, x, 1), qr);
    for (int f = 0; f < nvar; ++f) d[x][f] = limited_slope(ql[f], qc[f], qr[f], hp.slope_type);
  }
  predict_half_step(qc, d[0], d[1], d[2], dtdx, hp.gamma, qh);
}

// The stored row of a source that is not an image: leaf cells by cell index, ghost cells after.
RO_HD long long ext_row(const Source& s, long long stride) {
  return s.src >= 0 ? (long long)s.src * 8 + s.local : stride + (long long)(-1 - s.src) * 8 + s.local;
}

// Pass 1, predictor cell m of the unit: m < T^3 its interior cell m (x fastest), then the T^2
// cells beyond each face 2 x + side (the two other axes in order, the first fastest); stored
// where the unit owns it. A unit without ghost slots (ghost_begin[0] == ghost_begin[1], the
// unit's entries of StepPlan::ghost_begin) owns no cell beyond its faces.
template <int T>
RO_HD void predict_item(const block::Args& a, const HydroParams& hp, const double* u, const block::UnitRef& unit,
                        const std::int32_t* row, const long long* ghost_begin, int m, double* ext,
                        long long rows) {
  int tc[3];
  if (m < T * T * T) {
    tc[0] = 2 + m % T;
    tc[1] = 2 + (m / T) % T;
    tc[2] = 2 + m / (T * T);
  } else {
    if (ghost_begin[0] == ghost_begin[1]) return;
    const int k = m - T * T * T, face = k / (T * T), r = k % (T * T);
    const int x = face >> 1, b = x == 0 ? 1 : 0, c = 3 - x - b;
    tc[x] = face & 1 ? T + 2 : 1;
    tc[b] = 2 + r % T;
    tc[c] = 2 + r / T;
  }
  const Source s = source<T>(row, unit.edges, tc);
  if (s.image || s.entry == no_slot) return;
  if (s.entry >= 0 && (s.member < 0 || !((unit.members >> s.member) & 1u) || a.son[(long long)s.entry * 8 + s.local] >= 0))
    return;
  double qh[nvar], d[3][nvar];
  predict_at<T>(a, hp, u, row, unit.edges, tc, s, block::dtdx_of(a, a.leaf_octs[unit.first]), qh, d);
  const long long r = ext_row(s, a.stride);
  for (int f = 0; f < nvar; ++f) {
    ext[f * rows + r] = qh[f];
    for (int x = 0; x < 3; ++x) ext[(nvar + x * nvar + f) * rows + r] = d[x][f];
  }
}

// The state of subgrid cell tc along AXIS predicted here (no pass 1 thread stores it).
template <int T, int AXIS>
RO_HD RO_CELLS_OUT_OF_LINE void predicted_state(const block::Args& a, const HydroParams& hp, const double* u,
                                                const std::int32_t* row, const std::int8_t* edges, const int tc[3],
                                                double dtdx, double qh[nvar], double dq[nvar]) {
  double d[3][nvar];
  predict_at<T>(a, hp, u, row, edges, tc, source<T>(row, edges, tc), dtdx, qh, d);
  for (int f = 0; f < nvar; ++f) dq[f] = d[AXIS][f];
}

// The flux through face SIDE (0 low, 1 high) along AXIS of leaf cell g (unit cell tc, cell c of
// oct g / 8, leaf index i) from its stored state (qh, dq) and its neighbour's: stored, or
// predicted here for an image (and, without reflux, a covered cell); 0 for a skipped face, as in
// the unit kernel; a kept face's flux is stored (and summed) at its sub-face. Predicts = false: no
// neighbour needs predicting (every axis periodic, reflux on), and the kernel is leaner by the
// predictor's registers (112-118 against 150 on sm_90).
template <int T, int AXIS, int SIDE, bool Predicts>
RO_HD void face_of_cell(const block::Args& a, const HydroParams& hp, const double* u, const block::UnitRef& unit,
                        const std::int32_t* row, const int tc[3], long long g, long long i, int c, std::uint64_t skip,
                        double dtdx, bool reflux, const double* ext, long long rows, const double qh[nvar],
                        const double dq[nvar], double flux[nvar]) {
  constexpr int face = 2 * AXIS + SIDE;
  if ((skip >> face) & 1u) {
    for (int f = 0; f < nvar; ++f) flux[f] = 0.0;
    return;
  }
  int tn[3] = {tc[0], tc[1], tc[2]};
  tn[AXIS] += SIDE ? 1 : -1;
  // A neighbour in g's own oct is cell g ^ (1 << AXIS): no slot row lookup.
  const bool in_oct = ((c >> AXIS) & 1) != SIDE;
  Source s{};
  if (!in_oct) s = source<T>(row, unit.edges, tn);
  const long long nb = in_oct ? (g ^ (1 << AXIS)) : (s.image ? -1 : ext_row(s, a.stride));
  double nqh[nvar], ndq[nvar];
  if (Predicts && (s.image || (!reflux && nb < a.stride && a.son[nb] >= 0))) {
    predicted_state<T, AXIS>(a, hp, u, row, unit.edges, tn, dtdx, nqh, ndq);
  } else {
    const long long r = nb;
    for (int f = 0; f < nvar; ++f) {
      nqh[f] = ext[f * rows + r];
      ndq[f] = ext[(nvar + AXIS * nvar + f) * rows + r];
    }
  }
  if (SIDE == 0) face_flux<AXIS>(nqh, ndq, qh, dq, hp, flux);
  else face_flux<AXIS>(qh, dq, nqh, ndq, hp, flux);
  if (((c >> AXIS) & 1) == SIDE && ((a.keep[i] >> face) & 1u)) {
    constexpr int b = AXIS == 0 ? 1 : 0, cc = 3 - AXIS - b;
    const int sub = ((c >> b) & 1) + 2 * ((c >> cc) & 1);
    const long long at = ((g >> 3) * 6 + face) * 4 * nvar + sub * nvar;
    for (int f = 0; f < nvar; ++f) {
      a.fine_flux[at + f] = flux[f];
      if (a.flux_sum) block::flux_sum_add(a, at + f, flux[f]);
    }
  }
}

// The two faces of leaf cell g along AXIS: acc gets F_low - F_high, the first axis setting it
// (conservative_update's ((x) + (y)) + (z)).
template <int T, int AXIS, bool Predicts>
RO_HD void axis_fluxes(const block::Args& a, const HydroParams& hp, const double* u, const block::UnitRef& unit,
                       const std::int32_t* row, const int tc[3], long long g, long long i, int c, std::uint64_t skip,
                       double dtdx, bool reflux, const double* ext, long long rows, double acc[nvar]) {
  double qh[nvar], dq[nvar], lo[nvar], hi[nvar];
  for (int f = 0; f < nvar; ++f) {
    qh[f] = ext[f * rows + g];
    dq[f] = ext[(nvar + AXIS * nvar + f) * rows + g];
  }
  face_of_cell<T, AXIS, 0, Predicts>(a, hp, u, unit, row, tc, g, i, c, skip, dtdx, reflux, ext, rows, qh, dq, lo);
  face_of_cell<T, AXIS, 1, Predicts>(a, hp, u, unit, row, tc, g, i, c, skip, dtdx, reflux, ext, rows, qh, dq, hi);
  for (int f = 0; f < nvar; ++f) acc[f] = AXIS == 0 ? lo[f] - hi[f] : acc[f] + (lo[f] - hi[f]);
}

// Whether pass 2 may meet a neighbour that no pass 1 thread stores: an image (a reflecting or
// outflow axis) or, without reflux, a covered cell.
inline bool needs_predicts(const int bc[3], bool reflux) { return !reflux || bc[0] != 0 || bc[1] != 0 || bc[2] != 0; }

// Pass 2, unit cell j (x fastest) of the unit: its update where it is a leaf cell of a member (a
// halted step copies it, as block::hold_unit). reflux: the plan's (false: the faces next to a
// refined cell take a flux too). Predicts: some neighbour may need predicting (needs_predicts).
template <int T, bool Predicts = true>
RO_HD void update_item(const block::Args& a, const HydroParams& hp, const double* u, double* unew,
                       const block::UnitRef& unit, const std::int32_t* row, int j, bool reflux, const double* ext,
                       long long rows) {
  constexpr int B = block::Unit<T>::B;
  const int ci = j % T, cj = (j / T) % T, ck = j / (T * T);
  const int m = (ci >> 1) + B * ((cj >> 1) + B * (ck >> 1));
  if (!((unit.members >> m) & 1u)) return;
  const long long i = unit.first + member_rank(unit.members, m);
  const int c = (ci & 1) + 2 * (cj & 1) + 4 * (ck & 1);
  const long long g = (long long)a.leaf_octs[i] * 8 + c;
  if (a.son[g] >= 0) return;
  if (a.clock && a.clock->halt) {
    for (int f = 0; f < nvar; ++f) unew[f * a.stride + g] = u[f * a.stride + g];
    return;
  }
  const double dtdx = block::dtdx_of(a, a.leaf_octs[unit.first]);
  const std::uint64_t skip = a.skip[i] >> (6 * c);
  const int tc[3] = {ci + 2, cj + 2, ck + 2};
  double acc[nvar];
  axis_fluxes<T, 0, Predicts>(a, hp, u, unit, row, tc, g, i, c, skip, dtdx, reflux, ext, rows, acc);
  axis_fluxes<T, 1, Predicts>(a, hp, u, unit, row, tc, g, i, c, skip, dtdx, reflux, ext, rows, acc);
  axis_fluxes<T, 2, Predicts>(a, hp, u, unit, row, tc, g, i, c, skip, dtdx, reflux, ext, rows, acc);
  for (int f = 0; f < nvar; ++f) unew[f * a.stride + g] = u[f * a.stride + g] + dtdx * acc[f];
}

}  // namespace ro::amr::cells
