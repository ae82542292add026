// The body of the GPU AMR step written once as host/device functions (as zmarch.hpp does for the
// uniform kernels): amr_gpu.cu calls each phase with the block's threads and a barrier between
// phases; the host emulation (amr_plan.cpp, emulate_plan_step) calls them with one thread looping
// over the thread indices, so a cpu test checks the plan and every index map of the GPU step
// against the oracle. One block per leaf oct (the subgrid6 phases of kernels_gpu.cu): gather the
// 6^3 subgrid from the state or the prolonged ghost slots, slopes and predictor, one Riemann solve
// per face, then the leaf cells (faces next to a refined neighbour take no flux) and the fine
// fluxes of the faces next to a coarser region, as Stepper::update_oct does on the host.
#pragma once
#include <cstdint>

#include "amr_interp.hpp"
#include "amr_solver.hpp"
#include "hydro_math.hpp"
#include "tile_geometry.hpp"

namespace ro::amr::block {

inline constexpr int T = 2, S = 6, S3 = 216, E = 4, E3 = 64, F = (T + 1) * T * T;
inline constexpr int threads = 64;

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
  double q[nvar * S3];        // primitives, later the fluxes [3][nvar][F]
  double ext[4 * nvar * E3];  // qh, then dq x, y, z
  int slot[27];
};

RO_HD int tidx(int i, int j, int k, int n) { return i + n * (j + n * k); }
RO_HD double dtdx_of(const Args& a, int o) { return a.dt / (a.dx0 / double(1 << a.level[o])); }

// The eight sons of ghost slot g, prolonged from its coarse cell and the six face neighbours.
RO_HD void ghost_sons(const double* u, long long stride, long long g, const std::int64_t* src, const std::uint8_t* flip,
                      double gamma, double* out) {
  double sons[8][nvar];
  prolong_stencil(u, stride, src + 7 * g, flip + 7 * g, gamma, sons);
  for (int c = 0; c < 8; ++c)
    for (int f = 0; f < nvar; ++f) out[g * 8 * nvar + c * nvar + f] = sons[c][f];
}

RO_HD void load_slots(const Args& a, long long i, int tid, int nth, Shared& sh) {
  for (int s = tid; s < 27; s += nth) sh.slot[s] = a.slots[27 * i + s];
}

// Phase 1: 27 slots x 8 cells, each from the state or its ghost slot, mirrored at reflecting faces.
RO_HD void gather(const Args& a, const HydroParams& hp, const double* u, long long i, int tid, int nth, Shared& sh) {
  for (int j = tid; j < 27 * 8; j += nth) {
    const int s = j >> 3, lc = j & 7;
    const int sl[3] = {s % 3, (s / 3) % 3, s / 9};
    int tc[3], loc[3];
    bool flip[3];
    for (int d = 0; d < 3; ++d) {
      tc[d] = 2 * sl[d] + ((lc >> d) & 1);
      int sd;
      tile_axis_source(tc[d], 1, a.edges[6 * i + d], a.edges[6 * i + 3 + d], sd, loc[d], flip[d]);
    }
    const int local = loc[0] + 2 * loc[1] + 4 * loc[2];
    const int src = sh.slot[s];
    double uc[nvar];
    if (src >= 0) {
      for (int f = 0; f < nvar; ++f) uc[f] = u[f * a.stride + (long long)src * 8 + local];
    } else {
      const double* gv = a.ghost + (long long)(-1 - src) * 8 * nvar + local * nvar;
      for (int f = 0; f < nvar; ++f) uc[f] = gv[f];
    }
    for (int d = 0; d < 3; ++d)
      if (flip[d]) uc[1 + d] = -uc[1 + d];
    double qc[nvar];
    cons_to_prim(uc, hp.gamma, qc);
    const int t = tidx(tc[0], tc[1], tc[2], S);
    for (int f = 0; f < nvar; ++f) sh.q[f * S3 + t] = qc[f];
  }
}

