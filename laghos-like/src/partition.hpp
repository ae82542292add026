// Partition of the Cartesian mesh into one box of elements per MPI rank (Laghos/MFEM partition the
// mesh into element sets; a structured box keeps every rank's H1 numbering structured). The process
// grid is chosen like MPI_Dims_create (as balanced as possible, non-increasing from x), or given by
// --proc-grid; cells split as evenly as possible along each axis (the first cells % parts parts get
// one more), so any rank count with at least one cell per part works.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "mesh.hpp"

namespace laghos {

// Ranks per axis for `ranks` ranks in `dim` dimensions, like MPI_Dims_create: prime factors, the
// largest first, each onto the axis with the fewest ranks so far, sorted non-increasing.
std::array<int, 3> balanced_grid(int ranks, int dim);

// The process grid: `requested` (the --proc-grid values, empty = balanced_grid) checked against the
// rank count; throws InputError naming --proc-grid otherwise.
std::array<int, 3> choose_grid(int ranks, int dim, const std::vector<int>& requested);

struct CellBox {
  std::array<int, 3> lo{0, 0, 0}, hi{1, 1, 1};  // cells [lo, hi) per axis
  int cells(int c) const { return hi[c] - lo[c]; }
};

struct Partition {
  int dim = 2;
  std::array<int, 3> grid{1, 1, 1};
  std::array<int, 3> global_cells{1, 1, 1};
  std::array<std::vector<int>, 3> cut;  // per axis: part p holds cells [cut[p], cut[p+1])

  int ranks() const { return grid[0] * grid[1] * grid[2]; }
  // Rank r sits at (px, py, pz) with r = px + gx (py + gy pz).
  std::array<int, 3> coords(int rank) const;
  CellBox box(int rank) const;
  std::string describe() const;  // "2x2x1 ranks, 12x12x6 zones"
};

// Throws InputError naming --proc-grid (or the rank count) when an axis has fewer cells than parts.
Partition make_partition(const std::array<int, 3>& global_cells, int dim, const std::array<int, 3>& grid);

// The sub-mesh of `box`: the global vertex coordinates it spans, so that every element keeps its
// exact global coordinates.
CartesianMesh local_mesh(const CartesianMesh& global, const CellBox& box);

// The global number of each element of `rank`'s box, in the box's element order (both x-fastest:
// local i + nx (j + ny k) is global (lo+i) + NX ((lo+j) + NY (lo+k))).
std::vector<std::int64_t> global_element_ids(const Partition& partition, int rank);

}  // namespace laghos
