// zmarch: one thread block owns a patch of px x py octs in (x, y) and a segment of L octs along z,
// and marches through the segment one cell plane at a time, keeping ring buffers of the planes it
// still needs in shared memory:
//   primitives        3 planes of (2px+4) x (2py+4) cells (the z slope of plane e needs e-1, e+1)
//   qh, dq_x,y,z      2 planes of (2px+2) x (2py+2) cells (a z face needs the planes on both sides)
//   z fluxes          2 planes (below and above the plane being updated); x, y fluxes 1 plane.
// Every cell of the segment is gathered once plus the x, y ghost ring and the four ghost planes
// at the segment ends ((2px+4)(2py+4)/(4 px py) x (2L+4)/(2L) gathered cells per updated cell:
// 3.4 for 4x2 octs and L = 16, against 8 for the 8^3 tile), and every face flux is computed once.
// Iteration p loads plane p, predicts plane p-1, computes the faces of plane p-2 and updates it.
//
// The body is written once for the device and for a sequential host emulation (one "thread",
// block syncs are no-ops), which the cpu tests run against the oracle to check the indexing.
// Arithmetic per face and per cell is the oracle's (same functions, same operand order).
#pragma once
#include <cstdint>

#include <vector>

#include "hydro/hydro_math.hpp"
#include "hydro/mesh.hpp"
#include "hydro/tile_geometry.hpp"

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define RO_BLOCK_SYNC() __syncthreads()
#else
#define RO_BLOCK_SYNC() ((void)0)
#endif

namespace ro {

// Patch geometry (runtime: clamped to the mesh so that small and brick meshes work).
struct ZPatch {
  int px = 0, py = 0, L = 0;   // octs along x, y, z of one block
  int blocks[3] = {0, 0, 0};   // blocks along x, y, z
  RO_HD int tx() const { return 2 * px; }
  RO_HD int ty() const { return 2 * py; }
  RO_HD int sx() const { return 2 * px + 4; }
  RO_HD int sy() const { return 2 * py + 4; }
  RO_HD int ex() const { return 2 * px + 2; }
  RO_HD int ey() const { return 2 * py + 2; }
  RO_HD int slots() const { return (px + 2) * (py + 2); }
  // Shared memory: doubles (q, ext, fx, fy, fz) then ints (slot octs x 2, cell index ring of 4).
  RO_HD int shared_doubles() const {
    const int tp = tx() * ty();
    return 3 * nvar * sx() * sy() + 2 * 4 * nvar * ex() * ey() + nvar * (tx() + 1) * ty() +
           nvar * tx() * (ty() + 1) + 2 * nvar * tp;
  }
  RO_HD int shared_ints() const { return 2 * slots() + 4 * tx() * ty(); }
  std::size_t shared_bytes() const { return shared_doubles() * sizeof(double) + shared_ints() * sizeof(int); }
};

inline ZPatch make_zpatch(const int octs[3], int px, int py, int L) {
  ZPatch z;
  z.px = px < octs[0] ? px : octs[0];
  z.py = py < octs[1] ? py : octs[1];
  z.L = L < octs[2] ? L : octs[2];
  z.blocks[0] = octs[0] / z.px;
  z.blocks[1] = octs[1] / z.py;
  z.blocks[2] = octs[2] / z.L;
  return z;
}

// Lowest interior oct of every block, block b = bx + nbx (by + nby bz) (host side).
inline std::vector<std::int32_t> zmarch_block_bases(const OctMesh& m, const ZPatch& z) {
  std::vector<std::int32_t> bases;
  bases.reserve(std::size_t(z.blocks[0]) * z.blocks[1] * z.blocks[2]);
  for (int bz = 0; bz < z.blocks[2]; ++bz)
    for (int by = 0; by < z.blocks[1]; ++by)
      for (int bx = 0; bx < z.blocks[0]; ++bx) bases.push_back(m.oct_at(bx * z.px, by * z.py, bz * z.L));
  return bases;
}

RO_HD int zm_ring3(int x) { return (x + 3) % 3; }  // x >= -2
RO_HD int zm_ring2(int x) { return (x + 2) & 1; }  // x >= -1
RO_HD int zm_ring4(int x) { return (x + 4) & 3; }  // x >= -2

// Cell j of an (sx x sy) cell plane whose octs are layer[] (the (px+2) x (py+2) slots of one oct
// layer), local z index lz within them: the conserved state gathered, mirrored across reflecting
// faces (lo, hi: boundary kinds of the patch's low and high slots per axis), converted to
// primitives into qp[f * sx * sy + j]. Returns the global cell index.
RO_HD long long zm_load_cell(const HydroParams& hp, const ZPatch& z, const int lo[3], const int hi[3],
                             const int* layer, int lz, bool flipz, const double* __restrict__ u, long long fstride,
                             int j, double* qp) {
  const int sx = z.sx(), SP = sx * z.sy();
  const int i = j % sx, jj = j / sx;
  int slx, lx, sly, ly;
  bool flx, fly;
  tile_axis_source(i, z.px, lo[0], hi[0], slx, lx, flx);
  tile_axis_source(jj, z.py, lo[1], hi[1], sly, ly, fly);
  const long long cell = (long long)layer[slx + (z.px + 2) * sly] * 8 + lx + 2 * ly + 4 * lz;
  double uc[nvar], qc[nvar];
  for (int f = 0; f < nvar; ++f) uc[f] = u[f * fstride + cell];
  if (flx) uc[1] = -uc[1];
  if (fly) uc[2] = -uc[2];
  if (flipz) uc[3] = -uc[3];
  cons_to_prim(uc, hp.gamma, qc);
  for (int f = 0; f < nvar; ++f) qp[f * SP + j] = qc[f];
  return cell;
}

// One block: base = the lowest interior oct of the block, smem as laid out by ZPatch.
// Global traffic: 40 B read per gathered cell (ghosts from L2), 40 B read + 40 B written per
// updated cell. FLOPs: ~570 per updated cell plus the predictor on the ghost ring
// ((2px+2)(2py+2) / (4 px py) x (2L+2)/(2L)) and the boundary faces.
RO_HD void zmarch_block(const MeshView& m, const HydroParams& hp, const ZPatch& z, std::int32_t base,
                        const double* __restrict__ u, double* __restrict__ unew, double dtdx, double* smem,
                        int tid, int nthreads) {
  const int sx = z.sx(), sy = z.sy(), ex = z.ex(), ey = z.ey(), tx = z.tx(), ty = z.ty();
  const int SP = sx * sy, EP = ex * ey, TP = tx * ty, NS = z.slots();
  const int FX = (tx + 1) * ty, FY = tx * (ty + 1);
  double* q = smem;                        // [3][nvar][SP]
  double* ext = q + 3 * nvar * SP;         // [2][qh, dqx, dqy, dqz][nvar][EP]
  double* fx = ext + 2 * 4 * nvar * EP;    // [nvar][FX]
  double* fy = fx + nvar * FX;             // [nvar][FY]
  double* fz = fy + nvar * FY;             // [2][nvar][TP]
  int* xy0 = reinterpret_cast<int*>(fz + 2 * nvar * TP);  // [NS] slot octs at the segment base
  int* layer = xy0 + NS;                                  // [NS] slot octs at the current z slot
  int* gidx = layer + NS;                                 // [4][TP] global cell of interior cells
  const long long fstride = m.noct * 8;
  const int P[3] = {z.px, z.py, z.L};
  int lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    const int c = m.coord[a][base];
    lo[a] = c == 0 ? m.bc[a] : 0;
    hi[a] = c + P[a] == m.octs[a] ? m.bc[a] : 0;
  }
  for (int s = tid; s < NS; s += nthreads) xy0[s] = tile_slot_oct(m, base, s % (z.px + 2), s / (z.px + 2), 1);
  RO_BLOCK_SYNC();

