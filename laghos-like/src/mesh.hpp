// Cartesian meshes given by per-axis node coordinates (so box01_hex's uneven x nodes 0,1,3,5,7
// are expressible), uniform refinement, and the order-k Gauss-Lobatto (H1) node numbering of the
// structured grid. Boundary attribute c+1 = the walls normal to axis c (velocity component c = 0).
#pragma once
#include <array>
#include <string>
#include <vector>

namespace laghos {

struct CartesianMesh {
  int dim = 2;
  std::array<std::vector<double>, 3> nodes;  // per-axis vertex coordinates, ascending

  int cells(int axis) const { return static_cast<int>(nodes[axis].size()) - 1; }
  int num_elements() const;
  void refine();  // splits every interval at its midpoint (MFEM's uniform refinement of a box)
};

// The meshes of Laghos's verification table by name (square01_quad, cube01_hex,
// rectangle01_quad, box01_hex, square_gresho, rt2D); throws InputError naming --mesh otherwise.
CartesianMesh named_mesh(const std::string& name);
// Unit box with n[c] equal cells per axis (Laghos -nx/-ny/-nz on the default mesh).
CartesianMesh box_mesh(int dim, int nx, int ny, int nz);

}  // namespace laghos
