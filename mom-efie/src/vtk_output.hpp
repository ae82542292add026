// ParaView output of mom-efie (--vtk): the solved surface currents on the triangles, as a VTK
// UnstructuredGrid (.vtu) of the mesh's triangles with cell data at each triangle's centroid:
// J (real and imaginary parts, and |J| = sqrt(|Jx|^2 + |Jy|^2 + |Jz|^2)) from the RWG expansion
// J(r) = sum_n x_n f_n(r), f_n(r) = +-l_n / (2 A_T) (r - v_free) on T+ / T- (Rao, Wilton,
// Glisson 1982), and for the dielectric formulations the magnetic current M likewise.
#pragma once
#include <string>
#include <vector>

#include "copa/vtk.hpp"
#include "problem.hpp"

namespace efie {

// `x` is the solution of the formulation: n coefficients of J, or 2n (J then M) when `magnetic`.
void write_currents_vtk(const std::string& path, const Problem& p, const std::vector<complex>& x, bool magnetic,
                        copa::vtk::Encoding encoding);

}  // namespace efie