  for (int p = -2; p < 2 * z.L + 2; ++p) {
    const int t = p + 2;  // plane in segment coordinates with its two ghost planes below
    if ((t & 1) == 0) {   // a new oct layer: slot 0 is below the segment, slot 1 its base
      const int zs = t >> 1;
      for (int s = tid; s < NS; s += nthreads)
        layer[s] = zs == 0 ? m.nbor[4][xy0[s]] : (zs == 1 ? xy0[s] : m.nbor[5][layer[s]]);
      RO_BLOCK_SYNC();
    }
    int zslot, lz;
    bool flipz;
    tile_axis_source(t, z.L, lo[2], hi[2], zslot, lz, flipz);

    // Load plane p (conserved -> primitive), mirrored across reflecting faces.
    {
      double* qp = q + zm_ring3(p) * nvar * SP;
      const bool interior_plane = p >= 0 && p < 2 * z.L;
      for (int j = tid; j < SP; j += nthreads) {
        const int i = j % sx, jj = j / sx;
        const long long cell = zm_load_cell(hp, z, lo, hi, layer, lz, flipz, u, fstride, j, qp);
        if (interior_plane && i >= 2 && i < tx + 2 && jj >= 2 && jj < ty + 2)
          gidx[zm_ring4(p) * TP + (i - 2) + tx * (jj - 2)] = static_cast<int>(cell);
      }
    }
    RO_BLOCK_SYNC();

    // Slopes and half-step predictor of plane e = p - 1 on (2px+2) x (2py+2) cells, corners skipped.
    if (p >= 0) {
      const int e = p - 1;
      const double* qm = q + zm_ring3(e - 1) * nvar * SP;
      const double* q0 = q + zm_ring3(e) * nvar * SP;
      const double* qq = q + zm_ring3(e + 1) * nvar * SP;
      double* eb = ext + zm_ring2(e) * 4 * nvar * EP;
      for (int c = tid; c < EP; c += nthreads) {
        const int ei = c % ex, ej = c / ex;
        if ((ei == 0 || ei == ex - 1) && (ej == 0 || ej == ey - 1)) continue;
        const int sc = (ei + 1) + sx * (ej + 1);
        double qc[nvar], d[3][nvar], qh[nvar];
        for (int f = 0; f < nvar; ++f) qc[f] = q0[f * SP + sc];
        for (int f = 0; f < nvar; ++f) {
          d[0][f] = limited_slope(q0[f * SP + sc - 1], qc[f], q0[f * SP + sc + 1], hp.slope_type);
          d[1][f] = limited_slope(q0[f * SP + sc - sx], qc[f], q0[f * SP + sc + sx], hp.slope_type);
          d[2][f] = limited_slope(qm[f * SP + sc], qc[f], qq[f * SP + sc], hp.slope_type);
        }
        predict_half_step(qc, d[0], d[1], d[2], dtdx, hp.gamma, qh);
        for (int f = 0; f < nvar; ++f) {
          eb[f * EP + c] = qh[f];
          for (int a = 0; a < 3; ++a) eb[(nvar + a * nvar + f) * EP + c] = d[a][f];
        }
      }
    }
    RO_BLOCK_SYNC();

    // Faces of plane k = p - 2: the z faces above it (k = -1: the lowest z faces of the
    // segment), and for interior planes its x and y faces.
    if (p >= 1) {
      const int k = p - 2;
      const double* ek = ext + zm_ring2(k) * 4 * nvar * EP;
      const double* ek1 = ext + zm_ring2(k + 1) * 4 * nvar * EP;
      double* fzup = fz + zm_ring2(k + 1) * nvar * TP;
      const int nfaces = TP + (k >= 0 ? FX + FY : 0);
      for (int r = tid; r < nfaces; r += nthreads) {
        double qhl[nvar], dql[nvar], qhr[nvar], dqr[nvar], fl[nvar];
        if (r < TP) {
          const int c = (r % tx + 1) + ex * (r / tx + 1);
          for (int f = 0; f < nvar; ++f) {
            qhl[f] = ek[f * EP + c];
            dql[f] = ek[(3 * nvar + f) * EP + c];
            qhr[f] = ek1[f * EP + c];
            dqr[f] = ek1[(3 * nvar + f) * EP + c];
          }
          face_flux<2>(qhl, dql, qhr, dqr, hp, fl);
          for (int f = 0; f < nvar; ++f) fzup[f * TP + r] = fl[f];
        } else if (r < TP + FX) {
          const int x = r - TP, fi = x % (tx + 1), fj = x / (tx + 1);
          const int er = (fi + 1) + ex * (fj + 1), el = er - 1;
          for (int f = 0; f < nvar; ++f) {
            qhl[f] = ek[f * EP + el];
            dql[f] = ek[(nvar + f) * EP + el];
            qhr[f] = ek[f * EP + er];
            dqr[f] = ek[(nvar + f) * EP + er];
          }
          face_flux<0>(qhl, dql, qhr, dqr, hp, fl);
          for (int f = 0; f < nvar; ++f) fx[f * FX + x] = fl[f];
        } else {
          const int y = r - TP - FX, fi = y % tx, fj = y / tx;
          const int er = (fi + 1) + ex * (fj + 1), el = er - ex;
          for (int f = 0; f < nvar; ++f) {
            qhl[f] = ek[f * EP + el];
            dql[f] = ek[(2 * nvar + f) * EP + el];
            qhr[f] = ek[f * EP + er];
            dqr[f] = ek[(2 * nvar + f) * EP + er];
          }
          face_flux<1>(qhl, dql, qhr, dqr, hp, fl);
          for (int f = 0; f < nvar; ++f) fy[f * FY + y] = fl[f];
        }
      }
    }
    RO_BLOCK_SYNC();

    // Conservative update of plane k = p - 2. The next writes of what it reads (fluxes, gidx
    // slot) come after at least one block sync.
    if (p >= 2) {
      const int k = p - 2;
      const double* fzlo = fz + zm_ring2(k) * nvar * TP;
      const double* fzhi = fz + zm_ring2(k + 1) * nvar * TP;
      const int* gk = gidx + zm_ring4(k) * TP;
      for (int c = tid; c < TP; c += nthreads) {
        const int ci = c % tx, cj = c / tx;
        const long long g = gk[c];
        const int ix = ci + (tx + 1) * cj, iy = ci + tx * cj;
        for (int f = 0; f < nvar; ++f)
          unew[f * fstride + g] = conservative_update(u[f * fstride + g], fx[f * FX + ix], fx[f * FX + ix + 1],
                                                      fy[f * FY + iy], fy[f * FY + iy + tx], fzlo[f * TP + c],
                                                      fzhi[f * TP + c], dtdx);
      }
    }
  }
}

}  // namespace ro
