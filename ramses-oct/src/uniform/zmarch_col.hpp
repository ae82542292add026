// zmarch-col: the zmarch slab (zmarch.hpp: a block marches a 4x2-oct patch through a segment of L
// octs along z, one cell plane at a time) with every (x, y) column of the predictor region owned
// by one thread for the whole march. zmarch syncs its block 3.5 times per cell plane over four
// phases of 32 to 108 items for 128 threads, its face phase diverging between axes, so its warps
// wait at barriers much of the time (Nsight Compute on the H200: 5.2 of 13.1 cycles between two
// issued instructions). Here a cell plane takes two phases and two syncs:
//   A(e)  threads [0, TP), one per interior column: the predictor of plane e, the z face between
//         e-1 and e from the column's own qh and dq_z of plane e-1, the update of plane e-1 with
//         the column's own z flux below it. The column's qh, dq_z and z flux pass from one plane
//         to the next through shared slots that only the owner reads and writes (no sync); in
//         registers they cost 62 more registers (ptxas, sm_90: 162 per thread, or 80 with 544 B
//         of spills under the occupancy cap), which would halve the blocks per SM.
//         Threads [TP, ncols): the 2(tx+ty) ring columns around them (the predictor region
//         without its corners): predictor only, for the x and y faces. Threads [TP, n): also the
//         load of plane e+2, into a fourth ring slot of primitives.
//   B(e)  the x and y faces of plane e from qh, dq_x, dq_y of the predictor region, one code path
//         for both axes (the normal axis is a run-time offset into shared memory, so a warp that
//         holds x and y faces does not run two solvers one after the other).
// Shared memory per 4x2 block: 4 primitive planes, one plane of qh, dq_x, dq_y, one of x and y
// fluxes, the column slots (30 KB, against 37 KB for zmarch). Arithmetic per face and per cell
// is the oracle's (same functions, same operands, same order). Needs at least ncols threads per
// block; the host runs the same phases with one emulated thread per column in the cpu test.
#pragma once
#include <cstddef>
#include <cstdint>

#include "uniform/zmarch.hpp"

namespace ro {

// Threads that own a column: the interior cells of the patch and the predictor ring around them.
RO_HD int zcol_columns(const ZPatch& z) { return z.tx() * z.ty() + 2 * (z.tx() + z.ty()); }
RO_HD int zcol_shared_doubles(const ZPatch& z) {
  return 4 * nvar * z.sx() * z.sy() + 3 * nvar * z.ex() * z.ey() + nvar * (z.tx() + 1) * z.ty() +
         nvar * z.tx() * (z.ty() + 1) + 3 * nvar * z.tx() * z.ty();
}
// Slot octs at the segment base, two oct layers, global cell indices of 4 interior planes.
RO_HD int zcol_shared_ints(const ZPatch& z) { return 3 * z.slots() + 4 * z.tx() * z.ty(); }
inline std::size_t zcol_shared_bytes(const ZPatch& z) {
  return zcol_shared_doubles(z) * sizeof(double) + zcol_shared_ints(z) * sizeof(int);
}

struct ZColBlock {
  const MeshView* m;
  const HydroParams* hp;
  ZPatch z;
  const double* __restrict__ u;
  double* __restrict__ unew;
  double dtdx;
  long long fstride;
  int lo[3], hi[3];
  double *q, *ext, *fx, *fy;  // q: [4][nvar][SP]; ext: [qh, dqx, dqy][nvar][EP]; fx: [nvar][FX]
  double* carry;              // [qh, dqz of plane e-1, z flux below it][nvar][TP], slot = owner
  int *xy0, *layer, *gidx;    // layer: [2][slots]; gidx: [4][TP]

  RO_HD int SP() const { return z.sx() * z.sy(); }
  RO_HD int EP() const { return z.ex() * z.ey(); }
  RO_HD int TP() const { return z.tx() * z.ty(); }
  RO_HD int FX() const { return (z.tx() + 1) * z.ty(); }
  RO_HD int FY() const { return z.tx() * (z.ty() + 1); }
  RO_HD int planes() const { return 2 * z.L; }

  RO_HD ZColBlock(const MeshView& mesh, const HydroParams& h, const ZPatch& patch, std::int32_t base,
                  const double* __restrict__ u_old, double* __restrict__ u_new, double dt_dx, double* smem)
      : m(&mesh), hp(&h), z(patch), u(u_old), unew(u_new), dtdx(dt_dx), fstride(mesh.noct * 8) {
    const int P[3] = {z.px, z.py, z.L};
    for (int a = 0; a < 3; ++a) {
      const int c = mesh.coord[a][base];
      lo[a] = c == 0 ? mesh.bc[a] : 0;
      hi[a] = c + P[a] == mesh.octs[a] ? mesh.bc[a] : 0;
    }
    q = smem;
    ext = q + 4 * nvar * SP();
    fx = ext + 3 * nvar * EP();
    fy = fx + nvar * FX();
    carry = fy + nvar * FY();
    xy0 = reinterpret_cast<int*>(carry + 3 * nvar * TP());
    layer = xy0 + z.slots();
    gidx = layer + 2 * z.slots();
  }

