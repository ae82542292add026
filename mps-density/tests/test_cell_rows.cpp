// The pruned rows of fine-lean-cellrows (for_each_pruned_row_cell: chosen in FP32, in bucket
// edges relative to the target's bucket) against the brute force and the FP64 rows of fine-rows:
// every neighbour within the reach lies in exactly one scanned range, and the FP32 margin adds
// next to no candidates. The GPU kernel calls the same host-device walk (gpu tests: the kernel's
// densities against the brute force in test_strategies and gpu-pflow-fine-lean-cellrows).
#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "buckets.hpp"
#include "copa/testing.hpp"
#include "kernels.hpp"
#include "neighbour_loops.hpp"
#include "particles.hpp"

namespace {

struct Walked {
  double candidates = 0, neighbours = 0, missed = 0, twice = 0;
};

// The problem's particles in the buckets of its fine grid (host, stable order).
struct FineBuckets {
  mps::Grid g;
  std::vector<int> start, order, cell;
  explicit FineBuckets(const mps::Problem& pr) : g(mps::refine(pr.grid, mps::fine_divisions)) {
    const auto& ps = pr.particles;
    mps::build_buckets(g, ps.x.data(), ps.y.data(), ps.z.data(), static_cast<int>(ps.size()), false, start, order, cell);
  }
};

// Targets i = 0, stride, 2 stride, ... of the problem on its fine grid with the given reach.
Walked walk_cell_rows(const mps::Problem& pr, double reach, int stride) {
  const FineBuckets fb(pr);
  const mps::Grid& g = fb.g;
  const std::vector<int>& start = fb.start;
  const std::vector<int>& order = fb.order;
  const auto& ps = pr.particles;
  const int n = static_cast<int>(ps.size());
  Walked w;
  std::vector<int> seen(n, 0);
  for (int i = 0; i < n; i += stride) {
    std::vector<int> visited;
    mps::for_each_pruned_row_cell(g, start.data(), ps.x[i], ps.y[i], ps.z[i], reach, [&](int k0, int k1, int, int) {
      for (int k = k0; k < k1; ++k) {
        w.twice += seen[order[k]]++ > 0;
        visited.push_back(order[k]);
      }
    });
    w.candidates += static_cast<double>(visited.size());
    for (int j = 0; j < n; ++j) {
      const double dx = ps.x[j] - ps.x[i], dy = ps.y[j] - ps.y[i], dz = ps.z[j] - ps.z[i];
      if (j == i || dx * dx + dy * dy + dz * dz >= reach * reach) continue;
      w.neighbours += 1;
      w.missed += seen[j] == 0;
    }
    for (int j : visited) seen[j] = 0;
  }
  return w;
}

double fp64_row_candidates(const mps::Problem& pr, double reach, int stride) {
  const FineBuckets fb(pr);
  const auto& ps = pr.particles;
  const int n = static_cast<int>(ps.size());
  double c = 0;
  for (int i = 0; i < n; i += stride)
    mps::for_each_pruned_row(fb.g, fb.start.data(), ps.x[i], ps.y[i], ps.z[i], reach,
                             [&](int k0, int k1, int, int) { c += k1 - k0; });
  return c;
}

}  // namespace

// Random clouds (2D, 3D), lattices whose points lie on bucket bounds (r_e = 4: fine edge 2 l0)
// and next to them (r_e = 2.1), at the grid's full reach (D = 2 edges) and a smaller one.
TEST(CellRows, every_neighbour_is_in_exactly_one_scanned_range) {
  std::vector<mps::Problem> problems;
  problems.push_back(mps::random_cloud_problem(3, 4000, 15.0, 3.1, 7u));
  problems.push_back(mps::random_cloud_problem(2, 3000, 50.0, 3.1, 7u));
  problems.push_back(mps::lattice_problem(3, 4.0, 14));
  problems.push_back(mps::lattice_problem(3, 2.1, 14));
  problems.push_back(mps::lattice_problem(2, 4.0, 30));
  for (const auto& pr : problems)
    for (double reach : {pr.grid.edge, 0.8 * pr.grid.edge}) {
      const Walked w = walk_cell_rows(pr, reach, 1);
      EXPECT_TRUE(w.neighbours > 0);
      EXPECT_TRUE(w.missed == 0) << pr.name << " reach " << reach << ": " << w.missed << " neighbours missed";
      EXPECT_TRUE(w.twice == 0);
    }
}

