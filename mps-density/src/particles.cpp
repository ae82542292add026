#include "particles.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "copa/errors.hpp"

namespace mps {

void Particles::reserve(std::size_t n) {
  for (auto* a : {&x, &y, &z, &u, &v, &w, &p}) a->reserve(n);
  type.reserve(n);
}

void Particles::add(double px, double py, double pz, ParticleType t) {
  x.push_back(px);
  y.push_back(py);
  z.push_back(pz);
  u.push_back(0);
  v.push_back(0);
  w.push_back(0);
  p.push_back(0);
  type.push_back(t);
}

std::size_t Particles::count(ParticleType t) const { return static_cast<std::size_t>(std::count(type.begin(), type.end(), t)); }

// Buckets per axis of make_grid: the extent in edges, rounded up, plus one bucket each side.
static double buckets_along(double lo, double hi, double edge) { return std::ceil((hi - lo) / edge) + 2; }

static double grid_buckets(int dim, double edge, const double lo[3], const double hi[3]) {
  return buckets_along(lo[0], hi[0], edge) * buckets_along(lo[1], hi[1], edge) * (dim == 2 ? 1.0 : buckets_along(lo[2], hi[2], edge));
}

Grid make_grid(int dim, double edge, const double lo[3], const double hi[3]) {
  if (grid_buckets(dim, edge, lo, hi) > 2.0e9) throw copa::InputError("bucket grid too large (more than 2^31 buckets)");
  Grid g;
  g.dim = dim;
  g.edge = edge;
  g.inv_edge = 1.0 / edge;
  g.x0 = lo[0] - edge;
  g.y0 = lo[1] - edge;
  g.z0 = dim == 2 ? 0.0 : lo[2] - edge;
  g.nx = static_cast<int>(buckets_along(lo[0], hi[0], edge));
  g.ny = static_cast<int>(buckets_along(lo[1], hi[1], edge));
  g.nz = dim == 2 ? 1 : static_cast<int>(buckets_along(lo[2], hi[2], edge));
  return g;
}

static void bounds(const Particles& ps, double lo[3], double hi[3]) {
  lo[0] = lo[1] = lo[2] = 1e300;
  hi[0] = hi[1] = hi[2] = -1e300;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const double c[3] = {ps.x[i], ps.y[i], ps.z[i]};
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], c[a]);
      hi[a] = std::max(hi[a], c[a]);
    }
  }
}

Problem lattice_problem(int dim, double re_over_l0, int m) {
  if (dim != 2 && dim != 3) throw copa::InputError("--dim must be 2 or 3");
  if (re_over_l0 <= 1.0 || re_over_l0 > 6.0) throw copa::InputError("--re must be in (1, 6] (r_e / l0)");
  Problem pr;
  pr.name = "lattice";
  pr.l0 = 1;
  pr.re = pr.re_lap = re_over_l0;
  pr.particles.dim = dim;
  const int mz = dim == 2 ? 1 : m;
  pr.particles.reserve(static_cast<std::size_t>(m) * m * mz);
  for (int k = 0; k < mz; ++k)
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i) pr.particles.add(i, j, dim == 2 ? 0.0 : k, fluid);
  double lo[3], hi[3];
  bounds(pr.particles, lo, hi);
  pr.grid = make_grid(dim, pr.re, lo, hi);
  return pr;
}

Problem random_cloud_problem(int dim, std::size_t n, double box, double re, unsigned seed) {
  Problem pr;
  pr.name = "random";
  pr.l0 = 1;
  pr.re = pr.re_lap = re;
  pr.particles.dim = dim;
  pr.particles.reserve(n);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uni(0.0, box);
  std::uniform_real_distribution<double> vel(-1.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double px = uni(rng), py = uni(rng), pz = dim == 2 ? 0.0 : uni(rng);
    const auto t = static_cast<ParticleType>(i % 7 == 0 ? wall : (i % 11 == 0 ? dummy : fluid));
    pr.particles.add(px, py, pz, t);
    pr.particles.u.back() = vel(rng);
    pr.particles.v.back() = vel(rng);
    pr.particles.w.back() = dim == 2 ? 0.0 : vel(rng);
    pr.particles.p.back() = 1000.0 * (1.0 + vel(rng));
  }
  double lo[3] = {0, 0, 0}, hi[3] = {box, box, dim == 2 ? 0.0 : box};
  pr.grid = make_grid(dim, re, lo, hi);
  return pr;
}

