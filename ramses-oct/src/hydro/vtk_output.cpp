#include "hydro/vtk_output.hpp"

#include "hydro/hydro_math.hpp"

namespace ro {

namespace {

void primitive(const OctMesh& m, const std::vector<double>& u, double gamma, std::int64_t cell, double q[nvar], double& e) {
  const std::int64_t n = m.ncell();
  double uc[nvar];
  for (int f = 0; f < nvar; ++f) uc[f] = u[f * n + cell];
  cons_to_prim(uc, gamma, q);
  e = uc[4];
}

}  // namespace

void LeafCells::add(const std::array<double, 3>& c, double h, const double prim[5], double e) {
  centre.push_back(c);
  edge.push_back(h);
  density.push_back(prim[0]);
  velocity.push_back({prim[1], prim[2], prim[3]});
  pressure.push_back(prim[4]);
  energy.push_back(e);
}

LeafCells leaf_cells(const OctMesh& m, const std::vector<double>& u, double gamma) {
  LeafCells cells;
  for (std::int64_t o = 0; o < m.nowned; ++o)
    for (int c = 0; c < 8; ++c) {
      const auto ic = m.cell_coords(o, c);
      double q[nvar], e;
      primitive(m, u, gamma, o * 8 + c, q, e);
      cells.add({m.cell_center(0, ic[0]), m.cell_center(1, ic[1]), m.cell_center(2, ic[2])}, m.dx, q, e);
    }
  return cells;
}

namespace {

// The fields of the cells in the order of `index` (cell k of the output is cells[index[k]]).
void add_fields(std::vector<copa::vtk::Array>& out, const LeafCells& cells, const std::vector<std::size_t>& index) {
  const std::size_t n = index.size();
  copa::vtk::Array rho{"density", 1, std::vector<double>(n)}, vel{"velocity", 3, std::vector<double>(3 * n)},
      p{"pressure", 1, std::vector<double>(n)}, e{"energy_density", 1, std::vector<double>(n)};
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = index[k];
    rho.values[k] = cells.density[i];
    for (int d = 0; d < 3; ++d) vel.values[3 * k + d] = cells.velocity[i][d];
    p.values[k] = cells.pressure[i];
    e.values[k] = cells.energy[i];
  }
  out.push_back(std::move(rho));
  out.push_back(std::move(vel));
  out.push_back(std::move(p));
  out.push_back(std::move(e));
}

}  // namespace

namespace {

// The cells as hexahedra with their fields as cell data.
copa::vtk::UnstructuredGrid hexahedra(const LeafCells& cells) {
  copa::vtk::UnstructuredGrid g;
  const std::size_t n = cells.size();
  g.points.reserve(24 * n);
  std::vector<std::size_t> index(n);
  for (std::size_t i = 0; i < n; ++i) {
    index[i] = i;
    const double h = 0.5 * cells.edge[i];
    // VTK_HEXAHEDRON corners: the bottom face counter-clockwise, then the top face.
    static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    std::vector<std::int64_t> ids(8);
    for (int k = 0; k < 8; ++k) {
      ids[k] = static_cast<std::int64_t>(g.point_count());
      for (int d = 0; d < 3; ++d) g.points.push_back(cells.centre[i][d] + (corner[k][d] ? h : -h));
    }
    g.add_cell(copa::vtk::hexahedron, ids);
  }
  add_fields(g.cell_data, cells, index);
  return g;
}

}  // namespace

void write_leaf_cells_vtk(const std::string& path, const LeafCells& cells, copa::vtk::Encoding encoding) {
  copa::vtk::write(path, hexahedra(cells), encoding);
}

void write_leaf_cells_pieces(const std::string& pvtu_path, const LeafCells& cells, copa::vtk::Encoding encoding) {
  copa::vtk::write_pieces(pvtu_path, hexahedra(cells), encoding);
}

void write_uniform_vtk(const std::string& path, const OctMesh& m, const std::vector<double>& u, double gamma,
                       copa::vtk::Encoding encoding) {
  const LeafCells cells = leaf_cells(m, u, gamma);
  copa::vtk::ImageData g;
  g.cells = m.cells;
  g.spacing = {m.dx, m.dx, m.dx};
  // Morton order to the image's x-fastest order.
  std::vector<std::size_t> index(cells.size());
  std::size_t k = 0;
  for (std::int64_t o = 0; o < m.nowned; ++o)
    for (int c = 0; c < 8; ++c, ++k) {
      const auto ic = m.cell_coords(o, c);
      index[ic[0] + std::size_t(m.cells[0]) * (ic[1] + std::size_t(m.cells[1]) * ic[2])] = k;
    }
  add_fields(g.cell_data, cells, index);
  copa::vtk::write(path, g, encoding);
}

}  // namespace ro
