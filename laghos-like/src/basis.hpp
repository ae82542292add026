// One-dimensional bases and quadrature on [0,1], the building blocks of every tensor-product
// element (MFEM conventions: H1 nodes at Gauss-Lobatto points, L2 "positive" = Bernstein basis,
// Gauss-Legendre quadrature).
#pragma once
#include <vector>

namespace laghos {

// Gauss-Legendre points and weights on [0,1] (weights sum to 1).
void gauss_legendre(int n, std::vector<double>& x, std::vector<double>& w);
// Gauss-Lobatto points on [0,1] (n >= 2), ascending.
std::vector<double> gauss_lobatto(int n);

// Lagrange basis through `nodes` evaluated at point t: values (and derivatives).
void lagrange(const std::vector<double>& nodes, double t, double* value, double* deriv);
// Bernstein basis of degree p at t: C(p,j) t^j (1-t)^(p-j), j = 0..p.
void bernstein(int p, double t, double* value);

// Row-major table M[q * n + i] = basis i at point q.
struct Table1D {
  int nq = 0, n = 0;
  std::vector<double> value, deriv;
};
Table1D lagrange_table(const std::vector<double>& nodes, const std::vector<double>& points);
Table1D bernstein_table(int p, const std::vector<double>& points);

// Inverse of the square matrix a (n x n, row-major) by Gauss-Jordan with partial pivoting.
std::vector<double> invert(std::vector<double> a, int n);

}  // namespace laghos
