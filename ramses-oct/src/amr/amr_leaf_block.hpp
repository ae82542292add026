// The body of the GPU AMR step written once as host/device functions (as zmarch.hpp does for the
// uniform kernels): amr_gpu.cu calls each phase with the oct's threads and a barrier between
// phases; the host emulation (amr_plan.cpp, emulate_plan_step) calls them block by block, oct
// group by oct group, one thread looping over the lanes, so a cpu test checks the plan and every
// index map of the GPU step against the oracle. One warp (32 lanes) per leaf oct, several octs
// per block, each with its own slice of shared memory (the subgrid6 phases of kernels_gpu.cu):
// gather the cells of the 6^3 subgrid that the predictor reads, from the state or the prolonged
// ghost slots; slopes and predictor; one Riemann solve per face; then the leaf cells (faces next
// to a refined neighbour take no flux) and the fine fluxes of the faces next to a coarser
// region, as Stepper::update_oct does on the host.
#pragma once
#include <cstdint>
#include <cstring>

#include "amr_interp.hpp"
#include "amr_solver.hpp"
#include "hydro_math.hpp"
#include "tile_geometry.hpp"

namespace ro::amr::block {

inline constexpr int T = 2, F = (T + 1) * T * T;
// Threads per leaf oct: one NVIDIA warp, so an oct's phases need only warp barriers. Its phases
// have 80 gathers (3 rounds), 32 predictor cells (1), 36 faces (2) and 32 update items (1).
inline constexpr int lanes = 32;
// Octs per block: 4 x 32 = 128 threads, 4 x 8.4 KB of shared memory; six such blocks fit an SM's
// 228 KB (24 warps), against 11 octs of 64 threads at ~19 KB each before.
inline constexpr int octs_per_block = 4;
inline constexpr int threads = lanes * octs_per_block;
// Subgrid cells the predictor reads: the 32 predictor cells (predictor_cell, T = 2: the 2^3
// interior and the 2 x 2 cells beyond each face) and their six face neighbours, i.e. the cells
// of the 6^3 subgrid whose summed distance outside the interior [2, 3]^3 is at most 2: the
// interior (8), per face a 2-deep, 2 x 2 slab (6 x 8) and per edge of the interior the two
// cells diagonal to it (12 x 2). The subgrid's 136 other cells (all 8 corner slots among them)
// are never read, so they are neither gathered nor stored.
inline constexpr int Q = 80;
inline constexpr int P = 32;  // predictor cells, predictor_cells(T)

struct Args {
  const std::int32_t* leaf_octs;
  const std::int32_t* slots;
  const std::int8_t* edges;
  const std::uint64_t* skip;
  const std::uint8_t* keep;
  const std::int8_t* level;
  const std::int32_t* son;
  const double* ghost;
  double* fine_flux;
  long long stride;
  double dt, dx0;
};

struct Shared {
  double q[nvar * Q];        // primitives of the gathered cells [nvar][Q], later the fluxes [3][nvar][F]
  double ext[4 * nvar * P];  // per predictor cell: qh, then dq x, y, z [4][nvar][P]
  int slot[27];
};
static_assert(3 * nvar * F <= nvar * Q, "the fluxes overwrite the primitives");

RO_HD double dtdx_of(const Args& a, int o) { return a.dt / (a.dx0 / double(1 << a.level[o])); }

// The eight sons of ghost slot g, prolonged from its coarse cell and the six face neighbours.
RO_HD void ghost_sons(const double* u, long long stride, long long g, const std::int64_t* src, const std::uint8_t* flip,
                      double gamma, double* out) {
  double sons[8][nvar];
  prolong_stencil(u, stride, src + 7 * g, flip + 7 * g, gamma, sons);
  for (int c = 0; c < 8; ++c)
    for (int f = 0; f < nvar; ++f) out[g * 8 * nvar + c * nvar + f] = sons[c][f];
}

RO_HD void load_slots(const Args& a, long long i, int lane, Shared& sh) {
  for (int s = lane; s < 27; s += lanes) sh.slot[s] = a.slots[27 * i + s];
}

// Subgrid coordinates (6^3) of gathered cell m in [0, Q): the interior (m < 8, bits x, y, z),
// then per face 2 * axis + side its slab (layer 0 next to the interior, then the two tangential
// axes in order), then per edge (axis along it, signs of the other two axes in order) its two cells.
RO_HD void gather_cell(int m, int tc[3]) {
  if (m < 8) {
    for (int d = 0; d < 3; ++d) tc[d] = 2 + ((m >> d) & 1);
    return;
  }
  if (m < 56) {
    const int r = (m - 8) & 7, face = (m - 8) >> 3, x = face >> 1, b = x == 0 ? 1 : 0, c = 3 - x - b;
    const int layer = r & 1;
    tc[x] = face & 1 ? 4 + layer : 1 - layer;
    tc[b] = 2 + ((r >> 1) & 1);
    tc[c] = 2 + (r >> 2);
    return;
  }
  const int e = (m - 56) >> 1, along = e >> 2, b = along == 0 ? 1 : 0, c = 3 - along - b;
  tc[along] = 2 + ((m - 56) & 1);
  tc[b] = (e & 1) ? 4 : 1;
  tc[c] = (e & 2) ? 4 : 1;
}

// The inverse of gather_cell, for a subgrid cell the predictor reads.
RO_HD int gather_index(const int tc[3]) {
  int out = 0, axis = 0, inside = 0;
  for (int d = 0; d < 3; ++d) {
    if (tc[d] < 2 || tc[d] > 3) {
      ++out;
      axis = d;
    } else {
      inside = d;
    }
  }
  if (out == 0) return (tc[0] - 2) + 2 * (tc[1] - 2) + 4 * (tc[2] - 2);
  if (out == 1) {
    const int b = axis == 0 ? 1 : 0, c = 3 - axis - b, side = tc[axis] > 3;
    const int layer = side ? tc[axis] - 4 : 1 - tc[axis];
    return 8 + 8 * (2 * axis + side) + layer + 2 * (tc[b] - 2) + 4 * (tc[c] - 2);
  }
  const int b = inside == 0 ? 1 : 0, c = 3 - inside - b;
  return 56 + 2 * (4 * inside + (tc[b] > 3) + 2 * (tc[c] > 3)) + (tc[inside] - 2);
}

// Phase 1: the Q cells the predictor reads, each from its slot's state or ghost slot, mirrored at
// reflecting faces. A lane's (up to) three cells are all loaded before the first is converted, so
// their loads are in flight together (the gather is latency-bound: one oct per warp).
RO_HD void gather(const Args& a, const HydroParams& hp, const double* u, long long i, int lane, Shared& sh) {
  constexpr int rounds = (Q + lanes - 1) / lanes;
  double uc[rounds][nvar];
  for (int r = 0; r < rounds; ++r) {
    const int m = lane + r * lanes;
    if (m >= Q) break;
    int tc[3];
    gather_cell(m, tc);
    int sl[3], loc[3];
    bool flip[3];
    for (int d = 0; d < 3; ++d) tile_axis_source(tc[d], 1, a.edges[6 * i + d], a.edges[6 * i + 3 + d], sl[d], loc[d], flip[d]);
    const int local = loc[0] + 2 * loc[1] + 4 * loc[2];
    const int src = sh.slot[sl[0] + 3 * sl[1] + 9 * sl[2]];
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
    const int m = lane + r * lanes;
    if (m >= Q) break;
    double qc[nvar];
    cons_to_prim(uc[r], hp.gamma, qc);
    for (int f = 0; f < nvar; ++f) sh.q[f * Q + m] = qc[f];
  }
}

// Phase 2: slopes and the half-step predictor on the P interior and face cells (one per lane).
RO_HD void predict(const HydroParams& hp, double dtdx, int lane, Shared& sh) {
  for (int m = lane; m < P; m += lanes) {
    int e[3];
    predictor_cell(m, T, e[0], e[1], e[2]);
    int tc[3] = {e[0] + 1, e[1] + 1, e[2] + 1};
    const int c = gather_index(tc);
    int lo[3], hi[3];
    for (int x = 0; x < 3; ++x) {
      --tc[x];
      lo[x] = gather_index(tc);
      tc[x] += 2;
      hi[x] = gather_index(tc);
      --tc[x];
    }
    double qc[nvar], d[3][nvar], qh[nvar];
    for (int f = 0; f < nvar; ++f) qc[f] = sh.q[f * Q + c];
    for (int x = 0; x < 3; ++x)
      for (int f = 0; f < nvar; ++f)
        d[x][f] = limited_slope(sh.q[f * Q + lo[x]], qc[f], sh.q[f * Q + hi[x]], hp.slope_type);
    predict_half_step(qc, d[0], d[1], d[2], dtdx, hp.gamma, qh);
    for (int f = 0; f < nvar; ++f) {
      sh.ext[f * P + m] = qh[f];
      for (int x = 0; x < 3; ++x) sh.ext[(nvar + x * nvar + f) * P + m] = d[x][f];
    }
  }
}

// Phase 3: one Riemann solve per face; the fluxes overwrite the primitives (phase 3 reads ext only).
RO_HD void fluxes(const HydroParams& hp, int lane, Shared& sh) {
  for (int t = lane; t < 3 * F; t += lanes) {
    const int x = t / F, r = t % F;
    const int nx = x == 0 ? T + 1 : T, ny = x == 1 ? T + 1 : T;
    const int fi = r % nx, fj = (r / nx) % ny, fk = r / (nx * ny);
    // The face's right cell in the (T+2)^3 predictor region, and its left neighbour along x.
    const int er = predictor_index(fi + 1, fj + 1, fk + 1, T);
    const int el = predictor_index(fi + (x == 0 ? 0 : 1), fj + (x == 1 ? 0 : 1), fk + (x == 2 ? 0 : 1), T);
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

// Phase 4: items 0..7 the leaf cells, 8..31 the sub-faces (face, sub) of kept faces.
RO_HD void update(const Args& a, const double* u, double* unew, long long i, int lane, const Shared& sh) {
  const int o = a.leaf_octs[i];
  const double dtdx = dtdx_of(a, o);
  const double* flux = sh.q;
  for (int j = lane; j < 8 + 24; j += lanes) {
    if (j < 8) {
      const long long g = (long long)o * 8 + j;
      if (a.son[g] >= 0) continue;
      const int ci = j & 1, cj = (j >> 1) & 1, ck = j >> 2;
      const int fx = ci + (T + 1) * (cj + T * ck), fy = ci + T * (cj + (T + 1) * ck), fz = ci + T * (cj + T * ck);
      const std::uint64_t sk = a.skip[i] >> (6 * j);
      for (int f = 0; f < nvar; ++f) {
        const double* fxv = flux + (0 * nvar + f) * F;
        const double* fyv = flux + (1 * nvar + f) * F;
        const double* fzv = flux + (2 * nvar + f) * F;
        const double fxl = (sk & 1) ? 0.0 : fxv[fx], fxh = (sk & 2) ? 0.0 : fxv[fx + 1];
        const double fyl = (sk & 4) ? 0.0 : fyv[fy], fyh = (sk & 8) ? 0.0 : fyv[fy + T];
        const double fzl = (sk & 16) ? 0.0 : fzv[fz], fzh = (sk & 32) ? 0.0 : fzv[fz + T * T];
        unew[f * a.stride + g] = conservative_update(u[f * a.stride + g], fxl, fxh, fyl, fyh, fzl, fzh, dtdx);
      }
    } else {
      const int face = (j - 8) / 4, sub = (j - 8) % 4;
      if (!((a.keep[i] >> face) & 1)) continue;
      const int x = face / 2, b = x == 0 ? 1 : 0, c = 3 - x - b;  // normal, then the tangential axes in order
      int p[3];
      p[x] = face % 2 ? T : 0;
      p[b] = sub & 1;
      p[c] = sub >> 1;
      const int nx = x == 0 ? T + 1 : T, ny = x == 1 ? T + 1 : T;
      const int r = p[0] + nx * (p[1] + ny * p[2]);
      double* out = a.fine_flux + ((long long)o * 6 + face) * 4 * nvar + sub * nvar;
      for (int f = 0; f < nvar; ++f) out[f] = flux[(x * nvar + f) * F + r];
    }
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
RO_HD void reflux_cell(long long e, int f, long long nfaces, const RefluxFace* faces, const std::int8_t* level,
                       const double* fine_flux, long long stride, double dt, double dx0, double* unew) {
  const long long cell = faces[e].cell;
  if (e > 0 && faces[e - 1].cell == cell) return;
  const double dtdx = dt / (dx0 / double(1 << level[cell >> 3]));
  double& v = unew[f * stride + cell];
  for (; e < nfaces && faces[e].cell == cell; ++e) {
    const RefluxFace rf = faces[e];
    const double* in = fine_flux + ((long long)rf.fine_oct * 6 + (rf.face ^ 1)) * 4 * nvar;
    const double fl = (in[f] + in[nvar + f] + in[2 * nvar + f] + in[3 * nvar + f]) * 0.25;
    v = rf.face % 2 ? v - dtdx * fl : v + dtdx * fl;
  }
}

}  // namespace ro::amr::block
