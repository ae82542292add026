// Particles as a structure of arrays, the problem set-ups (lattice, random cloud, dam break,
// P-Flow tank) and the bucket grid that covers each of them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "geometry.hpp"

namespace mps {

struct Particles {
  int dim = 3;
  std::vector<double> x, y, z, u, v, w, p;
  std::vector<std::uint8_t> type;
  std::size_t size() const { return x.size(); }
  void reserve(std::size_t n);
  void add(double px, double py, double pz, ParticleType t);
  std::size_t count(ParticleType t) const;
};

// A set-up: particles, spacing, radii and the bucket grid (edge = largest radius in use).
struct Problem {
  std::string name;
  Particles particles;
  Grid grid;
  double l0 = 1;
  double re = 2.1;      // number density and gradient radius
  double re_lap = 2.1;  // Laplacian radius (>= re)
  double column_width = 0;  // dam break: a (the front is measured from the left wall face)
  double left_wall_face = 0;
  // Over MPI ranks: the last `ghosts` particles are another rank's copies (dist/): neighbour sums
  // read them as sources but evaluate only the particles before them (the owned ones) as targets.
  std::size_t ghosts = 0;
};

// Grid of buckets of edge `edge` covering [lo, hi] (plus one bucket of margin on every side).
// Throws InputError when the grid has more buckets than int bucket indices can address.
Grid make_grid(int dim, double edge, const double lo[3], const double hi[3]);

// The size of a set-up, computed without building it (in doubles, so that an absurd request is
// measured, not overflowed): the memory estimate refuses a run before anything is allocated.
struct ProblemSize {
  double particles = 0;
  double buckets = 0;  // of the set-up's own grid (edge = largest radius)
};
ProblemSize lattice_size(int dim, double re_over_l0, int m);
ProblemSize random_cloud_size(int dim, std::size_t n, double box, double re);
ProblemSize dambreak_size(int dim, double a, double l0, int depth_layers);
ProblemSize pflow_size(std::size_t target);

// Perfect lattice of m^dim particles, spacing 1 (so radii are in units of l0), fluid.
Problem lattice_problem(int dim, double re_over_l0, int m);
// Uniform random cloud of n particles in a cube of side `box` (radius re), fixed seed.
Problem random_cloud_problem(int dim, std::size_t n, double box, double re, unsigned seed);
// Water column a x 2a (x, y; y up) in a tank 5a long with 2 wall + 2 dummy layers; `depth_layers`
// particle layers in z for a thin 3D slab (walls in z too), 0 for 2D.
Problem dambreak_problem(int dim, double a, double l0, int depth_layers);
// Still water at rest: `width` x `depth` fluid particles (x, y) filling a tank `width` wide whose
// side walls rise `depth` + 4 layers, with the dam break's walls (2 wall + 2 dummy layers), radii
// (2.1 l0, 3.1 l0) and grid; 2D. The hydrostatic reference of the simulation mode.
Problem still_water_problem(int width, int depth, double l0);
// P-Flow's tank (40 x 40 x 8 cm, 70 x 70 x 14 buckets of edge r_e = 2.1 l0) with about
// `target` particles: lengths scaled by (target / 224910)^(1/3) at the same l0 when larger.
Problem pflow_problem(std::size_t target);

// Bytes of the particle arrays per particle on the host (x,y,z,u,v,w,p,type).
constexpr std::size_t host_bytes_per_particle = 7 * sizeof(double) + 1;

}  // namespace mps
