// The body of the GPU AMR step written once as host/device functions (as zmarch.hpp does for the
// uniform kernels): amr_gpu.cu calls each phase with the unit's threads and a barrier between
// phases; the host emulation (amr_plan.cpp, emulate_plan_step) calls them block by block, unit by
// unit, one thread looping over the lanes, so a cpu test checks the plan and every index map of
// the GPU step against the oracle. A unit is a T^3 block of leaf-level cells updated together:
// T = 2, one leaf oct (64 threads, four octs per block, each with its own slice of shared
// memory); T = 4, a sibling group: the aligned 2 x 2 x 2 block of one level (the 8 sons of one
// father oct; above level 0, or 8 aligned base octs) whose leaf octs (all 8, or at least
// tuning group-min of them: a partial group) are consecutive in the leaf list (key order), one block
// per group; its other octs are only read. Phases (the subgrid6 phases of kernels_gpu.cu): gather
// the cells of the (T + 4)^3 subgrid that the predictor reads, from the state or the prolonged
// ghost slots; slopes and predictor; one Riemann solve per face; then the leaf cells (faces next
// to a refined neighbour take no flux) and the fine fluxes of the faces next to a coarser region,
// as Stepper::update_oct does on the host. Where each phase keeps its items and which it reads
// come from tables (LeafLayout). A group computes each face and each predictor cell
// once where 8 octs would compute the shared ones twice: per leaf cell 304 / 64 = 4.75 gathered
// cells, 160 / 64 = 2.5 predictors and 240 / 64 = 3.75 Riemann solves, against 80 / 8 = 10,
// 32 / 8 = 4 and 36 / 8 = 4.5 per oct (the uniform z-march: ~1, 1 and 3).
#pragma once
#include <cstdint>
#include <cstring>

#include "amr/amr_clock.hpp"
#include "amr/amr_interp.hpp"
#include "amr/amr_members.hpp"
#include "amr/amr_solver.hpp"
#include "hydro/hydro_math.hpp"
#include "hydro/tile_geometry.hpp"

