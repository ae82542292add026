// ParaView output of ramses-oct (--vtk): the primitive fields (density, velocity, pressure) and the
// total energy density of every cell. A uniform mesh is written as VTK ImageData (.vti); any list
// of leaf cells (centre, edge, fields) as an UnstructuredGrid of hexahedra (.vtu, --vtk-cells),
// the form an AMR hierarchy's leaves take (each leaf at its own level's size). Over MPI ranks each
// rank writes its owned cells as one piece of a parallel .pvtu.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "copa/vtk.hpp"
#include "hydro/mesh.hpp"

namespace ro {

// Leaf cells with their fields, one entry per cell.
struct LeafCells {
  std::vector<std::array<double, 3>> centre;
  std::vector<double> edge;  // cubic cells
  std::vector<double> density, pressure, energy;
  std::vector<std::array<double, 3>> velocity;
  std::size_t size() const { return centre.size(); }
  void add(const std::array<double, 3>& c, double h, const double prim[5], double e);
};

// The owned cells of a mesh and their fields from the state u ([field][oct][8 cells], conserved).
LeafCells leaf_cells(const OctMesh& m, const std::vector<double>& u, double gamma);

// .vtu of hexahedra, 8 corner points per cell (not merged: cells of different levels meet at
// hanging nodes), with the fields as cell data.
void write_leaf_cells_vtk(const std::string& path, const LeafCells& cells, copa::vtk::Encoding encoding);

// Over MPI ranks: every rank writes its own cells (the same hexahedra) as its piece of a .pvtu
// (copa::vtk::write_pieces; nothing gathered). Every rank must call it.
void write_leaf_cells_pieces(const std::string& pvtu_path, const LeafCells& cells, copa::vtk::Encoding encoding);

// .vti of a uniform mesh (every cell at one level): cell data in x-fastest order.
void write_uniform_vtk(const std::string& path, const OctMesh& m, const std::vector<double>& u, double gamma,
                       copa::vtk::Encoding encoding);

}  // namespace ro
