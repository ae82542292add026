#include "basis.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace laghos {

namespace {
// Legendre polynomial P_n(x) on [-1,1] and its derivative, by the three-term recurrence.
void legendre(int n, double x, double& p, double& dp) {
  double p0 = 1.0, p1 = x;
  if (n == 0) {
    p = 1.0;
    dp = 0.0;
    return;
  }
  for (int k = 2; k <= n; ++k) {
    const double pk = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
    p0 = p1;
    p1 = pk;
  }
  p = p1;
  dp = n * (x * p1 - p0) / (x * x - 1.0);
}
}  // namespace

void gauss_legendre(int n, std::vector<double>& x, std::vector<double>& w) {
  x.assign(n, 0.0);
  w.assign(n, 0.0);
  for (int i = 0; i < n; ++i) {
    double t = std::cos(M_PI * (i + 0.75) / (n + 0.5));  // Chebyshev-like start, root i of P_n
    for (int it = 0; it < 100; ++it) {
      double p, dp;
      legendre(n, t, p, dp);
      const double dt = p / dp;
      t -= dt;
      if (std::fabs(dt) < 1e-16) break;
    }
    double p, dp;
    legendre(n, t, p, dp);
    // Mapped to [0,1]: point (1 - t)/2 keeps the ascending order; weight 1/((1-t^2) P'^2).
    x[i] = 0.5 * (1.0 - t);
    w[i] = 1.0 / ((1.0 - t * t) * dp * dp);
  }
}

std::vector<double> gauss_lobatto(int n) {
  std::vector<double> x(n);
  x[0] = 0.0;
  x[n - 1] = 1.0;
  // Interior points: roots of P'_{n-1}, found by Newton on (1-t^2) P'_{n-1}.
  const int m = n - 1;
  for (int i = 1; i < n - 1; ++i) {
    double t = -std::cos(M_PI * i / m);
    for (int it = 0; it < 100; ++it) {
      double p, dp;
      legendre(m, t, p, dp);
      // d/dt[(1-t^2)P'] = -m(m+1)P ; f = (1-t^2)P' .
      const double f = (1.0 - t * t) * dp;
      const double df = -m * (m + 1.0) * p;
      const double dt = f / df;
      t -= dt;
      if (std::fabs(dt) < 1e-16) break;
    }
    x[i] = 0.5 * (1.0 + t);
  }
  return x;
}

void lagrange(const std::vector<double>& nodes, double t, double* value, double* deriv) {
  const int n = static_cast<int>(nodes.size());
  for (int i = 0; i < n; ++i) {
    double v = 1.0, d = 0.0;
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      const double inv = 1.0 / (nodes[i] - nodes[j]);
      d = d * (t - nodes[j]) * inv + v * inv;
      v *= (t - nodes[j]) * inv;
    }
    value[i] = v;
    if (deriv) deriv[i] = d;
  }
}

void bernstein(int p, double t, double* value) {
  double binom = 1.0;
  for (int j = 0; j <= p; ++j) {
    value[j] = binom * std::pow(t, j) * std::pow(1.0 - t, p - j);
    binom = binom * (p - j) / (j + 1);
  }
}

Table1D lagrange_table(const std::vector<double>& nodes, const std::vector<double>& points) {
  Table1D t;
  t.nq = static_cast<int>(points.size());
  t.n = static_cast<int>(nodes.size());
  t.value.resize(t.nq * t.n);
  t.deriv.resize(t.nq * t.n);
  for (int q = 0; q < t.nq; ++q) lagrange(nodes, points[q], &t.value[q * t.n], &t.deriv[q * t.n]);
  return t;
}

Table1D bernstein_table(int p, const std::vector<double>& points) {
  Table1D t;
  t.nq = static_cast<int>(points.size());
  t.n = p + 1;
  t.value.resize(t.nq * t.n);
  t.deriv.assign(t.nq * t.n, 0.0);
  for (int q = 0; q < t.nq; ++q) bernstein(p, points[q], &t.value[q * t.n]);
  return t;
}

std::vector<double> invert(std::vector<double> a, int n) {
  std::vector<double> inv(n * n, 0.0);
  for (int i = 0; i < n; ++i) inv[i * n + i] = 1.0;
  for (int c = 0; c < n; ++c) {
    int piv = c;
    for (int r = c + 1; r < n; ++r)
      if (std::fabs(a[r * n + c]) > std::fabs(a[piv * n + c])) piv = r;
    if (a[piv * n + c] == 0.0) throw std::runtime_error("singular matrix in basis conversion");
    for (int k = 0; k < n; ++k) {
      std::swap(a[c * n + k], a[piv * n + k]);
      std::swap(inv[c * n + k], inv[piv * n + k]);
    }
    const double s = 1.0 / a[c * n + c];
    for (int k = 0; k < n; ++k) {
      a[c * n + k] *= s;
      inv[c * n + k] *= s;
    }
    for (int r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = a[r * n + c];
      if (f == 0.0) continue;
      for (int k = 0; k < n; ++k) {
        a[r * n + k] -= f * a[c * n + k];
        inv[r * n + k] -= f * inv[c * n + k];
      }
    }
  }
  return inv;
}

}  // namespace laghos
