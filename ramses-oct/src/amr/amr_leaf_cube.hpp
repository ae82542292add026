// Leaf cubes (README "Leaf cubes"): the aligned 4 x 4 x 4 leaf octs of one level, i.e. 8 complete
// sibling groups, consecutive in the groups list (plan_cube_entry), updated by one block that
// marches the cube's 8^3 cells one z plane at a time, as the uniform zmarch (zmarch.hpp) marches
// its patch: ring buffers of 3 primitive planes with their 2-cell x, y ring, 2 planes of the
// predicted states and slopes, 2 planes of z fluxes and 1 of x and y fluxes. Per leaf cell
// 12 * 12 / 64 * 12 / 8 = 3.375 gathered cells, 96 / 64 * 10 / 8 = 1.875 predictor cells and
// 1728 / 512 = 3.375 Riemann solves, against 4.75, 2.5 and 3.75 in a group (amr_leaf_block.hpp) and
// 3.4, 1.9 and 3.4 in the uniform zmarch. Each face and each cell computes what the groups compute
// (the same functions on the same operands): the cells' sources are the groups' slot rows (an oct, a
// prolonged ghost slot, mirrored at reflecting faces), the update skips the same faces (refined
// neighbour) and cells (covered), and the faces on the cube's boundary store the same kept fine
// fluxes (and their sums under --subcycle). So a cube gives its 8 groups' result, bit for bit where
// the compiler contracts the two bodies' products alike.
//
// The body is written once for the device and for the host emulation (one thread: the block syncs
// are no-ops and each phase's loop runs to its end before the next), which the cpu tests run
// against the oracle.
#pragma once
#include <cstdint>

#include "amr_leaf_block.hpp"
#include "zmarch.hpp"  // the march's ring indices (zm_ring2, 3, 4) and RO_BLOCK_SYNC

