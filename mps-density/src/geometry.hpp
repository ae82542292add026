// Particle types, the Koshizuka & Oka weight and the bucket grid: small functions shared by the
// host strategies and the GPU kernels (host-device when compiled by nvcc/hipcc).
#pragma once
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define MPS_HD __host__ __device__ inline
#else
#define MPS_HD inline
#endif

namespace mps {

enum ParticleType : std::uint8_t { fluid = 0, wall = 1, dummy = 2 };

// w(r) = r_e / r - 1 for 0 < r < r_e (Koshizuka & Oka 1996), from r^2 to save the sqrt outside.
MPS_HD double weight_from_r2(double r2, double re) { return re / sqrt(r2) - 1.0; }
MPS_HD float weight_from_r2f(float r2, float re) { return re * (1.0f / sqrtf(r2)) - 1.0f; }

// Buckets of edge `edge` (>= the largest radius in use) over a box starting at (x0,y0,z0);
// x is the fastest index, so the three buckets cx-1..cx+1 of one (cy,cz) row are contiguous
// in a bucket-sorted particle order (9 contiguous ranges in 3D, 3 in 2D).
struct Grid {
  double x0 = 0, y0 = 0, z0 = 0;
  double edge = 1, inv_edge = 1;
  int nx = 1, ny = 1, nz = 1;
  int dim = 3;
  MPS_HD long long cells() const { return static_cast<long long>(nx) * ny * nz; }
  MPS_HD int clampi(int c, int n) const { return c < 0 ? 0 : (c >= n ? n - 1 : c); }
  MPS_HD int cx(double x) const { return clampi(static_cast<int>(floor((x - x0) * inv_edge)), nx); }
  MPS_HD int cy(double y) const { return clampi(static_cast<int>(floor((y - y0) * inv_edge)), ny); }
  MPS_HD int cz(double z) const { return dim == 2 ? 0 : clampi(static_cast<int>(floor((z - z0) * inv_edge)), nz); }
  MPS_HD int cell(int ix, int iy, int iz) const { return (iz * ny + iy) * nx + ix; }
  MPS_HD int cell_of(double x, double y, double z) const { return cell(cx(x), cy(y), cz(z)); }
  MPS_HD bool inside(double x, double y, double z) const {
    const double ex = x0 + nx * edge, ey = y0 + ny * edge, ez = z0 + nz * edge;
    return x >= x0 && x < ex && y >= y0 && y < ey && (dim == 2 || (z >= z0 && z < ez));
  }
};

// The same box with buckets of a larger edge (verlet lists need edge >= r_max + skin).
inline Grid widen(const Grid& g, double edge) {
  if (edge <= g.edge) return g;
  Grid w = g;
  w.edge = edge;
  w.inv_edge = 1.0 / edge;
  w.nx = static_cast<int>(std::ceil(g.nx * g.edge / edge));
  w.ny = static_cast<int>(std::ceil(g.ny * g.edge / edge));
  w.nz = g.dim == 2 ? 1 : static_cast<int>(std::ceil(g.nz * g.edge / edge));
  return w;
}

// The same box with buckets of edge g.edge / d (d x finer in every direction): the fine-rows
// strategies scan, per target, only the parts of the rows that can hold a neighbour.
inline Grid refine(const Grid& g, int d) {
  Grid f = g;
  f.edge = g.edge / d;
  f.inv_edge = 1.0 / f.edge;
  f.nx = g.nx * d;
  f.ny = g.ny * d;
  f.nz = g.dim == 2 ? 1 : g.nz * d;
  return f;
}

}  // namespace mps
