// The per-cell passes of the `split` and `split3` GPU variants: the MUSCL-Hancock step written as
// cell-parallel passes with the predicted states in global memory, where the tile and z-march
// variants keep them in shared memory. The question they answer (issue 13, README "split"): can
// a step without tiles, whose unit is one cell and its six face neighbours, as an oct tree's leaf
// cells would be updated, run near the tile kernels' rate?
//   predict  every cell gathers itself and its six face neighbours, converts them to primitives,
//            forms the limited slopes and the half-step state (RAMSES trace3d) and stores qh and
//            dq_x, dq_y, dq_z: 20 doubles per cell, [20][ncell].
//   split    then one pass: every cell solves the Riemann problems of its six faces from its own
//            and its neighbours' stored states and updates itself. Each face is solved by both of
//            its cells, from the same operands in the same order, so both see the same flux bits
//            and the scheme stays conservative.
//   split3   then two passes: every cell solves its three low faces and stores the fluxes
//            ([3][nvar][ncell]); every cell reads its three low and three high faces (its high
//            neighbours' low faces) and updates itself.
// One rank, periodic in every axis: the neighbour across the mesh's edge is the wrapped cell of
// the oct neighbour table, so no ghost cell needs a predictor of its own.
#pragma once
#include "hydro_math.hpp"
#include "tile_geometry.hpp"

namespace ro::split {

inline constexpr int ext_vars = 4 * nvar;   // qh, dq_x, dq_y, dq_z
inline constexpr int flux_vars = 3 * nvar;  // the low x, y, z faces

// The face neighbour of cell g on side 0 (low) or 1 (high) of an axis: in g's own oct when g lies
// on the other side of the oct, else in the oct across that face; the cell index within the oct
// flips its bit of the axis either way.
RO_HD long long neighbour(const MeshView& m, long long g, int axis, int side) {
  const int lc = static_cast<int>(g & 7), bit = 1 << axis;
  const long long o = g >> 3;
  const long long oct = ((lc >> axis) & 1) != side ? o : m.nbor[2 * axis + side][o];
  return oct * 8 + (lc ^ bit);
}

RO_HD void load_prim(const double* u, long long n, long long g, double gamma, double q[nvar]) {
  double uc[nvar];
  for (int f = 0; f < nvar; ++f) uc[f] = u[f * n + g];
  cons_to_prim(uc, gamma, q);
}

// Pass 1 for cell g: qh and the three slopes into ext ([ext_vars][n]).
RO_HD void predict_cell(const MeshView& m, const HydroParams& hp, const double* u, long long n, long long g,
                        double dtdx, double* ext) {
  double qc[nvar], d[3][nvar], qh[nvar];
  load_prim(u, n, g, hp.gamma, qc);
  for (int a = 0; a < 3; ++a) {
    double ql[nvar], qr[nvar];
    load_prim(u, n, neighbour(m, g, a, 0), hp.gamma, ql);
    load_prim(u, n, neighbour(m, g, a, 1), hp.gamma, qr);
    for (int f = 0; f < nvar; ++f) d[a][f] = limited_slope(ql[f], qc[f], qr[f], hp.slope_type);
  }
  predict_half_step(qc, d[0], d[1], d[2], dtdx, hp.gamma, qh);
  for (int f = 0; f < nvar; ++f) {
    ext[f * n + g] = qh[f];
    for (int a = 0; a < 3; ++a) ext[(nvar + a * nvar + f) * n + g] = d[a][f];
  }
}

// qh and the slope along AXIS of cell g, as stored by predict_cell.
template <int AXIS>
RO_HD void load_state(const double* ext, long long n, long long g, double qh[nvar], double dq[nvar]) {
  for (int f = 0; f < nvar; ++f) {
    qh[f] = ext[f * n + g];
    dq[f] = ext[(nvar + AXIS * nvar + f) * n + g];
  }
}

// The flux through the low face of cell g along AXIS (left: the low neighbour, right: g).
template <int AXIS>
RO_HD void low_face_flux(const MeshView& m, const HydroParams& hp, const double* ext, long long n, long long g,
                         double fl[nvar]) {
  double qhl[nvar], dql[nvar], qhr[nvar], dqr[nvar];
  load_state<AXIS>(ext, n, neighbour(m, g, AXIS, 0), qhl, dql);
  load_state<AXIS>(ext, n, g, qhr, dqr);
  face_flux<AXIS>(qhl, dql, qhr, dqr, hp, fl);
}

// acc += F_low - F_high along AXIS for cell g (the first axis sets acc): the bracketing of
// conservative_update, ((x) + (y)) + (z), so the sum has the tile variants' order.
template <int AXIS>
RO_HD void add_axis(const MeshView& m, const HydroParams& hp, const double* ext, long long n, long long g,
                    double acc[nvar]) {
  double fl[nvar], fh[nvar];
  low_face_flux<AXIS>(m, hp, ext, n, g, fl);
  low_face_flux<AXIS>(m, hp, ext, n, neighbour(m, g, AXIS, 1), fh);
  for (int f = 0; f < nvar; ++f) acc[f] = AXIS == 0 ? fl[f] - fh[f] : acc[f] + (fl[f] - fh[f]);
}

// split, pass 2 for cell g: its six faces solved here, then u -> unew.
RO_HD void update_cell(const MeshView& m, const HydroParams& hp, const double* ext, const double* u, double* unew,
                       long long n, long long g, double dtdx) {
  double acc[nvar];
  add_axis<0>(m, hp, ext, n, g, acc);
  add_axis<1>(m, hp, ext, n, g, acc);
  add_axis<2>(m, hp, ext, n, g, acc);
  for (int f = 0; f < nvar; ++f) unew[f * n + g] = u[f * n + g] + dtdx * acc[f];
}

// split3, pass 2 for cell g: its three low faces into flux ([flux_vars][n]).
RO_HD void low_faces_cell(const MeshView& m, const HydroParams& hp, const double* ext, double* flux, long long n,
                          long long g) {
  double fl[nvar];
  low_face_flux<0>(m, hp, ext, n, g, fl);
  for (int f = 0; f < nvar; ++f) flux[f * n + g] = fl[f];
  low_face_flux<1>(m, hp, ext, n, g, fl);
  for (int f = 0; f < nvar; ++f) flux[(nvar + f) * n + g] = fl[f];
  low_face_flux<2>(m, hp, ext, n, g, fl);
  for (int f = 0; f < nvar; ++f) flux[(2 * nvar + f) * n + g] = fl[f];
}

// split3, pass 3 for cell g: conservative_update from the stored low faces of g and of its high
// neighbours.
RO_HD void update_from_faces(const MeshView& m, const double* flux, const double* u, double* unew, long long n,
                             long long g, double dtdx) {
  const long long hx = neighbour(m, g, 0, 1), hy = neighbour(m, g, 1, 1), hz = neighbour(m, g, 2, 1);
  for (int f = 0; f < nvar; ++f) {
    const double* fx = flux + f * n;
    const double* fy = flux + (nvar + f) * n;
    const double* fz = flux + (2 * nvar + f) * n;
    unew[f * n + g] = conservative_update(u[f * n + g], fx[g], fx[hx], fy[g], fy[hy], fz[g], fz[hz], dtdx);
  }
}

}  // namespace ro::split