// P-Flow's tank (strided targets): the same holds, and the FP32 rows scan at most 0.5% more
// candidates than the FP64 rows of fine-rows (the 1e-4-edge margin adds a bucket only where a
// bucket bound falls that close to a range end).
TEST(CellRows, tank_rows_hold_every_neighbour_and_as_many_candidates_as_fp64_rows) {
  const auto pr = mps::pflow_problem(224910);
  const int stride = 997;
  const Walked w = walk_cell_rows(pr, pr.re, stride);
  const double fp64 = fp64_row_candidates(pr, pr.re, stride);
  EXPECT_TRUE(w.neighbours > 0);
  EXPECT_TRUE(w.missed == 0) << w.missed << " neighbours missed";
  EXPECT_TRUE(w.twice == 0);
  EXPECT_TRUE(w.candidates <= 1.005 * fp64) << w.candidates << " candidates against " << fp64;
  EXPECT_TRUE(w.candidates >= 0.995 * fp64) << w.candidates << " candidates against " << fp64;
}

// The walk over bucket indices (start[c] = c, so a scanned range is a range of buckets): points at
// 0.999999 of the reach from targets anywhere in their bucket, on its bounds included, in 20000
// random directions and along the axes and diagonals, must all lie in a scanned bucket. With the
// margin set to -3e-3 edge (ranges that short) some are missed (checked when this was written).
TEST(CellRows, points_just_inside_the_reach_lie_in_scanned_buckets) {
  for (int dim : {2, 3}) {
    mps::Grid g;
    g.edge = g.inv_edge = 1.0;
    g.nx = g.ny = 12;
    g.nz = dim == 2 ? 1 : 12;
    g.dim = dim;
    std::vector<int> start(g.cells() + 1);
    for (std::size_t c = 0; c < start.size(); ++c) start[c] = static_cast<int>(c);
    const double reach = 2.0;
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<std::array<double, 3>> directions;
    for (int k = 0; k < 20000; ++k) {
      const double a = normal(rng), b = normal(rng), c = dim == 2 ? 0.0 : normal(rng);
      const double len = std::sqrt(a * a + b * b + c * c);
      directions.push_back({a / len, b / len, c / len});
    }
    for (int a = -1; a <= 1; ++a)
      for (int b = -1; b <= 1; ++b)
        for (int c = (dim == 2 ? 0 : -1); c <= (dim == 2 ? 0 : 1); ++c) {
          const double len = std::sqrt(double(a * a + b * b + c * c));
          if (len > 0) directions.push_back({a / len, b / len, c / len});
        }
    const double offsets[] = {0.0, 1e-7, 0.25, 0.5, 1.0 - 1e-7, std::nextafter(1.0, 0.0)};
    double probes = 0, missed = 0;
    for (int t = 0; t < 60; ++t) {
      const double fx = t < 36 ? offsets[t % 6] : unit(rng), fy = t < 36 ? offsets[t / 6] : unit(rng);
      const double fz = dim == 2 ? 0.0 : (t < 36 ? offsets[(t * 5) % 6] : unit(rng));
      const double xi = 5 + fx, yi = 5 + fy, zi = dim == 2 ? 0.0 : 5 + fz;
      std::vector<std::array<int, 2>> ranges;
      mps::for_each_pruned_row_cell(g, start.data(), xi, yi, zi, reach,
                                    [&](int k0, int k1, int, int) { ranges.push_back({k0, k1}); });
      for (const auto& d : directions) {
        const double r = reach * (1.0 - 1e-6);
        const long long c = g.cell_of(xi + r * d[0], yi + r * d[1], zi + r * d[2]);
        bool found = false;
        for (const auto& rg : ranges) found = found || (c >= rg[0] && c < rg[1]);
        probes += 1;
        missed += !found;
      }
    }
    EXPECT_TRUE(probes > 0);
    EXPECT_TRUE(missed == 0) << dim << "D: " << missed << " of " << probes << " points within the reach not scanned";
  }
}