// Phase 2: slopes and the half-step predictor on the interior and face cells.
RO_HD void predict(const HydroParams& hp, double dtdx, int tid, int nth, Shared& sh) {
  for (int m = tid; m < predictor_cells(T); m += nth) {
    int ei, ej, ek;
    predictor_cell(m, T, ei, ej, ek);
    const int e = tidx(ei, ej, ek, E);
    const int c = tidx(ei + 1, ej + 1, ek + 1, S);
    const int step[3] = {1, S, S * S};
    double qc[nvar], d[3][nvar], qh[nvar];
    for (int f = 0; f < nvar; ++f) qc[f] = sh.q[f * S3 + c];
    for (int x = 0; x < 3; ++x)
      for (int f = 0; f < nvar; ++f)
        d[x][f] = limited_slope(sh.q[f * S3 + c - step[x]], qc[f], sh.q[f * S3 + c + step[x]], hp.slope_type);
    predict_half_step(qc, d[0], d[1], d[2], dtdx, hp.gamma, qh);
    for (int f = 0; f < nvar; ++f) {
      sh.ext[f * E3 + e] = qh[f];
      for (int x = 0; x < 3; ++x) sh.ext[(nvar + x * nvar + f) * E3 + e] = d[x][f];
    }
  }
}

// Phase 3: one Riemann solve per face; the fluxes overwrite the primitives (phase 3 reads ext only).
RO_HD void fluxes(const HydroParams& hp, int tid, int nth, Shared& sh) {
  for (int t = tid; t < 3 * F; t += nth) {
    const int x = t / F, r = t % F;
    const int nx = x == 0 ? T + 1 : T, ny = x == 1 ? T + 1 : T;
    const int fi = r % nx, fj = (r / nx) % ny, fk = r / (nx * ny);
    const int er = tidx(fi + 1, fj + 1, fk + 1, E);
    const int el = er - (x == 0 ? 1 : (x == 1 ? E : E * E));
    double qhl[nvar], dql[nvar], qhr[nvar], dqr[nvar], fl[nvar];
    for (int f = 0; f < nvar; ++f) {
      qhl[f] = sh.ext[f * E3 + el];
      qhr[f] = sh.ext[f * E3 + er];
      dql[f] = sh.ext[(nvar + x * nvar + f) * E3 + el];
      dqr[f] = sh.ext[(nvar + x * nvar + f) * E3 + er];
    }
    if (x == 0) face_flux<0>(qhl, dql, qhr, dqr, hp, fl);
    else if (x == 1) face_flux<1>(qhl, dql, qhr, dqr, hp, fl);
    else face_flux<2>(qhl, dql, qhr, dqr, hp, fl);
    for (int f = 0; f < nvar; ++f) sh.q[(x * nvar + f) * F + r] = fl[f];
  }
}

// Phase 4: items 0..7 the leaf cells, 8..31 the sub-faces (face, sub) of kept faces.
RO_HD void update(const Args& a, const double* u, double* unew, long long i, int tid, int nth, const Shared& sh) {
  const int o = a.leaf_octs[i];
  const double dtdx = dtdx_of(a, o);
  const double* flux = sh.q;
  for (int j = tid; j < 8 + 24; j += nth) {
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

// The reflux of coarse octs' faces: the average of the son oct's four face fluxes (1/4 each).
RO_HD void reflux_oct(long long i, const std::int32_t* octs, const std::int64_t* begin, const RefluxFace* faces,
                      const std::int8_t* level, const double* fine_flux, long long stride, double dt, double dx0,
                      double* unew) {
  const double dtdx = dt / (dx0 / double(1 << level[octs[i]]));
  for (long long e = begin[i]; e < begin[i + 1]; ++e) {
    const RefluxFace rf = faces[e];
    const double* in = fine_flux + ((long long)rf.fine_oct * 6 + (rf.face ^ 1)) * 4 * nvar;
    for (int f = 0; f < nvar; ++f) {
      const double fl = (in[f] + in[nvar + f] + in[2 * nvar + f] + in[3 * nvar + f]) * 0.25;
      double& v = unew[f * stride + rf.cell];
      v = rf.face % 2 ? v - dtdx * fl : v + dtdx * fl;
    }
  }
}

}  // namespace ro::amr::block
