// ParaView output of laghos-like (--vtk): the deformed high-order mesh as a VTK UnstructuredGrid
// (.vtu). Each order-k element is subdivided into k^dim linear sub-cells (hexahedra in 3D, quads in
// 2D) between neighbouring Gauss-Lobatto nodes, so the points are exactly the H1 nodes (shared
// between elements) with their velocity as point data; the curved faces show as k facets per edge.
// Cell data, the same on every sub-cell of an element: the element id, its density (mass / current
// volume, both from the quadrature), its mass-weighted mean specific internal energy, the pressure
// (gamma - 1) rho e of those means, and its raw Bernstein energy coefficients.
#pragma once
#include <string>
#include <vector>

#include "copa/vtk.hpp"
#include "discretization.hpp"

namespace laghos {

// `state` is (x, v, e) on the host, as RunResult::state.
void write_mesh_vtk(const std::string& path, const Discretization& d, const std::vector<double>& state,
                    copa::vtk::Encoding encoding);

}  // namespace laghos
