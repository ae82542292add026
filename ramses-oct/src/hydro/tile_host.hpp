// The host form of one tile update (B^3 octs + ghost layer, S = 2B + 4 cells per side), used by
// the serial oracle (B = 1, the 6^3 subgrid of RAMSES's godfine1) and the OpenMP variant (B = 2,
// 8^3, cache-blocked, SIMD over the contiguous x direction). Phases as in umuscl.f90:
//   1 gather the tile and convert to primitives q             (S^3 cells)
//   2 slopes dq (3 x 5) and half-step predicted qh            ((2B)^3 + 6 (2B)^2 cells)
//   3 one Riemann solve per face                              (3 (2B+1)(2B)^2 faces)
//   4 conservative update of the (2B)^3 interior cells.
#pragma once
#include <cstdint>

#include "hydro/hydro_math.hpp"
#include "hydro/tile_geometry.hpp"

namespace ro {

template <int B>
struct HostTile {
  static constexpr int T = 2 * B;
  static constexpr int S = T + 4;
  static constexpr int S3 = S * S * S;
  static constexpr int idx(int i, int j, int k) { return i + S * (j + S * k); }

  double q[nvar][S3];
  double qh[nvar][S3];
  double dq[3][nvar][S3];
  double flux[3][nvar][S3];  // flux through the low face of a cell along each axis

  void gather(const MeshView& m, const double* u, std::int64_t base) {
    const TileEdges e = tile_edges(m, base, B);
    std::int32_t slot_oct[B + 2][B + 2][B + 2];
    for (int sz = 0; sz < B + 2; ++sz)
      for (int sy = 0; sy < B + 2; ++sy)
        for (int sx = 0; sx < B + 2; ++sx) slot_oct[sz][sy][sx] = tile_slot_oct(m, base, sx, sy, sz);
    const std::int64_t fstride = m.noct * 8;
    for (int k = 0; k < S; ++k)
      for (int j = 0; j < S; ++j)
        for (int i = 0; i < S; ++i) {
          int s[3], l[3];
          bool flip[3];
          tile_axis_source(i, B, e.lo[0], e.hi[0], s[0], l[0], flip[0]);
          tile_axis_source(j, B, e.lo[1], e.hi[1], s[1], l[1], flip[1]);
          tile_axis_source(k, B, e.lo[2], e.hi[2], s[2], l[2], flip[2]);
          const std::int64_t cell = std::int64_t(slot_oct[s[2]][s[1]][s[0]]) * 8 + l[0] + 2 * l[1] + 4 * l[2];
          double uc[nvar];
          for (int f = 0; f < nvar; ++f) uc[f] = u[f * fstride + cell];
          for (int a = 0; a < 3; ++a)
            if (flip[a]) uc[1 + a] = -uc[1 + a];
          double qc[nvar];
          cons_to_prim(uc, hp_gamma, qc);
          for (int f = 0; f < nvar; ++f) q[f][idx(i, j, k)] = qc[f];
        }
  }

  void predict(double dtdx) {
    const int step[3] = {1, S, S * S};
    for (int m = 0; m < predictor_cells(T); ++m) {
      int i, j, k;
      predictor_cell(m, T, i, j, k);
      const int c = idx(i + 1, j + 1, k + 1);
      double qc[nvar], d[3][nvar], out[nvar];
      for (int a = 0; a < 3; ++a)
        for (int f = 0; f < nvar; ++f)
          d[a][f] = limited_slope(q[f][c - step[a]], q[f][c], q[f][c + step[a]], hp_slope);
      for (int f = 0; f < nvar; ++f) qc[f] = q[f][c];
      predict_half_step(qc, d[0], d[1], d[2], dtdx, hp_gamma, out);
      for (int f = 0; f < nvar; ++f) {
        qh[f][c] = out[f];
        for (int a = 0; a < 3; ++a) dq[a][f][c] = d[a][f];
      }
    }
  }

  // Faces normal to axis A (a template parameter: the permutations fold away).
  template <int A>
  void fluxes_along(const HydroParams& hp) {
    constexpr int stride = A == 0 ? 1 : (A == 1 ? S : S * S);
    for (int k = 2; k < 2 + T + (A == 2); ++k)
      for (int j = 2; j < 2 + T + (A == 1); ++j)
#pragma omp simd
        for (int i = 2; i < 2 + T + (A == 0); ++i) {
          const int c = idx(i, j, k), cl = c - stride;
          double qhl[nvar], dql[nvar], qhr[nvar], dqr[nvar], fl[nvar];
          for (int f = 0; f < nvar; ++f) {
            qhl[f] = qh[f][cl];
            dql[f] = dq[A][f][cl];
            qhr[f] = qh[f][c];
            dqr[f] = dq[A][f][c];
          }
          face_flux<A>(qhl, dql, qhr, dqr, hp, fl);
          for (int f = 0; f < nvar; ++f) flux[A][f][c] = fl[f];
        }
  }

  void fluxes(const HydroParams& hp) {
    fluxes_along<0>(hp);
    fluxes_along<1>(hp);
    fluxes_along<2>(hp);
  }

  void update(const MeshView& m, const double* u, double* unew, std::int64_t base, double dtdx) {
    const std::int64_t fstride = m.noct * 8;
    for (int k8 = 0; k8 < B * B * B; ++k8) {
      int px, py, pz;
      interior_oct_position(k8, px, py, pz);
      for (int cell = 0; cell < 8; ++cell) {
        const int i = 2 + 2 * px + (cell & 1), j = 2 + 2 * py + ((cell >> 1) & 1), k = 2 + 2 * pz + (cell >> 2);
        const int c = idx(i, j, k);
        const std::int64_t g = (base + k8) * 8 + cell;
        for (int f = 0; f < nvar; ++f)
          unew[f * fstride + g] =
              conservative_update(u[f * fstride + g], flux[0][f][c], flux[0][f][c + 1], flux[1][f][c],
                                  flux[1][f][c + S], flux[2][f][c], flux[2][f][c + S * S], dtdx);
      }
    }
  }

  void advance(const MeshView& m, const HydroParams& hp, const double* u, double* unew, std::int64_t base,
               double dtdx) {
    hp_gamma = hp.gamma;
    hp_slope = hp.slope_type;
    gather(m, u, base);
    predict(dtdx);
    fluxes(hp);
    update(m, u, unew, base, dtdx);
  }

  double hp_gamma = 1.4;
  int hp_slope = 1;
};

}  // namespace ro
