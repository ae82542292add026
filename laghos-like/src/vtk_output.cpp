#include "vtk_output.hpp"

#include <cmath>

namespace laghos {

namespace {

// det of the dim x dim Jacobian J[r][c].
double det(const double J[3][3], int dim) {
  if (dim == 2) return J[0][0] * J[1][1] - J[0][1] * J[1][0];
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

// Element values from the quadrature: rho = sum_q rho0DetJ0w / sum_q w_q det J(x)(q) (the mass is
// Lagrangian, fixed at t = 0), e = sum_q rho0DetJ0w e(q) / mass with e(q) from the Bernstein
// coefficients.
struct ElementValues {
  double density, energy, pressure;
};

ElementValues element_values(const Discretization& d, const double* X, const double* E, int el) {
  const int dim = d.dim, D = d.D1D, Q = d.Q1D, L = d.L1D;
  double mass = 0, volume = 0, internal = 0;
  for (int q = 0; q < d.nq; ++q) {
    const int qi[3] = {q % Q, (q / Q) % Q, q / (Q * Q)};
    double J[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    for (int l = 0; l < d.nd; ++l) {
      const int li[3] = {l % D, (l / D) % D, l / (D * D)};
      const int g = d.h1_map[static_cast<std::size_t>(el) * d.nd + l];
      for (int c = 0; c < dim; ++c) {
        double dphi = 1;  // d/dxi_c of the tensor basis function l at q
        for (int a = 0; a < dim; ++a) dphi *= (a == c ? d.G : d.B)[qi[a] * D + li[a]];
        for (int r = 0; r < dim; ++r) J[r][c] += X[r * d.nh1 + g] * dphi;
      }
    }
    double eq = 0;
    for (int j = 0; j < d.nl; ++j) {
      const int ji[3] = {j % L, (j / L) % L, j / (L * L)};
      double phi = 1;
      for (int a = 0; a < dim; ++a) phi *= d.Bl[qi[a] * L + ji[a]];
      eq += phi * E[static_cast<std::size_t>(el) * d.nl + j];
    }
    const double m = d.rho0DetJ0w[static_cast<std::size_t>(el) * d.nq + q];
    mass += m;
    internal += m * eq;
    volume += d.wq[q] * det(J, dim);
  }
  const double rho = mass / volume, e = internal / mass;
  return {rho, e, (d.gamma[el] - 1) * rho * e};
}

}  // namespace

void write_mesh_vtk(const std::string& path, const Discretization& d, const std::vector<double>& state,
                    copa::vtk::Encoding encoding, const std::vector<std::int64_t>& element_ids, bool pieces) {
  const int dim = d.dim, k = d.k, D = d.D1D;
  const std::size_t vs = d.h1_vsize();
  const double* X = state.data();
  const double* V = state.data() + vs;
  const double* E = state.data() + 2 * vs;
  copa::vtk::UnstructuredGrid g;
  g.points.assign(3 * static_cast<std::size_t>(d.nh1), 0.0);
  copa::vtk::Array velocity{"velocity", 3, std::vector<double>(3 * static_cast<std::size_t>(d.nh1), 0.0)};
  for (int n = 0; n < d.nh1; ++n)
    for (int c = 0; c < dim; ++c) {
      g.points[3 * n + c] = X[c * d.nh1 + n];
      velocity.values[3 * n + c] = V[c * d.nh1 + n];
    }
  g.point_data.push_back(std::move(velocity));

  const int sub = dim == 3 ? k * k * k : k * k;
  const std::size_t cells = static_cast<std::size_t>(d.NE) * sub;
  copa::vtk::Array id{"element", 1, {}}, rho{"density", 1, {}}, sie{"specific_internal_energy", 1, {}},
      p{"pressure", 1, {}}, coef{"e_bernstein", d.nl, {}};
  for (auto* a : {&id, &rho, &sie, &p}) a->values.reserve(cells);
  coef.values.reserve(cells * d.nl);
  // Sub-cell corners in VTK order (quad: counter-clockwise; hexahedron: bottom face, then top).
  static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  const int corners = dim == 3 ? 8 : 4;
  std::vector<std::int64_t> ids(corners);
  for (int el = 0; el < d.NE; ++el) {
    const ElementValues ev = element_values(d, X, E, el);
    for (int s = 0; s < sub; ++s) {
      const int si[3] = {s % k, (s / k) % k, dim == 3 ? s / (k * k) : 0};
      for (int n = 0; n < corners; ++n) {
        const int l = (si[0] + corner[n][0]) + D * ((si[1] + corner[n][1]) + (dim == 3 ? D * (si[2] + corner[n][2]) : 0));
        ids[n] = d.h1_map[static_cast<std::size_t>(el) * d.nd + l];
      }
      g.add_cell(dim == 3 ? copa::vtk::hexahedron : copa::vtk::quad, ids);
      id.values.push_back(element_ids.empty() ? el : static_cast<double>(element_ids[el]));
      rho.values.push_back(ev.density);
      sie.values.push_back(ev.energy);
      p.values.push_back(ev.pressure);
      coef.values.insert(coef.values.end(), E + static_cast<std::size_t>(el) * d.nl, E + static_cast<std::size_t>(el + 1) * d.nl);
    }
  }
  for (auto* a : {&id, &rho, &sie, &p, &coef}) g.cell_data.push_back(std::move(*a));
  if (pieces)
    copa::vtk::write_pieces(path, g, encoding);
  else
    copa::vtk::write(path, g, encoding);
}

}  // namespace laghos