namespace ro::amr::block {

// The sizes of a unit of T^3 cells (T = 2 an oct, T = 4 a sibling group).
template <int T>
struct Unit {
  static constexpr int B = T / 2;              // octs per axis
  static constexpr int S = B + 2;              // oct slots per axis, one beyond each side
  static constexpr int slots = S * S * S;
  static constexpr int octs = B * B * B;
  static constexpr int F = (T + 1) * T * T;    // faces per axis
  // Subgrid cells the predictor reads: the P predictor cells (predictor_cell: the T^3 interior
  // and the T x T cells beyond each face) and their six face neighbours, i.e. the cells of the
  // (T + 4)^3 subgrid whose summed distance outside the interior [2, T + 1]^3 is at most 2: the
  // interior, per face a 2-deep T x T slab, per edge of the interior the T cells diagonal to it.
  // No other cell (no corner slot's in particular) is read, so none is gathered or stored.
  static constexpr int Q = T * T * T + 12 * T * T + 12 * T;
  static constexpr int P = T * T * T + 6 * T * T;
  static constexpr int kept = 6 * T * T;       // fine sub-faces on the unit's faces
  // Fine sub-faces inside the unit between two of its octs (3 axes x T^2 for a group, none for an
  // oct): kept where a partial group's member is beside an absent one (a coarser region).
  static constexpr int internal = 3 * T * T * (B - 1);
  static constexpr int first_face = T * T * T, first_edge = T * T * T + 12 * T * T;
};

// Where a unit's phases keep their items in shared memory, and which items each reads, as tables
// (amr_leaf_layout.cpp builds them once per T; the device reads them through L1, the host
// emulation from the same bytes). Two jobs: (1) no index arithmetic in the phases (before, each
// predictor cell ran predictor_cell and seven gather_index, each face a division by the row
// lengths T + 1 and two predictor_index: the integer pipe was the busiest on the H200); (2) no
// shared-memory bank conflicts. A phase's lane handles the item at its own physical slot, so its
// writes are consecutive; the order of the items in each array is chosen so that the 32 lanes of
// a warp reading the previous phase's items fall into distinct banks (8-byte words: 16 per
// 128-byte wavefront; before, 47% of the group kernel's shared wavefronts were conflicts).
// Which lane computes which item does not change what an item computes: the results are the same.
struct alignas(16) Row8 {
  std::uint32_t w[4];  // eight 16-bit slots, two per word: one 16-byte load on the device
  RO_HD int at(int k) const { return static_cast<int>((w[k >> 1] >> (16 * (k & 1))) & 0xffffu); }
};

template <int T>
struct LeafLayout {
  using U = Unit<T>;
  // Physical q slot -> subgrid coordinates of the gathered cell there, tc0 + 16 tc1 + 256 tc2.
  std::uint16_t gather[U::Q];
  // Physical ext slot -> physical q slots of its predictor cell and of the cell's face neighbours
  // (the cell, then low and high along x, y, z).
  Row8 predict[U::P];
  // Physical flux slot t (axis x = t / F, position t - x F in that axis's rows) -> physical ext
  // slots of the face's left and right cells, left | right << 16.
  std::uint32_t face[3 * U::F];
  // Unit cell (x fastest) -> positions in the flux rows of its faces: low and high along x, y, z.
  Row8 cell[T * T * T];
  // Face (x, r) as the uniform tile numbers it (r = i + nx (j + ny k)) -> its position in its rows.
  std::uint16_t face_slot[3 * U::F];
};

// The layout the kernels and the emulation use (spread: the bank-conflict-avoiding orders), or
// with spread = false the items in their index order (the layout before, for the tests' model).
template <int T>
LeafLayout<T> make_leaf_layout(bool spread);
template <int T>
const LeafLayout<T>& leaf_layout();

// Shared-memory wavefronts of one unit's read phases under a layout, modelled as the hardware
// serves 8-byte loads (per warp-wide load: the largest number of distinct words in one of the 16
// 8-byte banks) against the ideal (distinct words / 16, rounded up).
struct LayoutWavefronts {
  long predict = 0, predict_ideal = 0, fluxes = 0, fluxes_ideal = 0, update = 0, update_ideal = 0;
};
template <int T>
LayoutWavefronts shared_wavefronts(const LeafLayout<T>& L);

// Threads per sibling group (one block): 304 gathers (2 rounds), 160 predictor cells (1), 240
// faces (1), 64 cells, 96 kept sub-faces on the unit's faces and 48 inside it (1); 37.9 KB of
// shared memory.
inline constexpr int group_threads = 256;
// The single leaf octs run in a launch of their own beside the groups' (amr_gpu.cu, LeafUnits;
// on a side stream, launch_units), in blocks of the same 256 threads: four octs per block, each
// with its own 8.4 KB slice of shared memory and 64 threads (two NVIDIA warps, one HIP
// wavefront). An oct's phases: 80 gathers (2 rounds), 32 predictor cells (1), 36 faces (1), 32
// update items (1). The singles have their own launch: in the groups' launch their blocks cost the
// groups the singles' registers.
inline constexpr int lanes = 64;
inline constexpr int octs_per_block = group_threads / lanes;
inline constexpr int T = 2, F = Unit<2>::F, Q = Unit<2>::Q, P = Unit<2>::P;

// One unit as the update reads it: its first leaf index, its members (bit m: oct m of the unit,
// x fastest, is a leaf oct of the unit, at leaf index first + member_rank(members, m); a single:
// 1), and its six boundary kinds (lo x, y, z, hi x, y, z: a single's edges, a group's
// group_edges).
struct UnitRef {
  long long first;
  unsigned members;
  const std::int8_t* edges;
};

struct Args {
  const std::int32_t* leaf_octs;
  const std::int8_t* edges;
  const std::uint64_t* skip;
  const std::uint8_t* keep;
  const std::int8_t* level;
  const std::int32_t* son;
  const double* ghost;
  double* fine_flux;
  // --subcycle, levels >= 1: the substep's fine-flux sums (fine_flux_per_oct per oct), which the
  // update adds dt times each kept fine flux into as it stores it; null for the global step and
  // level 0 (nothing added).
  double* flux_sum;
  long long stride;
  double dt, dx0;
  // The device dt: the step's dt is clock->dt, written by the scan
  // before the step, and dt above is unused; null: dt above (--subcycle, the host emulation).
  const DeviceClock* clock = nullptr;
  // --subcycle, levels >= 1: this visit is the first of the level's two substeps in its parent's
  // step, so each kept flux's sum starts here: 0 + dt F, the bits of an add into a zeroed sum
  // (flux_sum_add). Nothing zeroes the sums.
  bool sum_first = false;
};

// The kept flux v's sum over the level's substeps (--subcycle): sum = 0 + dt v on the first
// substep, sum + dt v on the second (Stepper::update_level's sum += dt F on sums it zeroes after
// each reflux: the same operations, so the same bits). Written where the oracle's sum starts at 0,
// the first substep's sum is stored without a load, and no reflux has to zero what it read.
RO_HD void flux_sum_add(const Args& a, long long at, double v) {
  a.flux_sum[at] = (a.sum_first ? 0.0 : a.flux_sum[at]) + a.dt * v;
}

template <int T>
struct Shared {
  double q[nvar * Unit<T>::Q];        // primitives of the gathered cells [nvar][Q], later the fluxes [3][nvar][F]
  double ext[4 * nvar * Unit<T>::P];  // per predictor cell: qh, then dq x, y, z [4][nvar][P]
  int slot[Unit<T>::slots];
  static_assert(3 * nvar * Unit<T>::F <= nvar * Unit<T>::Q, "the fluxes overwrite the primitives");
};
using OctShared = Shared<2>;
using GroupShared = Shared<4>;

// Read where it is used (the predictor's and the update's dt / dx once per thread), so the clock's
// dt holds no register through the gather.
RO_HD double dtdx_of(const Args& a, int o) { return (a.clock ? a.clock->dt : a.dt) / level_dx(a.dx0, a.level[o]); }

// Son c of ghost slot g, prolonged from its coarse cell and the six face neighbours (prolong's
// son c; the device gives each (ghost, son) its own thread, where one thread per ghost computed
// the eight in turn: 118 registers, 6% occupancy, the longest chain of the step's small kernels).
// Returns whether the son is physical; put_ghost_son then writes it, or the coarse value uc where
// any of the ghost's eight is not (prolong's fallback, decided by the eight threads together).
RO_HD bool ghost_son(const double* u, long long stride, long long g, int c, const std::int64_t* src,
                     const std::uint8_t* flip, double gamma, double uc[nvar], double son[nvar]) {
  return prolong_stencil_son(u, stride, src + 7 * g, flip + 7 * g, c, gamma, uc, son);
}

RO_HD void put_ghost_son(long long g, int c, bool all_physical, const double uc[nvar], const double son[nvar],
                         double* out) {
  for (int f = 0; f < nvar; ++f) out[g * 8 * nvar + c * nvar + f] = all_physical ? son[f] : uc[f];
}

// The unit's oct slots (x fastest): an oct >= 0, -1 - ghost index, or no_slot (a corner: never
// read; a partial group's slot next to none of its leaf octs: read as its nearest block oct).
template <int T, int N>
RO_HD void load_slots(const std::int32_t* row, int lane, Shared<T>& sh) {
  for (int s = lane; s < Unit<T>::slots; s += N) sh.slot[s] = row[s];
}

// The oct slot (x fastest, S = B + 2 per axis) of a unit of B octs per axis nearest to slot sl and
// inside the unit (each axis clamped into [1, B]): what a gather reads where sl holds no_slot.
RO_HD int nearest_inner_slot(const int sl[3], int B) {
  int in[3];
  for (int d = 0; d < 3; ++d) in[d] = sl[d] < 1 ? 1 : (sl[d] > B ? B : sl[d]);
  return in[0] + (B + 2) * (in[1] + (B + 2) * in[2]);
}

// Subgrid coordinates ((T + 4)^3) of gathered cell m in [0, Q): the interior (x fastest), then
// per face 2 * axis + side its slab (layer 0 next to the interior, then the two tangential axes
// in order), then per edge (axis along it, signs of the other two axes in order) its T cells.
template <int T>
RO_HD void gather_cell(int m, int tc[3]) {
  using U = Unit<T>;
  if (m < U::first_face) {
    tc[0] = 2 + m % T;
    tc[1] = 2 + (m / T) % T;
    tc[2] = 2 + m / (T * T);
    return;
  }
  if (m < U::first_edge) {
    const int r = (m - U::first_face) % (2 * T * T), face = (m - U::first_face) / (2 * T * T);
    const int x = face >> 1, b = x == 0 ? 1 : 0, c = 3 - x - b;
    const int layer = r & 1;
    tc[x] = face & 1 ? T + 2 + layer : 1 - layer;
    tc[b] = 2 + (r >> 1) % T;
    tc[c] = 2 + (r >> 1) / T;
    return;
  }
  const int e = (m - U::first_edge) / T, along = e >> 2, b = along == 0 ? 1 : 0, c = 3 - along - b;
  tc[along] = 2 + (m - U::first_edge) % T;
  tc[b] = (e & 1) ? T + 2 : 1;
  tc[c] = (e & 2) ? T + 2 : 1;
}

// The inverse of gather_cell, for a subgrid cell the predictor reads.
template <int T>
RO_HD int gather_index(const int tc[3]) {
  using U = Unit<T>;
  int out = 0, axis = 0, inside = 0;
  for (int d = 0; d < 3; ++d) {
    if (tc[d] < 2 || tc[d] > T + 1) {
      ++out;
      axis = d;
    } else {
      inside = d;
    }
  }
  if (out == 0) return (tc[0] - 2) + T * ((tc[1] - 2) + T * (tc[2] - 2));
  if (out == 1) {
    const int b = axis == 0 ? 1 : 0, c = 3 - axis - b, side = tc[axis] > T + 1;
    const int layer = side ? tc[axis] - (T + 2) : 1 - tc[axis];
    return U::first_face + 2 * T * T * (2 * axis + side) + layer + 2 * ((tc[b] - 2) + T * (tc[c] - 2));
  }
  const int b = inside == 0 ? 1 : 0, c = 3 - inside - b;
  return U::first_edge + T * (4 * inside + (tc[b] > T + 1) + 2 * (tc[c] > T + 1)) + (tc[inside] - 2);
}

// Phase 1: the Q cells the predictor reads, each from its slot's state or ghost slot, mirrored at
// reflecting faces; lane m takes the cell at q slot m (L.gather), with the unit's boundary kinds
// (edges: lo x, y, z, hi x, y, z). A lane's cells are all loaded before the
// first is converted, so their loads are in flight together (the gather is latency-bound).
template <int T, int N>
RO_HD void gather(const Args& a, const HydroParams& hp, const LeafLayout<T>& L, const double* u,
                  const std::int8_t* edges, int lane, Shared<T>& sh) {
  using U = Unit<T>;
  constexpr int rounds = (U::Q + N - 1) / N;
  const std::int8_t* lo = edges;
  const std::int8_t* hi = edges + 3;
  double uc[rounds][nvar];
  for (int r = 0; r < rounds; ++r) {
    const int m = lane + r * N;
    if (m >= U::Q) break;
    const int packed = L.gather[m];
    const int tc[3] = {packed & 15, (packed >> 4) & 15, packed >> 8};
    int sl[3], loc[3];
    bool flip[3];
    for (int d = 0; d < 3; ++d) tile_axis_source(tc[d], U::B, lo[d], hi[d], sl[d], loc[d], flip[d]);
    const int local = loc[0] + 2 * loc[1] + 4 * loc[2];
    int src = sh.slot[sl[0] + U::S * (sl[1] + U::S * sl[2])];
    // A partial group's slot next to none of its leaf octs: only cells that update nothing read
    // it, so any physical state serves; the block's own oct (or ghost) nearest to it, clamped
    // into the block per axis, never empty.
    if (src == no_slot) src = sh.slot[nearest_inner_slot(sl, U::B)];
    if (src >= 0) {
      for (int f = 0; f < nvar; ++f) uc[r][f] = u[f * a.stride + (long long)src * 8 + local];
    } else {
      const double* gv = a.ghost + (long long)(-1 - src) * 8 * nvar + local * nvar;
      for (int f = 0; f < nvar; ++f) uc[r][f] = gv[f];
    }
    for (int d = 0; d < 3; ++d)
      if (flip[d]) uc[r][1 + d] = -uc[r][1 + d];
  }
  for (int r = 0; r < rounds; ++r) {
    const int m = lane + r * N;
    if (m >= U::Q) break;
    double qc[nvar];
    cons_to_prim(uc[r], hp.gamma, qc);
    for (int f = 0; f < nvar; ++f) sh.q[f * U::Q + m] = qc[f];
  }
}

// Phase 2: slopes and the half-step predictor on the P interior and face cells; lane m takes the
// predictor cell at ext slot m, whose cell and face neighbours are at the q slots of L.predict[m].
template <int T, int N>
RO_HD void predict(const HydroParams& hp, const LeafLayout<T>& L, double dtdx, int lane, Shared<T>& sh) {
  using U = Unit<T>;
  for (int m = lane; m < U::P; m += N) {
    const Row8 row = L.predict[m];
    const int c = row.at(0);
    double qc[nvar], d[3][nvar], qh[nvar];
    for (int f = 0; f < nvar; ++f) qc[f] = sh.q[f * U::Q + c];
    for (int x = 0; x < 3; ++x) {
      const int lo = row.at(1 + 2 * x), hi = row.at(2 + 2 * x);
      for (int f = 0; f < nvar; ++f)
        d[x][f] = limited_slope(sh.q[f * U::Q + lo], qc[f], sh.q[f * U::Q + hi], hp.slope_type);
    }
    predict_half_step(qc, d[0], d[1], d[2], dtdx, hp.gamma, qh);
    for (int f = 0; f < nvar; ++f) {
      sh.ext[f * U::P + m] = qh[f];
      for (int x = 0; x < 3; ++x) sh.ext[(nvar + x * nvar + f) * U::P + m] = d[x][f];
    }
  }
}

// Phase 3: one Riemann solve per face; the fluxes overwrite the primitives (phase 3 reads ext
// only). Lane t takes flux slot t: axis x = t / F, its left and right cells at the ext slots of
// L.face[t], its fluxes at position t - x F of the axis's rows.
template <int T, int N>
RO_HD void fluxes(const HydroParams& hp, const LeafLayout<T>& L, int lane, Shared<T>& sh) {
  using U = Unit<T>;
  constexpr int F = U::F, P = U::P;
  for (int t = lane; t < 3 * F; t += N) {
    const int x = t < F ? 0 : (t < 2 * F ? 1 : 2), r = t - x * F;
    const std::uint32_t cells = L.face[t];
    const int el = static_cast<int>(cells & 0xffffu), er = static_cast<int>(cells >> 16);
    double qhl[nvar], dql[nvar], qhr[nvar], dqr[nvar], fl[nvar];
    for (int f = 0; f < nvar; ++f) {
      qhl[f] = sh.ext[f * P + el];
      qhr[f] = sh.ext[f * P + er];
      dql[f] = sh.ext[(nvar + x * nvar + f) * P + el];
      dqr[f] = sh.ext[(nvar + x * nvar + f) * P + er];
    }
    if (x == 0) face_flux<0>(qhl, dql, qhr, dqr, hp, fl);
    else if (x == 1) face_flux<1>(qhl, dql, qhr, dqr, hp, fl);
    else face_flux<2>(qhl, dql, qhr, dqr, hp, fl);
    for (int f = 0; f < nvar; ++f) sh.q[(x * nvar + f) * F + r] = fl[f];
  }
}

// Phase 4: items [0, T^3) the unit's cells, then the sub-faces (face, sub) on the unit's faces,
// then (groups) the sub-faces on its three internal planes, each storing the fine fluxes of a
// face some member keeps. Unit cell (ci, cj, ck) is cell (ci, cj, ck) mod 2 of the unit's oct
// m = (ci, cj, ck) / 2 (x fastest), skipped where m is not a member; member m is leaf oct
// first + member_rank(members, m) (key order). A kept face has no neighbour oct of its level
// beyond: on the unit's boundary, or (partial group) inside it between a member and an absent
// oct, whose side is a coarser leaf prolonged into a ghost slot as it would be for the member alone.
// With a.flux_sum (--subcycle) a kept flux is also added, times dt, into its sum over the
// substeps, sum += dt F as Stepper::update_level (the time-integrated flux the coarse side's
// reflux takes, Teyssier 2002 sec. 2.4; the same operation as the separate pass that did it before,
// so the same bits). No two threads add into one sum element: item (face, sub) of a unit maps to
// one (member, face, sub-face) (an internal one to the one side that keeps it: the two sides of an
// internal face cannot both lack a neighbour, as each is the other's), and every leaf oct is in
// exactly one unit of its level's launch; so no atomics.
template <int T, int N>
RO_HD void update(const Args& a, const LeafLayout<T>& L, const double* u, double* unew, const UnitRef& unit, int lane,
                  const Shared<T>& sh) {
  using U = Unit<T>;
  constexpr int F = U::F;
  const long long i0 = unit.first;
  const unsigned mask = unit.members;
  const double dtdx = dtdx_of(a, a.leaf_octs[i0]);
  const double* flux = sh.q;
  for (int j = lane; j < T * T * T + U::kept + U::internal; j += N) {
    if (j < T * T * T) {
      const int ci = j % T, cj = (j / T) % T, ck = j / (T * T);
      const int m = (ci >> 1) + U::B * ((cj >> 1) + U::B * (ck >> 1));
      if (!((mask >> m) & 1u)) continue;
      const long long i = i0 + member_rank(mask, m);
      const int cell = (ci & 1) + 2 * (cj & 1) + 4 * (ck & 1);
      const long long g = (long long)a.leaf_octs[i] * 8 + cell;
      if (a.son[g] >= 0) continue;
      const Row8 fs = L.cell[j];
      const std::uint64_t sk = a.skip[i] >> (6 * cell);
      for (int f = 0; f < nvar; ++f) {
        const double* fxv = flux + (0 * nvar + f) * F;
        const double* fyv = flux + (1 * nvar + f) * F;
        const double* fzv = flux + (2 * nvar + f) * F;
        const double fxl = (sk & 1) ? 0.0 : fxv[fs.at(0)], fxh = (sk & 2) ? 0.0 : fxv[fs.at(1)];
        const double fyl = (sk & 4) ? 0.0 : fyv[fs.at(2)], fyh = (sk & 8) ? 0.0 : fyv[fs.at(3)];
        const double fzl = (sk & 16) ? 0.0 : fzv[fs.at(4)], fzh = (sk & 32) ? 0.0 : fzv[fs.at(5)];
        unew[f * a.stride + g] = conservative_update(u[f * a.stride + g], fxl, fxh, fyl, fyh, fzl, fzh, dtdx);
      }
      continue;
    }
    // A sub-face item: on the unit's face 2 x + side, or (inner) on the plane between the octs at
    // positions 0 and 1 along x (unit face T / 2), first as the low side's high face.
    const int k = j - T * T * T, inner = k >= U::kept;
    const int row = (inner ? k - U::kept : k) / (T * T), sub = k % (T * T);
    const int x = inner ? row : row / 2, b = x == 0 ? 1 : 0, c = 3 - x - b;
    int side = inner ? 1 : row % 2;
    int p[3], oc[3];
    p[x] = inner ? T / 2 : side * T;
    p[b] = sub % T;
    p[c] = sub / T;
    oc[x] = inner ? 0 : side * (U::B - 1);
    oc[b] = p[b] >> 1;
    oc[c] = p[c] >> 1;
    if (inner) {
      const int lo = oc[0] + U::B * (oc[1] + U::B * oc[2]);
      if (!((mask >> lo) & 1u) || !((a.keep[i0 + member_rank(mask, lo)] >> (2 * x + 1)) & 1)) {
        oc[x] = 1;  // the high side's low face
        side = 0;
      }
    }
    const int face = 2 * x + side;
    const int m = oc[0] + U::B * (oc[1] + U::B * oc[2]);
    if (!((mask >> m) & 1u)) continue;
    const long long i = i0 + member_rank(mask, m);
    if (!((a.keep[i] >> face) & 1)) continue;
    const int nx = x == 0 ? T + 1 : T, ny = x == 1 ? T + 1 : T;
    const int r = L.face_slot[x * F + p[0] + nx * (p[1] + ny * p[2])];
    const int oct_sub = (p[b] & 1) + 2 * (p[c] & 1);
    const long long at = ((long long)a.leaf_octs[i] * 6 + face) * 4 * nvar + oct_sub * nvar;
    for (int f = 0; f < nvar; ++f) {
      const double v = flux[(x * nvar + f) * F + r];
      a.fine_flux[at + f] = v;
      if (a.flux_sum) flux_sum_add(a, at + f, v);
    }
  }
}

// A halted step (DeviceClock::halt: the scan before it found a bad leaf cell): the unit's leaf
// cells copied u -> unew, so that the step leaves the leaf cells exactly as they were and the
// driver reports the cell the host-dt path reports (the fluxes may be NaN there, and 0 * NaN is
// not 0: the update cannot run with dt = 0 instead). Items (member, cell, variable), N lanes.
template <int N>
RO_HD void hold_unit(const Args& a, const double* u, double* unew, const UnitRef& unit, int lane) {
  for (int j = lane; j < 8 * 8 * nvar; j += N) {
    const int m = j / (8 * nvar), cell = (j / nvar) % 8, f = j % nvar;
    if (!((unit.members >> m) & 1u)) continue;
    const long long g = (long long)a.leaf_octs[unit.first + member_rank(unit.members, m)] * 8 + cell;
    if (a.son[g] < 0) unew[f * a.stride + g] = u[f * a.stride + g];
  }
}

// The dt scan's part per cell g: false for a covered cell; for a leaf its level, whether its
// state is physical, and its signal speed as the bits of the (non-negative) double, which order
// like the values: an integer max over them is the max of the speeds, exact in any order.
RO_HD bool leaf_speed(const double* u, long long ncell, const std::int32_t* son, const std::int8_t* level, double gamma,
                      long long g, int& l, unsigned long long& bits, bool& ok) {
  if (son[g] >= 0) return false;
  double uc[nvar];
  for (int f = 0; f < nvar; ++f) uc[f] = u[f * ncell + g];
  const double s = cell_signal_speed(uc, gamma, ok);
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  bits = static_cast<unsigned long long>(__double_as_longlong(s));
#else
  std::memcpy(&bits, &s, sizeof bits);
#endif
  l = level[g >> 3];
  return true;
}

// The reflux of one coarse leaf cell and one variable: the thread of (face e, variable f) owns
// the cell when e starts the cell's run in the face list (faces are in (oct, cell, face) order,
// so a cell's faces are consecutive), and adds, face by face in list order, dt/dx_c times the
// average of the son oct's four face fluxes (area ratio 1/4). Every (cell, variable) sums its
// faces in one fixed order, the order of the oracle's per-oct loop: the same bits, no atomics.
// --subcycle passes the sums over the substeps as fine_flux (dt = 1); every element a reflux face
// reads is a kept face (test_amr_subcycle.cpp), which each substep's leaf update writes, the
// first one without reading it (flux_sum_add), so the sums are only read here. (They were zeroed
// here as they were read, scattered 8-byte stores: 0.92 ms of a 1.3 ms level-1 visit on the
// H200, Sedov 128^3 + 2.)
RO_HD void reflux_cell(long long e, int f, long long nfaces, const RefluxFace* faces, const std::int8_t* level,
                       const double* fine_flux, long long stride, double dt, double dx0, double* unew) {
  const long long cell = faces[e].cell;
  if (e > 0 && faces[e - 1].cell == cell) return;
  const double dtdx = dt / (dx0 / double(1 << level[cell >> 3]));
  double& v = unew[f * stride + cell];
  for (; e < nfaces && faces[e].cell == cell; ++e) {
    const RefluxFace rf = faces[e];
    const auto in = fine_flux + ((long long)rf.fine_oct * 6 + (rf.face ^ 1)) * 4 * nvar;
    const double fl = (in[f] + in[nvar + f] + in[2 * nvar + f] + in[3 * nvar + f]) * 0.25;
    v = rf.face % 2 ? v - dtdx * fl : v + dtdx * fl;
  }
}

}  // namespace ro::amr::block
