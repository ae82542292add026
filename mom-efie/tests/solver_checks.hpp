// What the CPU and GPU tests of --solver share: the exact inverse norm of a small matrix and the
// bound on the distance between two solutions of the same system from their backward errors.
#pragma once
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

namespace efie_test {

using complex = std::complex<double>;

// ||A^-1||_p for p = '1' or 'I', from the explicit inverse (LAPACK zgetrf + zgetri; small n only).
inline double inverse_norm(std::vector<complex> a, long n, char p) {
  std::vector<lapack_int> piv(n);
  auto* z = reinterpret_cast<lapack_complex_double*>(a.data());
  LAPACKE_zgetrf(LAPACK_COL_MAJOR, n, n, z, n, piv.data());
  LAPACKE_zgetri(LAPACK_COL_MAJOR, n, z, n, piv.data());
  return LAPACKE_zlange(LAPACK_COL_MAJOR, p, n, n, z, n);
}

inline double inf_norm(const std::vector<complex>& v) {
  double m = 0;
  for (const auto& e : v) m = std::max(m, std::abs(e));
  return m;
}

// x1 - x2 = A^-1 (r1 - r2) with r = b - A x, and ||r_i||_inf = eta_i ||A||_inf ||x_i||_inf, so
//   ||x1 - x2||_inf / ||x2||_inf <= kappa_inf(A) (eta1 ||x1||_inf / ||x2||_inf + eta2)
// exactly; the computed residuals carry at most gamma_(n+1) ||A|| ||x|| rounding each (Higham,
// "Accuracy and Stability", 3.5), added to each eta as (n + 1) u.
inline double solution_distance_bound(double kappa_inf, double eta1, double eta2, const std::vector<complex>& x1,
                                      const std::vector<complex>& x2) {
  const double rounding = double(x1.size() + 1) * 0x1p-53;
  return kappa_inf * ((eta1 + rounding) * inf_norm(x1) / inf_norm(x2) + eta2 + rounding);
}

inline double inf_distance(const std::vector<complex>& a, const std::vector<complex>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d / inf_norm(b);
}

}  // namespace efie_test