// Lattice points (i, j, k) of a tank whose inner region is [0, nx) x [0, inf) x [0, nz) in
// lattice units, with `layers` = 4 layers of walls below and on the sides: layer 1-2 wall,
// 3-4 dummy (Koshizuka & Oka: wall particles take part in the PPE, dummies only in n).
static int wall_layer(int i, int j, int k, int nx, int nz, int dim) {
  int layer = 0;
  if (i < 0) layer = std::max(layer, -i);
  if (i >= nx) layer = std::max(layer, i - nx + 1);
  if (j < 0) layer = std::max(layer, -j);
  if (dim == 3) {
    if (k < 0) layer = std::max(layer, -k);
    if (k >= nz) layer = std::max(layer, k - nz + 1);
  }
  return layer;
}

static void add_tank(Problem& pr, int dim, int nx, int nz, int wall_height, int fluid_x, int fluid_y, double l0) {
  Particles& ps = pr.particles;
  const int kz0 = dim == 2 ? 0 : -4, kz1 = dim == 2 ? 1 : nz + 4;
  for (int k = kz0; k < kz1; ++k)
    for (int j = -4; j < wall_height; ++j)
      for (int i = -4; i < nx + 4; ++i) {
        const int layer = wall_layer(i, j, k, nx, nz, dim);
        const double px = (i + 0.5) * l0, py = (j + 0.5) * l0, pz = dim == 2 ? 0.0 : (k + 0.5) * l0;
        if (layer > 0) {
          ps.add(px, py, pz, layer <= 2 ? wall : dummy);
        } else if (i < fluid_x && j < fluid_y) {
          ps.add(px, py, pz, fluid);
        }
      }
}

static void check_dambreak(int dim, double a, double l0) {
  if (dim != 2 && dim != 3) throw copa::InputError("--dim must be 2 or 3");
  if (!(l0 > 0) || !(a / l0 >= 4) || a / l0 > 2000) throw copa::InputError("--l0 must give between 4 and 2000 particles across the column width");
}

Problem dambreak_problem(int dim, double a, double l0, int depth_layers) {
  check_dambreak(dim, a, l0);
  Problem pr;
  pr.name = "dambreak";
  pr.l0 = l0;
  pr.re = 2.1 * l0;
  pr.re_lap = 3.1 * l0;
  pr.particles.dim = dim;
  const int m = static_cast<int>(std::lround(a / l0));
  const int nx = 5 * m, nz = dim == 2 ? 1 : std::max(depth_layers, 1);
  add_tank(pr, dim, nx, nz, 3 * m, m, 2 * m, l0);
  pr.column_width = m * l0;
  pr.left_wall_face = 0.0;
  const double lo[3] = {-4 * l0, -4 * l0, dim == 2 ? 0.0 : -4 * l0};
  const double hi[3] = {(nx + 4) * l0, 4.0 * m * l0, dim == 2 ? 0.0 : (nz + 4) * l0};
  pr.grid = make_grid(dim, pr.re_lap, lo, hi);
  return pr;
}

Problem still_water_problem(int width, int depth, double l0) {
  if (width < 4 || depth < 4) throw copa::InputError("still water: at least 4 x 4 fluid particles");
  Problem pr;
  pr.name = "still-water";
  pr.l0 = l0;
  pr.re = 2.1 * l0;
  pr.re_lap = 3.1 * l0;
  pr.particles.dim = 2;
  add_tank(pr, 2, width, 1, depth + 4, width, depth, l0);
  const double lo[3] = {-4 * l0, -4 * l0, 0.0};
  const double hi[3] = {(width + 4) * l0, (depth + 4) * l0, 0.0};
  pr.grid = make_grid(2, pr.re_lap, lo, hi);
  return pr;
}

// P-Flow's tank scaled to a target count: lattice extents and the fluid column m (README).
struct PflowLayout {
  int NX = 0, NZ = 0, nx = 0, nz = 0, m = 1;
  double particles = 0;
};

static PflowLayout pflow_layout(std::size_t target) {
  // P-Flow: bucket edge 40 cm / 70 = r_e = 2.1 l0, so the 40 cm tank is 147 l0 and 8 cm is 29 l0.
  const double s = std::max(1.0, std::cbrt(static_cast<double>(target) / 224910.0));
  PflowLayout t;
  t.NX = static_cast<int>(std::lround(147 * s));
  t.NZ = static_cast<int>(std::lround(29 * s));
  t.nx = t.NX - 8;  // inner region, the 4 wall layers are inside the tank
  t.nz = t.NZ - 8;
  // Fluid column m x 2m x nz, side walls up to m above the floor: pick m for the target count.
  auto total = [&](double m) {
    return 2.0 * m * m * t.nz + static_cast<double>(t.NX) * t.NZ * 4 +
           (static_cast<double>(t.NX) * t.NZ - double(t.nx) * t.nz) * m;
  };
  int& m = t.m;
  while (m + 1 <= t.nx && 2 * (m + 1) <= t.NX - 4 && total(m + 1) <= static_cast<double>(target)) ++m;
  if (m + 1 <= t.nx && std::fabs(total(m + 1) - target) < std::fabs(total(m) - target)) ++m;
  t.particles = total(m);
  return t;
}