  // Prologue, three phases: slot octs at the segment base; the oct layers below the segment and
  // at its base; planes -2, -1, 0.
  RO_HD void base_slots(std::int32_t base, int tid, int n) {
    for (int s = tid; s < z.slots(); s += n) xy0[s] = tile_slot_oct(*m, base, s % (z.px + 2), s / (z.px + 2), 1);
  }
  RO_HD void first_layers(int tid, int n) {
    for (int s = tid; s < z.slots(); s += n) {
      layer[s] = m->nbor[4][xy0[s]];
      layer[z.slots() + s] = xy0[s];
    }
  }
  // Plane p in [-2, 2L+2) (segment coordinates), its cells j = first, first + stride, ...
  RO_HD void load_plane(int p, int first, int stride) {
    const int t = p + 2, NS = z.slots();
    int zslot, lz;
    bool flipz;
    tile_axis_source(t, z.L, lo[2], hi[2], zslot, lz, flipz);
    const int* lay = layer + ((t >> 1) & 1) * NS;
    double* qp = q + zm_ring4(p) * nvar * SP();
    const bool interior_plane = p >= 0 && p < planes();
    const int sx = z.sx(), tx = z.tx(), ty = z.ty();
    for (int j = first; j < SP(); j += stride) {
      const long long cell = zm_load_cell(*hp, z, lo, hi, lay, lz, flipz, u, fstride, j, qp);
      const int i = j % sx, jj = j / sx;
      if (interior_plane && i >= 2 && i < tx + 2 && jj >= 2 && jj < ty + 2)
        gidx[zm_ring4(p) * TP() + (i - 2) + tx * (jj - 2)] = static_cast<int>(cell);
    }
  }

  // Phase A(e), the column of thread col (col < zcol_columns): predictor of plane e; interior
  // columns then the z face below plane e and the update of plane e-1.
  RO_HD void column(int e, int col) const {
    const int tx = z.tx(), ty = z.ty(), ex = z.ex(), ey = z.ey(), sx = z.sx();
    const int TPn = TP(), SPn = SP(), EPn = EP();
    const bool interior = col < TPn;
    const bool ghost_plane = e < 0 || e >= planes();
    if (!interior && ghost_plane) return;  // ring columns only feed the x, y faces of interior planes
    int ei, ej;
    if (interior) {
      ei = 1 + col % tx;
      ej = 1 + col / tx;
    } else {
      int r = col - TPn;
      if (r < tx) {
        ei = 1 + r;
        ej = 0;
      } else if ((r -= tx) < tx) {
        ei = 1 + r;
        ej = ey - 1;
      } else if ((r -= tx) < ty) {
        ei = 0;
        ej = 1 + r;
      } else {
        ei = ex - 1;
        ej = 1 + (r - ty);
      }
    }
    const double* qm = q + zm_ring4(e - 1) * nvar * SPn;
    const double* q0 = q + zm_ring4(e) * nvar * SPn;
    const double* qq = q + zm_ring4(e + 1) * nvar * SPn;
    const int sc = (ei + 1) + sx * (ej + 1);
    double qc[nvar], d[3][nvar], qh[nvar];
    for (int f = 0; f < nvar; ++f) qc[f] = q0[f * SPn + sc];
    for (int f = 0; f < nvar; ++f) {
      d[0][f] = limited_slope(q0[f * SPn + sc - 1], qc[f], q0[f * SPn + sc + 1], hp->slope_type);
      d[1][f] = limited_slope(q0[f * SPn + sc - sx], qc[f], q0[f * SPn + sc + sx], hp->slope_type);
      d[2][f] = limited_slope(qm[f * SPn + sc], qc[f], qq[f * SPn + sc], hp->slope_type);
    }
    predict_half_step(qc, d[0], d[1], d[2], dtdx, hp->gamma, qh);
    if (!ghost_plane) {
      const int c = ei + ex * ej;
      for (int f = 0; f < nvar; ++f) {
        ext[f * EPn + c] = qh[f];
        ext[(nvar + f) * EPn + c] = d[0][f];
        ext[(2 * nvar + f) * EPn + c] = d[1][f];
      }
    }
    if (!interior) return;
    double* cqh = carry + col;
    double* cdqz = cqh + nvar * TPn;
    double* cfz = cdqz + nvar * TPn;
    if (e >= 0) {
      double qhl[nvar], dql[nvar], fzhi[nvar];
      for (int f = 0; f < nvar; ++f) {
        qhl[f] = cqh[f * TPn];
        dql[f] = cdqz[f * TPn];
      }
      face_flux<2>(qhl, dql, qh, d[2], *hp, fzhi);
      if (e >= 1) {  // plane e-1: its x, y fluxes are in shared memory since B(e-1)
        const int ci = col % tx, cj = col / tx;
        const long long g = gidx[zm_ring4(e - 1) * TPn + col];
        const int ix = ci + (tx + 1) * cj, iy = ci + tx * cj;
        const int FXn = FX(), FYn = FY();
        for (int f = 0; f < nvar; ++f)
          unew[f * fstride + g] = conservative_update(u[f * fstride + g], fx[f * FXn + ix], fx[f * FXn + ix + 1],
                                                      fy[f * FYn + iy], fy[f * FYn + iy + tx], cfz[f * TPn], fzhi[f],
                                                      dtdx);
      }
      for (int f = 0; f < nvar; ++f) cfz[f * TPn] = fzhi[f];
    }
    for (int f = 0; f < nvar; ++f) {
      cqh[f * TPn] = qh[f];
      cdqz[f * TPn] = d[2][f];
    }
  }

