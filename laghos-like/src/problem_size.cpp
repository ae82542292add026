#include "problem_size.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "copa/errors.hpp"

namespace laghos {

double ProblemSize::elements() const {
  double n = 1;
  for (int c = 0; c < dim; ++c) n *= cells[c];
  return n;
}

double ProblemSize::h1_scalar_dofs() const {
  double n = 1;
  for (int c = 0; c < dim; ++c) n *= cells[c] * order_k + 1;
  return n;
}

double ProblemSize::h1_dofs_per_element() const { return std::pow(order_k + 1.0, dim); }
double ProblemSize::l2_dofs_per_element() const { return std::pow(order_t + 1.0, dim); }
double ProblemSize::quadrature_points_per_element() const {
  return std::pow((3 * order_k + order_t - 1) / 2 + 1.0, dim);
}

// The counts follow the allocations of build_discretization, LagrangianHydro (7 state-sized
// vectors, 2 H1 vector fields, 6 scalar H1 and 4 L2 vectors: RK stages, CG work vectors) and each
// backend's setup (stress dim^2 per point; OpenMP and GPU: H1 E-vector and the dof -> E-vector map).
MemoryEstimate estimate_memory(const ProblemSize& s, copa::Backend backend) {
  const double NE = s.elements(), nh1 = s.h1_scalar_dofs(), nd = s.h1_dofs_per_element();
  const double nq = s.quadrature_points_per_element(), dd = static_cast<double>(s.dim) * s.dim;
  const double vs = s.dim * nh1, nl2 = NE * s.l2_dofs_per_element(), ss = 2 * vs + nl2;
  const double boundary = 2.0 * s.dim * nh1;  // upper bound on the essential-dof lists' length
  // Fixed quadrature data (rho0 detJ0 w, J0^{-1}), element map, gamma, essential dofs.
  const double qdata = 8.0 * NE * nq * (1 + dd) + 4.0 * NE * nd + 8.0 * NE + 4.0 * boundary;
  const double solver = 8.0 * (7 * ss + 2 * vs + 6 * nh1 + (4 + (s.energy_source ? 1 : 0)) * nl2);
  const double stress = 8.0 * NE * nq * dd;
  const double gather = 8.0 * NE * nd * s.dim + 4.0 * (nh1 + 1) + 4.0 * NE * nd;  // E-vector, offsets, positions
  MemoryEstimate m;
  m.host_bytes = qdata + 2 * 8.0 * ss;  // discretisation, initial state, final state copy
  switch (backend) {
    case copa::Backend::serial:
      m.host_bytes += solver + stress;
      break;
    case copa::Backend::openmp:
      m.host_bytes += solver + stress + gather;
      break;
    case copa::Backend::cuda:
    case copa::Backend::hip:
      m.host_bytes += 4.0 * (nh1 + 1) + 4.0 * NE * nd + s.dim * nh1;  // set-up copies of the maps, masks
      m.device_bytes = qdata + solver + stress + gather + s.dim * nh1;
      break;
  }
  return m;
}

void require_32bit_indices(const ProblemSize& s, const std::string& options) {
  const double limit = std::numeric_limits<int>::max();
  const double NE = s.elements();
  const struct {
    const char* what;
    double count;
  } counts[] = {{"H1 dofs per component", s.h1_scalar_dofs()},
                {"element-map entries (elements x H1 dofs per element)", NE * s.h1_dofs_per_element()},
                {"L2 dofs", NE * s.l2_dofs_per_element()}};
  for (const auto& c : counts) {
    if (c.count > limit) {
      std::ostringstream os;
      os << options << ": " << c.count << " " << c.what << " exceed the 32-bit indices of the maps (" << limit << ")";
      throw copa::InputError(os.str());
    }
  }
}

}  // namespace laghos
