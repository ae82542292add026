#include "mesh.hpp"

#include "copa/errors.hpp"

namespace laghos {

int CartesianMesh::num_elements() const {
  int n = 1;
  for (int c = 0; c < dim; ++c) n *= cells(c);
  return n;
}

void CartesianMesh::refine() {
  for (int c = 0; c < dim; ++c) {
    std::vector<double> fine;
    const auto& v = nodes[c];
    for (std::size_t i = 0; i + 1 < v.size(); ++i) {
      fine.push_back(v[i]);
      fine.push_back(0.5 * (v[i] + v[i + 1]));
    }
    fine.push_back(v.back());
    nodes[c] = fine;
  }
}

namespace {
std::vector<double> uniform(double a, double b, int n) {
  std::vector<double> v(n + 1);
  for (int i = 0; i <= n; ++i) v[i] = a + (b - a) * i / n;
  return v;
}
}  // namespace

CartesianMesh named_mesh(const std::string& name) {
  CartesianMesh m;
  if (name == "square01_quad") {
    m.dim = 2;
    m.nodes = {uniform(0, 1, 2), uniform(0, 1, 2), std::vector<double>{}};
  } else if (name == "cube01_hex") {
    m.dim = 3;
    m.nodes = {uniform(0, 1, 2), uniform(0, 1, 2), uniform(0, 1, 2)};
  } else if (name == "rectangle01_quad") {
    m.dim = 2;
    m.nodes = {uniform(0, 7, 7), uniform(0, 3, 3), std::vector<double>{}};
  } else if (name == "box01_hex") {
    m.dim = 3;
    m.nodes = {std::vector<double>{0, 1, 3, 5, 7}, std::vector<double>{0, 1.5, 3}, std::vector<double>{0, 1.5, 3}};
  } else if (name == "square_gresho") {
    m.dim = 2;
    m.nodes = {uniform(-0.5, 0.5, 2), uniform(-0.5, 0.5, 2), std::vector<double>{}};
  } else if (name == "rt2D") {
    m.dim = 2;
    m.nodes = {uniform(0, 0.5, 1), uniform(-1, 1, 4), std::vector<double>{}};
  } else {
    throw copa::InputError("--mesh: unknown mesh '" + name +
                           "' (square01_quad, cube01_hex, rectangle01_quad, box01_hex, square_gresho, rt2D, box)");
  }
  return m;
}

CartesianMesh box_mesh(int dim, int nx, int ny, int nz) {
  CartesianMesh m;
  m.dim = dim;
  m.nodes = {uniform(0, 1, nx), uniform(0, 1, ny), dim == 3 ? uniform(0, 1, nz) : std::vector<double>{}};
  return m;
}

}  // namespace laghos
