// Moving state between levels. Prolongation is RAMSES's interpol_hydro with interpol_type = 1 on
// the conserved variables: per axis the minmod slope of the coarse cell and its two face
// neighbours, and the eight sons at +-1/4 of the coarse cell along each axis,
//   u_son = u + (s_x dx + s_y dy + s_z dz) / 4,  dx, dy, dz = -1 | +1,
// so the sons' average is the coarse value (the +- terms cancel pairwise; to round-off in floating
// point). Where a son would get a non-positive density or pressure the coarse cell falls back to
// zero slopes (all sons = the coarse value), which is still conservative. Restriction is the volume
// average of the eight sons, summed in cell order. The same prolongation fills the ghost cells of a
// fine oct next to a coarser region and the new octs of a refinement.
#pragma once
#include <cstdint>

#include "hydro/hydro_math.hpp"

namespace ro::amr {

// Son c (x, y, z bits: the high side along that axis) of a coarse cell with slopes s[axis][field];
// returns whether it has a positive density and pressure.
RO_HD bool prolong_son(const double uc[nvar], const double s[3][nvar], int c, double gamma, double son[nvar]) {
  const double dx = (c & 1) ? 1.0 : -1.0, dy = (c & 2) ? 1.0 : -1.0, dz = (c & 4) ? 1.0 : -1.0;
  for (int f = 0; f < nvar; ++f) son[f] = uc[f] + 0.25 * ((dx * s[0][f] + dy * s[1][f]) + dz * s[2][f]);
  double q[nvar];
  cons_to_prim(son, gamma, q);
  return q[0] > 0.0 && q[4] > 0.0;
}

RO_HD void prolong_slopes(const double uc[nvar], const double um[3][nvar], const double up[3][nvar],
                          double s[3][nvar]) {
  for (int a = 0; a < 3; ++a)
    for (int f = 0; f < nvar; ++f) s[a][f] = limited_slope(um[a][f], uc[f], up[a][f], 1);
}

RO_HD void prolong(const double uc[nvar], const double um[3][nvar], const double up[3][nvar], double gamma,
                   double sons[8][nvar]) {
  double s[3][nvar];
  prolong_slopes(uc, um, up, s);
  bool ok = true;
  for (int c = 0; c < 8; ++c) ok = prolong_son(uc, s, c, gamma, sons[c]) && ok;
  if (ok) return;
  for (int c = 0; c < 8; ++c)
    for (int f = 0; f < nvar; ++f) sons[c][f] = uc[f];
}

// The eight sons prolonged from a stencil row of seven cells (the coarse cell, then its -x, +x, -y,
// +y, -z, +z face neighbours): cells[k] indexes field-major state u (stride between fields), bit x
// of flips[k] negates that cell's x-momentum component (a reflecting wall seen through a mirror).
// The stencil row's coarse value uc, its -x, +x, -y, +y, -z, +z neighbours as um and up.
RO_HD void stencil_values(const double* u, long long stride, const std::int64_t cells[7], const std::uint8_t flips[7],
                          double uc[nvar], double um[3][nvar], double up[3][nvar]) {
  for (int k = 0; k < 7; ++k) {
    double* v = k == 0 ? uc : (k % 2 ? um[(k - 1) / 2] : up[(k - 1) / 2]);
    for (int f = 0; f < nvar; ++f) v[f] = u[f * stride + cells[k]];
    for (int x = 0; x < 3; ++x)
      if ((flips[k] >> x) & 1) v[1 + x] = -v[1 + x];
  }
}

RO_HD void prolong_stencil(const double* u, long long stride, const std::int64_t cells[7], const std::uint8_t flips[7],
                           double gamma, double sons[8][nvar]) {
  double uc[nvar], um[3][nvar], up[3][nvar];
  stencil_values(u, stride, cells, flips, uc, um, up);
  prolong(uc, um, up, gamma, sons);
}

// Son c alone of the eight that prolong_stencil gives (uc: the stencil's coarse value); returns
// whether it is physical. Eight threads, one per son, that write their sons only where all eight
// are physical and uc otherwise reproduce prolong_stencil (its fallback) bit for bit.
RO_HD bool prolong_stencil_son(const double* u, long long stride, const std::int64_t cells[7],
                               const std::uint8_t flips[7], int c, double gamma, double uc[nvar], double son[nvar]) {
  double um[3][nvar], up[3][nvar], s[3][nvar];
  stencil_values(u, stride, cells, flips, uc, um, up);
  prolong_slopes(uc, um, up, s);
  return prolong_son(uc, s, c, gamma, son);
}

// Volume average of the eight son cells (son oct so) into the father cell fc, every field.
RO_HD void restrict_cell(double* u, long long stride, long long fc, long long so) {
  for (int f = 0; f < nvar; ++f) {
    const double* s = u + f * stride + so * 8;
    u[f * stride + fc] = (s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7]) * 0.125;  // left to right
  }
}

// --subcycle: cell g's new value made current (unew -> u) where it is a leaf; a covered cell keeps
// the restriction in u (the host's commit_level, the device's commit_restrict_kernel).
RO_HD void commit_cell(long long g, const std::int32_t* son, long long stride, const double* unew, double* u) {
  if (son[g] >= 0) return;
  for (int f = 0; f < nvar; ++f) u[f * stride + g] = unew[f * stride + g];
}

}  // namespace ro::amr
