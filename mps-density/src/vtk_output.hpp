// ParaView output of mps-density (--vtk): the particles as VTK PolyData points (.vtp) with their
// number density, type (0 fluid, 1 wall, 2 dummy) and id, and in simulation mode velocity and
// pressure. Positions and fields in original particle order (id = index in the set-up).
#pragma once
#include <string>
#include <vector>

#include "copa/vtk.hpp"
#include "particles.hpp"

namespace mps {

// `n` has one value per particle; `flow`: also velocity (u,v,w) and pressure p of `ps`.
void write_particles_vtk(const std::string& path, const Particles& ps, const std::vector<double>& n, bool flow,
                         copa::vtk::Encoding encoding);

}  // namespace mps
