#include <algorithm>
#include <cmath>
#include "reference.hpp"

#include "discretization.hpp"

namespace laghos {

const std::vector<LaghosRun>& laghos_table() {
  static const std::vector<LaghosRun> table = {
      {1, 0, "square01_quad", 3, 2, 1, 0.75, 4, 1.0, 339, 0.000702, 4.9695537349e+01},
      {2, 0, "cube01_hex", 1, 2, 1, 0.75, 4, 1.0, 1041, 0.000121, 3.3909635545e+03},
      {3, 1, "square01_quad", 3, 2, 1, 0.8, 4, 1.0, 1154, 0.001655, 4.6303396053e+01},
      {4, 1, "cube01_hex", 2, 2, 1, 0.6, 4, 2.0, 560, 0.002449, 1.3408616722e+02},
      {6, 3, "rectangle01_quad", 2, 2, 1, 3.0, 4, 1.0, 2872, 0.000064, 5.6547039096e+01},
      {7, 3, "box01_hex", 1, 2, 1, 5.0, 4, 1.0, 858, 0.000474, 5.6691500623e+01},
      {8, 4, "square_gresho", 3, 3, 2, 0.62831853, 7, 1.0, 776, 0.000045, 4.0982431726e+02},
  };
  return table;
}

std::optional<LaghosRun> laghos_run(int number) {
  for (const auto& r : laghos_table())
    if (r.run == number) return r;
  return std::nullopt;
}

VelocityErrors velocity_errors(const Discretization& d, const std::vector<double>& S, int problem) {
  VelocityErrors err;
  const std::size_t vs = d.h1_vsize();
  const int nd = d.nd, nq = d.nq, dim = d.dim, D = d.D1D, Q = d.Q1D;
  for (int e = 0; e < d.NE; ++e) {
    const int* map = &d.h1_map[static_cast<std::size_t>(e) * nd];
    for (int q = 0; q < nq; ++q) {
      const int qi[3] = {q % Q, (q / Q) % Q, q / (Q * Q)};
      double x[3] = {0, 0, 0}, v[3] = {0, 0, 0}, J[9] = {0};
      for (int l = 0; l < nd; ++l) {
        const int li[3] = {l % D, (l / D) % D, l / (D * D)};
        double phi = 1.0, dphi[3] = {1, 1, 1};
        for (int a = 0; a < dim; ++a) {
          phi *= d.B[qi[a] * D + li[a]];
          for (int b = 0; b < dim; ++b) dphi[b] *= (a == b ? d.G : d.B)[qi[a] * D + li[a]];
        }
        for (int c = 0; c < dim; ++c) {
          const double xc = S[c * d.nh1 + map[l]];
          x[c] += phi * xc;
          v[c] += phi * S[vs + c * d.nh1 + map[l]];
          for (int b = 0; b < dim; ++b) J[c * dim + b] += dphi[b] * xc;
        }
      }
      const double detJ = dim == 2 ? J[0] * J[3] - J[1] * J[2]
                                   : J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
                                         J[2] * (J[3] * J[7] - J[4] * J[6]);
      double ve[3];
      initial_velocity(problem, dim, x, ve);
      double s1 = 0, s2 = 0;
      for (int c = 0; c < dim; ++c) {
        const double diff = std::fabs(v[c] - ve[c]);
        s1 += diff;
        s2 += diff * diff;
        err.linf = std::max(err.linf, diff);
      }
      err.l1 += d.wq[q] * detJ * s1;
      err.l2 += d.wq[q] * detJ * s2;
    }
  }
  err.l2 = std::sqrt(err.l2);
  return err;
}

}  // namespace laghos