Problem pflow_problem(std::size_t target) {
  const double edge = 0.4 / 70.0, l0 = edge / 2.1;
  const PflowLayout t = pflow_layout(target);
  const int NX = t.NX, NZ = t.NZ, nx = t.nx, nz = t.nz, m = t.m;
  Problem pr;
  pr.name = "pflow";
  pr.l0 = l0;
  pr.re = pr.re_lap = 2.1 * l0;
  pr.particles.dim = 3;
  pr.particles.reserve(static_cast<std::size_t>(t.particles) + 16);
  // Lattice indices are shifted by 4 so that the tank with its walls spans [0, NX l0).
  Particles& ps = pr.particles;
  for (int k = -4; k < nz + 4; ++k)
    for (int j = -4; j < m; ++j)
      for (int i = -4; i < nx + 4; ++i) {
        const int layer = wall_layer(i, j, k, nx, nz, 3);
        const double px = (i + 4.5) * l0, py = (j + 4.5) * l0, pz = (k + 4.5) * l0;
        if (layer > 0) ps.add(px, py, pz, layer <= 2 ? wall : dummy);
      }
  for (int k = 0; k < nz; ++k)
    for (int j = m; j < 2 * m; ++j)  // fluid above the side-wall height
      for (int i = 0; i < m; ++i) ps.add((i + 4.5) * l0, (j + 4.5) * l0, (k + 4.5) * l0, fluid);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i) ps.add((i + 4.5) * l0, (j + 4.5) * l0, (k + 4.5) * l0, fluid);
  Grid g;
  g.dim = 3;
  g.edge = edge;
  g.inv_edge = 1.0 / edge;
  auto cells = [&](int points) { return static_cast<int>(std::ceil(points * l0 / edge - 1e-9)); };
  g.nx = cells(NX);
  g.ny = cells(NX);
  g.nz = cells(NZ);
  pr.grid = g;
  pr.column_width = m * l0;
  pr.left_wall_face = 4 * l0;
  return pr;
}

ProblemSize lattice_size(int dim, double re_over_l0, int m) {
  const double lo[3] = {0, 0, 0}, hi[3] = {m - 1.0, m - 1.0, dim == 2 ? 0.0 : m - 1.0};
  return {std::pow(static_cast<double>(m), dim), grid_buckets(dim, re_over_l0, lo, hi)};
}

ProblemSize random_cloud_size(int dim, std::size_t n, double box, double re) {
  const double lo[3] = {0, 0, 0}, hi[3] = {box, box, dim == 2 ? 0.0 : box};
  return {static_cast<double>(n), grid_buckets(dim, re, lo, hi)};
}

ProblemSize dambreak_size(int dim, double a, double l0, int depth_layers) {
  check_dambreak(dim, a, l0);
  const double m = std::round(a / l0), nx = 5 * m, nz = dim == 2 ? 1.0 : std::max(depth_layers, 1);
  // add_tank: every point of the tank box outside the inner region is wall or dummy, plus the
  // m x 2m column (x nz layers in 3D).
  const double box = (nx + 8) * (3 * m + 4) * (dim == 2 ? 1.0 : nz + 8);
  const double particles = box - nx * 3 * m * nz + m * 2 * m * nz;
  const double lo[3] = {-4 * l0, -4 * l0, dim == 2 ? 0.0 : -4 * l0};
  const double hi[3] = {(nx + 4) * l0, 4.0 * m * l0, dim == 2 ? 0.0 : (nz + 4) * l0};
  return {particles, grid_buckets(dim, 3.1 * l0, lo, hi)};
}

ProblemSize pflow_size(std::size_t target) {
  const PflowLayout t = pflow_layout(target);
  const double edge = 0.4 / 70.0, l0 = edge / 2.1;
  auto cells = [&](int points) { return std::ceil(points * l0 / edge - 1e-9); };
  return {t.particles, cells(t.NX) * cells(t.NX) * cells(t.NZ)};
}

}  // namespace mps
