// ParaView output of an AMR run: its leaf cells (cells without a son oct, of every level) as the
// hexahedra of write_leaf_cells_vtk.
#pragma once
#include <vector>

#include "amr/amr_tree.hpp"
#include "hydro/vtk_output.hpp"

namespace ro::amr {

LeafCells leaf_cells(const Tree& t, const std::vector<double>& u, double gamma);

}  // namespace ro::amr
