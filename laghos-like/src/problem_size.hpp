// The size of a run, known from the options alone (before any mesh, discretisation or backend
// memory exists): element and dof counts, the memory a backend will hold, and the 32-bit index
// range the arrays are addressed with. Counts are doubles so that absurd options cannot overflow.
#pragma once
#include <array>
#include <string>

#include "copa/backend.hpp"

namespace laghos {

struct ProblemSize {
  int dim = 3;
  std::array<double, 3> cells{1, 1, 1};  // elements per axis after refinement
  int order_k = 2, order_t = 1;
  bool energy_source = false;  // 2D Taylor-Green: one more L2 vector

  double elements() const;
  double h1_scalar_dofs() const;             // prod(cells * k + 1)
  double h1_dofs_per_element() const;        // (k + 1)^dim
  double l2_dofs_per_element() const;        // (ot + 1)^dim
  double quadrature_points_per_element() const;  // Q1D^dim, Q1D = (3k + ot - 1)/2 + 1
};

// Bytes a run on `backend` holds at its peak: on the host (discretisation, initial and final
// state, and for serial/OpenMP every solver vector and the quadrature data) and on the device
// (GPU backends: the same vectors and data plus the E-vector and the gather map).
struct MemoryEstimate {
  double host_bytes = 0;
  double device_bytes = 0;
};
MemoryEstimate estimate_memory(const ProblemSize& size, copa::Backend backend);

// Throws copa::InputError naming `options` when a dof, element or element-map index would not fit
// the 32-bit integers the maps and kernels use.
void require_32bit_indices(const ProblemSize& size, const std::string& options);

}  // namespace laghos
