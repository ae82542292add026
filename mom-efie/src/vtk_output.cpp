#include "vtk_output.hpp"

#include <cmath>

namespace efie {

namespace {

// Cell arrays <name>_real, <name>_imag (3 components) and <name>_abs of the current whose RWG
// coefficients start at x[offset]. Triangle::coef[i] is +-l of the RWG on the edge opposite
// vertex i (0 on a boundary edge).
void add_current(copa::vtk::UnstructuredGrid& g, const Problem& p, const std::vector<complex>& x, long offset,
                 const std::string& name) {
  const std::size_t nt = p.triangles.size();
  copa::vtk::Array re{name + "_real", 3, std::vector<double>(3 * nt)}, im{name + "_imag", 3, std::vector<double>(3 * nt)},
      mag{name + "_abs", 1, std::vector<double>(nt)};
  for (std::size_t t = 0; t < nt; ++t) {
    const Triangle& tr = p.triangles[t];
    const double area = 0.5 * norm(cross(tr.v[1] - tr.v[0], tr.v[2] - tr.v[0]));
    complex j[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < 3; ++i) {
      if (tr.basis[i] < 0) continue;
      const complex c = x[offset + tr.basis[i]] * (tr.coef[i] / (2 * area));
      const Vec3 a = tr.centroid - tr.v[i];
      j[0] += c * a.x;
      j[1] += c * a.y;
      j[2] += c * a.z;
    }
    for (int d = 0; d < 3; ++d) {
      re.values[3 * t + d] = j[d].real();
      im.values[3 * t + d] = j[d].imag();
    }
    mag.values[t] = std::sqrt(std::norm(j[0]) + std::norm(j[1]) + std::norm(j[2]));
  }
  g.cell_data.push_back(std::move(re));
  g.cell_data.push_back(std::move(im));
  g.cell_data.push_back(std::move(mag));
}

}  // namespace

void write_currents_vtk(const std::string& path, const Problem& p, const std::vector<complex>& x, bool magnetic,
                        copa::vtk::Encoding encoding) {
  copa::vtk::UnstructuredGrid g;
  g.points.reserve(3 * p.mesh.vertices.size());
  for (const Vec3& v : p.mesh.vertices) g.points.insert(g.points.end(), {v.x, v.y, v.z});
  for (const auto& t : p.mesh.triangles) g.add_cell(copa::vtk::triangle, {t[0], t[1], t[2]});
  add_current(g, p, x, 0, "J");
  if (magnetic) add_current(g, p, x, p.unknowns(), "M");
  copa::vtk::write(path, g, encoding);
}

}  // namespace efie