namespace ro::amr::cube {

using block::Args;
using block::dtdx_of;
using block::flux_sum_add;

inline constexpr int B = 4, T = 2 * B, S = B + 2;  // octs, cells and oct slots per axis
inline constexpr int SX = T + 4, SP = SX * SX;     // a gathered plane: the cells and a 2-cell ring
inline constexpr int EX = T + 2, EP = EX * EX;     // a predicted plane: the cells and a 1-cell ring
inline constexpr int TP = T * T, FX = (T + 1) * T;  // cells, and x (or y) faces, per plane
// Threads per cube: 7 warps, so that each phase but the update takes one round (144 gathered cells,
// 96 predictor cells, 64 + 2 x 72 faces per plane); three cubes' 62 KB of shared memory per SM.
inline constexpr int threads = 224;

struct Shared {
  double q[3][nvar][SP];       // primitives, planes p - 2 .. p (ring of 3)
  double ext[2][4][nvar][EP];  // per predicted plane: qh, then dq x, y, z
  double fx[nvar][FX];         // x faces of the plane being updated, (T + 1) per row
  double fy[nvar][FX];         // y faces, T per row
  double fz[2][nvar][TP];      // z faces below and above it
  // Per cell of the last 4 gathered interior planes (ring of 4: the update of plane p - 2 may run
  // beside the gather of plane p + 1), taken by the gather with the cell's state so that the
  // update waits for no load of its own: the cell's oct and its flags (bits 0-5 the faces that
  // take no flux, bit 6 covered, bits 8-13 its oct's kept faces).
  std::int32_t cell[4][TP];
  std::uint16_t flags[4][TP];
  std::int32_t slot[S * S * S];  // the cube's oct slots (x fastest), as a group's slot row
};

// The cube's leaf octs are i0 + 8 group + member (groups and members in cube order, x fastest):
// the leaf index of the oct at (ox, oy, oz) in the cube.
RO_HD long long cube_leaf(long long i0, int ox, int oy, int oz) {
  return i0 + 8 * ((ox >> 1) + 2 * (oy >> 1) + 4 * (oz >> 1)) + (ox & 1) + 2 * (oy & 1) + 4 * (oz & 1);
}

// The cube's oct slot c (0..S-1) along an axis as group g (0, 1) of the cube and that group's row
// slot (0..3): the group whose row holds c with the fewest halo axes, so that only the cube's 8
// corner slots are a group row's corner (no_slot).
RO_HD int group_row_slot(int c, int& g) {
  g = c == 0 ? 0 : (c == S - 1 ? 1 : (c - 1) / 2);
  return c - 2 * g;
}

// The cube's slot table from its 8 groups' rows (64 slots each, the groups in cube order).
RO_HD void load_slots(const std::int32_t* group_rows, int tid, int n, Shared& sh) {
  for (int s = tid; s < S * S * S; s += n) {
    const int c[3] = {s % S, (s / S) % S, s / (S * S)};
    int g[3], r[3];
    for (int d = 0; d < 3; ++d) r[d] = group_row_slot(c[d], g[d]);
    sh.slot[s] = group_rows[64 * (g[0] + 2 * g[1] + 4 * g[2]) + r[0] + 4 * (r[1] + 4 * r[2])];
  }
}

// Gathered cell j of plane t (0..T+3: the subgrid's z), as block::gather takes a cell: the
// conserved state of the slot's oct or ghost slot, mirrored at reflecting faces; for a cell of
// the cube also its oct and flags for the update (Shared::cell, flags). fetch_cell issues the
// loads, put_cell converts and stores them one plane later (march): the loads of plane p + 1 are
// in flight during plane p's predictor, faces and update instead of exposed at each plane's start.
struct Fetched {
  double u[nvar];
  std::int32_t oct;       // the cube's cell's oct, or -1 for a cell of the ring
  std::uint16_t flags;
};

// A corner slot (no_slot) holds cells only the ring's unused predictor cells read: the cube's own
// oct nearest to it stands in.
RO_HD void fetch_cell(const Args& a, long long i0, const double* u, const std::int8_t* lo, const std::int8_t* hi,
                      int t, int j, const Shared& sh, Fetched& out) {
  const int tc[3] = {j % SX, j / SX, t};
  int sl[3], loc[3];
  bool flip[3];
  for (int d = 0; d < 3; ++d) tile_axis_source(tc[d], B, lo[d], hi[d], sl[d], loc[d], flip[d]);
  std::int32_t src = sh.slot[sl[0] + S * (sl[1] + S * sl[2])];
  if (src == no_slot) src = sh.slot[block::nearest_inner_slot(sl, B)];
  const int local = loc[0] + 2 * loc[1] + 4 * loc[2];
  const int ci = tc[0] - 2, cj = tc[1] - 2, ck = t - 2;
  out.oct = -1;
  if (ci >= 0 && ci < T && cj >= 0 && cj < T && ck >= 0 && ck < T) {
    const long long i = cube_leaf(i0, ci >> 1, cj >> 1, ck >> 1);
    const unsigned skip = static_cast<unsigned>(a.skip[i] >> (6 * local)) & 63u;
    const unsigned covered = a.son[(long long)src * 8 + local] >= 0 ? 64u : 0u;
    out.oct = src;
    out.flags = static_cast<std::uint16_t>(skip | covered | (unsigned(a.keep[i]) << 8));
  }
  if (src >= 0) {
    for (int f = 0; f < nvar; ++f) out.u[f] = u[f * a.stride + (long long)src * 8 + local];
  } else {
    const double* gv = a.ghost + (long long)(-1 - src) * 8 * nvar + local * nvar;
    for (int f = 0; f < nvar; ++f) out.u[f] = gv[f];
  }
  for (int d = 0; d < 3; ++d)
    if (flip[d]) out.u[1 + d] = -out.u[1 + d];
}

RO_HD void put_cell(const HydroParams& hp, int t, int j, const Fetched& in, Shared& sh) {
  double qc[nvar];
  cons_to_prim(in.u, hp.gamma, qc);
  const int p = t - 2;
  for (int f = 0; f < nvar; ++f) sh.q[zm_ring3(p)][f][j] = qc[f];
  if (in.oct >= 0) {
    const int c = (j % SX - 2) + T * (j / SX - 2);
    sh.cell[zm_ring4(p)][c] = in.oct;
    sh.flags[zm_ring4(p)][c] = in.flags;
  }
}

// Predicted cell c of plane e (the ring of EX x EX without its 4 corners), as block::predict.
RO_HD void predict_cell(const HydroParams& hp, double dtdx, int e, int c, Shared& sh) {
  const int sc = (c % EX + 1) + SX * (c / EX + 1);
  const auto& qm = sh.q[zm_ring3(e - 1)];
  const auto& q0 = sh.q[zm_ring3(e)];
  const auto& qq = sh.q[zm_ring3(e + 1)];
  double qc[nvar], d[3][nvar], qh[nvar];
  for (int f = 0; f < nvar; ++f) qc[f] = q0[f][sc];
  for (int f = 0; f < nvar; ++f) {
    d[0][f] = limited_slope(q0[f][sc - 1], qc[f], q0[f][sc + 1], hp.slope_type);
    d[1][f] = limited_slope(q0[f][sc - SX], qc[f], q0[f][sc + SX], hp.slope_type);
    d[2][f] = limited_slope(qm[f][sc], qc[f], qq[f][sc], hp.slope_type);
  }
  predict_half_step(qc, d[0], d[1], d[2], dtdx, hp.gamma, qh);
  auto& eb = sh.ext[zm_ring2(e)];
  for (int f = 0; f < nvar; ++f) {
    eb[0][f][c] = qh[f];
    for (int x = 0; x < 3; ++x) eb[1 + x][f][c] = d[x][f];
  }
}

// Face r of plane k: r < TP the z face above cell r (k = -1: the cube's lowest z faces), then its
// x faces ((T + 1) per row) and y faces (T per row), as block::fluxes.
RO_HD void face(const HydroParams& hp, int k, int r, Shared& sh) {
  double qhl[nvar], dql[nvar], qhr[nvar], dqr[nvar], fl[nvar];
  const auto& ek = sh.ext[zm_ring2(k)];
  if (r < TP) {
    const auto& ek1 = sh.ext[zm_ring2(k + 1)];
    const int c = (r % T + 1) + EX * (r / T + 1);
    for (int f = 0; f < nvar; ++f) {
      qhl[f] = ek[0][f][c];
      dql[f] = ek[3][f][c];
      qhr[f] = ek1[0][f][c];
      dqr[f] = ek1[3][f][c];
    }
    face_flux<2>(qhl, dql, qhr, dqr, hp, fl);
    for (int f = 0; f < nvar; ++f) sh.fz[zm_ring2(k + 1)][f][r] = fl[f];
    return;
  }
  const bool xface = r < TP + FX;
  const int x = xface ? r - TP : r - TP - FX;
  const int fi = xface ? x % (T + 1) : x % T, fj = xface ? x / (T + 1) : x / T;
  const int er = (fi + 1) + EX * (fj + 1), el = xface ? er - 1 : er - EX;
  const int axis = xface ? 1 : 2;
  for (int f = 0; f < nvar; ++f) {
    qhl[f] = ek[0][f][el];
    dql[f] = ek[axis][f][el];
    qhr[f] = ek[0][f][er];
    dqr[f] = ek[axis][f][er];
  }
  if (xface) {
    face_flux<0>(qhl, dql, qhr, dqr, hp, fl);
    for (int f = 0; f < nvar; ++f) sh.fx[f][x] = fl[f];
  } else {
    face_flux<1>(qhl, dql, qhr, dqr, hp, fl);
    for (int f = 0; f < nvar; ++f) sh.fy[f][x] = fl[f];
  }
}

// Cell c of plane k: the kept fine fluxes of its faces on the cube's boundary (stored whether or
// not the cell is covered, as block::update's sub-face items), then, for a leaf cell, the
// conservative update with the faces next to a refined cell taking no flux. Its oct and flags
// come from the gather (Shared::cell, flags).
RO_HD void update_cell(const Args& a, double dtdx, const double* u, double* unew, int k, int c, const Shared& sh) {
  const int ci = c % T, cj = c / T;
  const std::int32_t oct = sh.cell[zm_ring4(k)][c];
  const unsigned flags = sh.flags[zm_ring4(k)][c];
  const int cell = (ci & 1) + 2 * (cj & 1) + 4 * (k & 1);
  const int ix = ci + (T + 1) * cj, iy = ci + T * cj;
  const auto& fzlo = sh.fz[zm_ring2(k)];
  const auto& fzhi = sh.fz[zm_ring2(k + 1)];
  const unsigned keep = flags >> 8;
  if (keep) {
    // Face 2 x + side of the cube's boundary through this cell, its flux and its sub-face in the oct.
    const bool on[6] = {ci == 0, ci == T - 1, cj == 0, cj == T - 1, k == 0, k == T - 1};
    for (int face = 0; face < 6; ++face) {
      if (!on[face] || !((keep >> face) & 1)) continue;
      const int x = face >> 1;
      const int sub = x == 0 ? (cj & 1) + 2 * (k & 1) : (x == 1 ? (ci & 1) + 2 * (k & 1) : (ci & 1) + 2 * (cj & 1));
      const long long at = ((long long)oct * 6 + face) * 4 * nvar + sub * nvar;
      for (int f = 0; f < nvar; ++f) {
        const double v = face == 0 ? sh.fx[f][ix] : face == 1 ? sh.fx[f][ix + 1] : face == 2 ? sh.fy[f][iy]
                       : face == 3 ? sh.fy[f][iy + T] : face == 4 ? fzlo[f][c] : fzhi[f][c];
        a.fine_flux[at + f] = v;
        if (a.flux_sum) flux_sum_add(a, at + f, v);
      }
    }
  }
  if (flags & 64u) return;
  const long long g = (long long)oct * 8 + cell;
  for (int f = 0; f < nvar; ++f) {
    const double fxl = (flags & 1) ? 0.0 : sh.fx[f][ix], fxh = (flags & 2) ? 0.0 : sh.fx[f][ix + 1];
    const double fyl = (flags & 4) ? 0.0 : sh.fy[f][iy], fyh = (flags & 8) ? 0.0 : sh.fy[f][iy + T];
    const double fzl = (flags & 16) ? 0.0 : fzlo[f][c], fzh = (flags & 32) ? 0.0 : fzhi[f][c];
    unew[f * a.stride + g] = conservative_update(u[f * a.stride + g], fxl, fxh, fyl, fyh, fzl, fzh, dtdx);
  }
}

// One cube with N threads: i0 its first leaf oct, group_rows its 8 groups' slot rows,
// group_edges their boundary kinds (the cube's low kinds are its first group's, the high its
// last's). Iteration p stores plane p (fetched the iteration before) and fetches plane p + 1,
// predicts plane p - 1, computes the faces of plane p - 2 and updates it; the update's reads of the
// fluxes and the next writes of them are two block syncs apart, and so are its reads of a plane's
// cells and flags (a ring of 4) and the next writes there.
template <int N>
RO_HD void march(const Args& a, const HydroParams& hp, long long i0, const std::int32_t* group_rows,
                 const std::int8_t* group_edges, const double* u, double* unew, int tid, Shared& sh) {
  constexpr int rounds = (SP + N - 1) / N;
  const std::int8_t* lo = group_edges;
  const std::int8_t* hi = group_edges + 6 * 7 + 3;
  const double dtdx = dtdx_of(a, a.leaf_octs[i0]);
  load_slots(group_rows, tid, N, sh);
  RO_BLOCK_SYNC();
  Fetched next[rounds];
  for (int r = 0; r < rounds; ++r)
    if (tid + r * N < SP) fetch_cell(a, i0, u, lo, hi, 0, tid + r * N, sh, next[r]);
  for (int p = -2; p < T + 2; ++p) {
    for (int r = 0; r < rounds; ++r)
      if (tid + r * N < SP) put_cell(hp, p + 2, tid + r * N, next[r], sh);
    if (p + 1 < T + 2)
      for (int r = 0; r < rounds; ++r)
        if (tid + r * N < SP) fetch_cell(a, i0, u, lo, hi, p + 3, tid + r * N, sh, next[r]);
    RO_BLOCK_SYNC();
    if (p >= 0) {
      for (int c = tid; c < EP; c += N) {
        const int ei = c % EX, ej = c / EX;
        if ((ei == 0 || ei == EX - 1) && (ej == 0 || ej == EX - 1)) continue;
        predict_cell(hp, dtdx, p - 1, c, sh);
      }
    }
    RO_BLOCK_SYNC();
    if (p >= 1) {
      const int k = p - 2;
      const int nfaces = TP + (k >= 0 ? 2 * FX : 0);
      for (int r = tid; r < nfaces; r += N) face(hp, k, r, sh);
    }
    RO_BLOCK_SYNC();
    if (p >= 2) {
      for (int c = tid; c < TP; c += N) update_cell(a, dtdx, u, unew, p - 2, c, sh);
    }
  }
}

}  // namespace ro::amr::cube
