// ParaView output of laghos-like (--vtk): the deformed high-order mesh as a VTK UnstructuredGrid
// (.vtu). Each order-k element is subdivided into k^dim linear sub-cells (hexahedra in 3D, quads in
// 2D) between neighbouring Gauss-Lobatto nodes, so the points are exactly the H1 nodes (shared
// between elements) with their velocity as point data; the curved faces show as k facets per edge.
// Cell data, the same on every sub-cell of an element: the element id, its density (mass / current
// volume, both from the quadrature), its mass-weighted mean specific internal energy, the pressure
// (gamma - 1) rho e of those means, and its raw Bernstein energy coefficients.
// Over MPI ranks every rank writes its own box as one piece of a .pvtu (copa::vtk::write_pieces):
// its owned elements and all their nodes, so a node shared by several ranks is written once by
// each of them (the same coordinates and velocity: the ranks sum and exchange shared dofs).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "copa/vtk.hpp"
#include "discretization.hpp"

namespace laghos {

// `state` is (x, v, e) on the host, as RunResult::state. `element_ids` (one per element, the
// "element" cell array) numbers the elements in the global mesh on ranks; empty: 0..NE-1.
// `pieces`: write `path` (a .pvtu) and this rank's piece instead of one .vtu.
void write_mesh_vtk(const std::string& path, const Discretization& d, const std::vector<double>& state,
                    copa::vtk::Encoding encoding, const std::vector<std::int64_t>& element_ids = {},
                    bool pieces = false);

}  // namespace laghos