  // Phase B(e): x and y faces of interior plane e. The solver sees each face in its normal frame
  // (rho, u_n, u_t1, u_t2, p), which is face_flux<0> applied to the components read in that order;
  // the flux goes back to the global order through the same offsets.
  RO_HD void xy_faces(int e, int tid, int n) const {
    if (e < 0 || e >= planes()) return;
    const int tx = z.tx(), ex = z.ex(), EPn = EP(), FXn = FX(), FYn = FY();
    for (int r = tid; r < FXn + FYn; r += n) {
      const bool xface = r < FXn;
      int el, er;
      if (xface) {
        er = (r % (tx + 1) + 1) + ex * (r / (tx + 1) + 1);
        el = er - 1;
      } else {
        const int y = r - FXn;
        er = (y % tx + 1) + ex * (y / tx + 1);
        el = er - ex;
      }
      const int cn = xface ? 1 : 2, ct1 = xface ? 2 : 3, ct2 = xface ? 3 : 1;  // 1 + (a, a+1, a+2) mod 3
      const int comp[nvar] = {0, cn, ct1, ct2, 4};
      const double* dq = ext + (xface ? 1 : 2) * nvar * EPn;
      double qhl[nvar], dql[nvar], qhr[nvar], dqr[nvar], fl[nvar];
      for (int k = 0; k < nvar; ++k) {
        qhl[k] = ext[comp[k] * EPn + el];
        dql[k] = dq[comp[k] * EPn + el];
        qhr[k] = ext[comp[k] * EPn + er];
        dqr[k] = dq[comp[k] * EPn + er];
      }
      face_flux<0>(qhl, dql, qhr, dqr, *hp, fl);
      double* out = xface ? fx + r : fy + (r - FXn);
      const int F = xface ? FXn : FYn;
      for (int k = 0; k < nvar; ++k) out[comp[k] * F] = fl[k];
    }
  }

  // Phase B(e) too: the oct layer of plane e+3 when that plane starts one (e odd); its buffer
  // last served the planes e-1 and e, loaded in A(e-3) and A(e-2).
  RO_HD void next_layer(int e, int tid, int n) {
    const int p = e + 3;
    if ((p & 1) != 0 || p >= planes() + 2) return;
    const int zs = (p + 2) >> 1, NS = z.slots();
    int* dst = layer + (zs & 1) * NS;
    const int* src = layer + ((zs - 1) & 1) * NS;
    for (int s = tid; s < NS; s += n) dst[s] = m->nbor[5][src[s]];
  }
};

// The march of one block. phase_a(e) runs the column work of A(e) and the load of plane e+2 (on
// the device: thread tid owns column tid, threads [TP, n) load; on the host: every column in
// turn, then the whole plane); the other phases are block-wide loops over (tid, nthreads).
template <class PhaseA>
RO_HD void zmarch_col_march(ZColBlock& b, std::int32_t base, int tid, int nthreads, PhaseA phase_a) {
  b.base_slots(base, tid, nthreads);
  RO_BLOCK_SYNC();
  b.first_layers(tid, nthreads);
  RO_BLOCK_SYNC();
  for (int p = -2; p <= 0; ++p) b.load_plane(p, tid, nthreads);
  RO_BLOCK_SYNC();
  for (int e = -1; e <= b.planes(); ++e) {
    phase_a(e);
    if (e == b.planes()) break;
    RO_BLOCK_SYNC();
    b.xy_faces(e, tid, nthreads);
    b.next_layer(e, tid, nthreads);
    RO_BLOCK_SYNC();
  }
}

}  // namespace ro
