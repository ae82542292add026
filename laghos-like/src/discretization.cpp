#include "discretization.hpp"

#include <cmath>
#include <limits>

#include "basis.hpp"
#include "copa/errors.hpp"

namespace laghos {

namespace {

double rho0_at(int problem, int dim, const double* x) {
  switch (problem) {
    case 3:
      if (dim == 2) return (x[0] > 1.0 && x[1] > 1.5) ? 0.125 : 1.0;
      return (x[0] > 1.0 && ((x[1] < 1.5 && x[2] < 1.5) || (x[1] > 1.5 && x[2] > 1.5))) ? 0.125 : 1.0;
    default:
      return 1.0;
  }
}

double gamma_at(int problem, const double* x) {
  switch (problem) {
    case 0:
    case 4:
      return 5.0 / 3.0;
    case 3:
      return (x[0] > 1.0 && x[1] <= 1.5) ? 1.4 : 1.5;
    default:
      return 1.4;
  }
}

double e0_at(int problem, int dim, const double* x) {
  switch (problem) {
    case 0: {
      const double denom = 2.0 / 3.0;  // (gamma - 1) * rho
      double val;
      if (dim == 2)
        val = 1.0 + (std::cos(2 * M_PI * x[0]) + std::cos(2 * M_PI * x[1])) / 4.0;
      else
        val = 100.0 + ((std::cos(2 * M_PI * x[2]) + 2) * (std::cos(2 * M_PI * x[0]) + std::cos(2 * M_PI * x[1])) - 2) / 16.0;
      return val / denom;
    }
    case 3:
      return (x[0] > 1.0 ? 0.1 : 1.0) / rho0_at(problem, dim, x) / (gamma_at(problem, x) - 1.0);
    case 4: {
      const double rsq = x[0] * x[0] + x[1] * x[1], r = std::sqrt(rsq);
      const double gamma = 5.0 / 3.0;
      if (r < 0.2) return (5.0 + 25.0 / 2.0 * rsq) / (gamma - 1.0);
      if (r < 0.4) {
        const double t1 = 9.0 - 4.0 * std::log(0.2) + 25.0 / 2.0 * rsq;
        const double t2 = 20.0 * r - 4.0 * std::log(r);
        return (t1 - t2) / (gamma - 1.0);
      }
      return (3.0 + 4.0 * std::log(2.0)) / (gamma - 1.0);
    }
    default:
      return 0.0;
  }
}

// Index helpers for lexicographic tensors.
inline int lex(int dim, int n, int i, int j, int l) { return dim == 2 ? i + n * j : i + n * (j + n * l); }

}  // namespace

void initial_velocity(int problem, int dim, const double* x, double* v) {
  for (int c = 0; c < dim; ++c) v[c] = 0.0;
  if (problem == 0) {
    v[0] = std::sin(M_PI * x[0]) * std::cos(M_PI * x[1]);
    v[1] = -std::cos(M_PI * x[0]) * std::sin(M_PI * x[1]);
    if (dim == 3) {
      v[0] *= std::cos(M_PI * x[2]);
      v[1] *= std::cos(M_PI * x[2]);
      v[2] = 0.0;
    }
  } else if (problem == 4) {
    const double r = std::sqrt(x[0] * x[0] + x[1] * x[1]);
    if (r < 0.2) {
      v[0] = 5.0 * x[1];
      v[1] = -5.0 * x[0];
    } else if (r < 0.4) {
      v[0] = 2.0 * x[1] / r - 5.0 * x[1];
      v[1] = -2.0 * x[0] / r + 5.0 * x[0];
    }
  }
}

double reference_length(const CartesianMesh& mesh, int order_k) {
  const int dim = mesh.dim, NE = mesh.num_elements();
  double volume = 0.0;
  for (int e = 0; e < NE; ++e) {
    const int eidx[3] = {e % mesh.cells(0), (e / mesh.cells(0)) % mesh.cells(1), dim == 3 ? e / (mesh.cells(0) * mesh.cells(1)) : 0};
    double detJ = 1.0;
    for (int c = 0; c < dim; ++c) detJ *= mesh.nodes[c][eidx[c] + 1] - mesh.nodes[c][eidx[c]];
    volume += detJ;
  }
  return (dim == 2 ? std::sqrt(volume / NE) : std::cbrt(volume / NE)) / order_k;
}

void require_supported_problem(int problem) {
  if (problem != 0 && problem != 1 && problem != 3 && problem != 4)
    throw copa::InputError("--problem: supported problems are 0 (Taylor-Green), 1 (Sedov), 3 (triple point), 4 (Gresho)");
}

Discretization build_discretization(const CartesianMesh& mesh, const ProblemSpec& spec,
                                    std::vector<double>& state, const Subdomain& sub) {
  const int p = spec.problem;
  require_supported_problem(p);
  if (p == 4 && mesh.dim != 2) throw copa::InputError("--problem 4 (Gresho) is 2D only");
  Discretization d;
  d.dim = mesh.dim;
  d.k = spec.order_k;
  d.ot = spec.order_t;
  const int dim = d.dim;
  const int kmax = dim == 2 ? 5 : 4;
  if (d.k < 1 || d.k > kmax)
    throw copa::InputError("--order-k: must be in 1.." + std::to_string(kmax) + " in " + std::to_string(dim) + "D");
  if (d.ot < 0 || d.ot > d.k - 1 + 1 || d.ot >= d.k + 1)
    throw copa::InputError("--order-t: must be in 0..order-k");
  d.D1D = d.k + 1;
  d.L1D = d.ot + 1;
  // Laghos: integration order 3k + ot - 1, Gauss-Legendre with order/2 + 1 points per direction.
  d.Q1D = (3 * d.k + d.ot - 1) / 2 + 1;
  d.cfl = spec.cfl;
  d.viscosity = (p == 1 || p == 3);
  d.taylor_source = (p == 0 && dim == 2);

  int nd = 1, nq = 1, nl = 1;
  for (int c = 0; c < dim; ++c) {
    d.cells[c] = mesh.cells(c);
    d.h1n[c] = d.cells[c] * d.k + 1;
    nd *= d.D1D;
    nq *= d.Q1D;
    nl *= d.L1D;
  }
  d.nd = nd;
  d.nq = nq;
  d.nl = nl;
  d.NE = mesh.num_elements();
  d.nh1 = 1;
  for (int c = 0; c < dim; ++c) d.nh1 *= d.h1n[c];
  d.nl2 = d.NE * nl;

  std::vector<double> qx;
  gauss_legendre(d.Q1D, qx, d.w1d);
  const std::vector<double> gll = gauss_lobatto(d.D1D);
  const Table1D h1t = lagrange_table(gll, qx);
  d.B = h1t.value;
  d.G = h1t.deriv;
  d.Bl = bernstein_table(d.ot, qx).value;
  d.wq.resize(nq);
  for (int q = 0; q < nq; ++q) {
    const int q0 = q % d.Q1D, q1 = (q / d.Q1D) % d.Q1D, q2 = q / (d.Q1D * d.Q1D);
    d.wq[q] = d.w1d[q0] * d.w1d[q1] * (dim == 3 ? d.w1d[q2] : 1.0);
  }

  // Element -> H1 dof map of the structured grid; element e = (ex, ey, ez) lexicographic.
  const int D = d.D1D;
  d.h1_map.resize(static_cast<std::size_t>(d.NE) * nd);
  for (int e = 0; e < d.NE; ++e) {
    const int ex = e % d.cells[0], ey = (e / d.cells[0]) % d.cells[1], ez = dim == 3 ? e / (d.cells[0] * d.cells[1]) : 0;
    for (int l = 0; l < nd; ++l) {
      const int a = l % D, b = (l / D) % D, c = l / (D * D);
      const int gi = ex * d.k + a, gj = ey * d.k + b, gk = ez * d.k + (dim == 3 ? c : 0);
      d.h1_map[static_cast<std::size_t>(e) * nd + l] = gi + d.h1n[0] * (gj + d.h1n[1] * gk);
    }
  }
  // Essential dofs: component c vanishes on the walls normal to axis c.
  for (int c = 0; c < dim; ++c) {
    for (int g = 0; g < d.nh1; ++g) {
      const int idx[3] = {g % d.h1n[0], (g / d.h1n[0]) % d.h1n[1], dim == 3 ? g / (d.h1n[0] * d.h1n[1]) : 0};
      if ((idx[c] == 0 && sub.wall_lo[c]) || (idx[c] == d.h1n[c] - 1 && sub.wall_hi[c])) d.ess[c].push_back(g);
    }
  }

  // Node coordinates of the H1 grid along each axis.
  std::array<std::vector<double>, 3> coord;
  for (int c = 0; c < dim; ++c) {
    coord[c].resize(d.h1n[c]);
    for (int i = 0; i < d.cells[c]; ++i) {
      const double a = mesh.nodes[c][i], b = mesh.nodes[c][i + 1];
      for (int j = 0; j <= d.k; ++j) coord[c][i * d.k + j] = a + (b - a) * gll[j];
    }
  }

  const std::size_t vs = d.h1_vsize();
  state.assign(d.state_size(), 0.0);
  double* X = state.data();
  double* V = state.data() + vs;
  double* E = state.data() + 2 * vs;
  for (int g = 0; g < d.nh1; ++g) {
    const int idx[3] = {g % d.h1n[0], (g / d.h1n[0]) % d.h1n[1], dim == 3 ? g / (d.h1n[0] * d.h1n[1]) : 0};
    double xg[3] = {0, 0, 0}, vg[3];
    for (int c = 0; c < dim; ++c) xg[c] = coord[c][idx[c]];
    initial_velocity(p, dim, xg, vg);
    for (int c = 0; c < dim; ++c) {
      X[c * d.nh1 + g] = xg[c];
      V[c * d.nh1 + g] = vg[c];
    }
  }
  for (int c = 0; c < dim; ++c)
    for (int g : d.ess[c]) V[c * d.nh1 + g] = 0.0;

  // Fixed quadrature data. The elements are axis-aligned boxes, so J0 is diagonal and constant.
  const int L = d.L1D;
  std::vector<double> lx, lw;
  gauss_legendre(L, lx, lw);  // nodes of the nodal L2 space used to interpolate e0 and rho0
  // Nodal (Gauss-Legendre) -> Bernstein: b = V^{-1} n with V[i][j] = B_j(x_i), per direction.
  std::vector<double> vand(L * L);
  for (int i = 0; i < L; ++i) bernstein(d.ot, lx[i], &vand[i * L]);
  const std::vector<double> vinv = invert(vand, L);

  d.rho0DetJ0w.resize(static_cast<std::size_t>(d.NE) * nq);
  d.Jac0inv.assign(static_cast<std::size_t>(d.NE) * nq * dim * dim, 0.0);
  d.gamma.resize(d.NE);
  for (int e = 0; e < d.NE; ++e) {
    const int eidx[3] = {e % d.cells[0], (e / d.cells[0]) % d.cells[1], dim == 3 ? e / (d.cells[0] * d.cells[1]) : 0};
    double lo[3], h[3], center[3] = {0, 0, 0};
    double detJ = 1.0;
    for (int c = 0; c < dim; ++c) {
      lo[c] = mesh.nodes[c][eidx[c]];
      h[c] = mesh.nodes[c][eidx[c] + 1] - lo[c];
      center[c] = lo[c] + 0.5 * h[c];
      detJ *= h[c];
    }
    d.gamma[e] = gamma_at(p, center);
    // rho0 and e0: interpolate at the L2 Gauss-Legendre nodes, then change to Bernstein.
    std::vector<double> rho_nodal(nl), e_nodal(nl), rho_b(nl), e_b(nl);
    for (int l = 0; l < nl; ++l) {
      const int a = l % L, b = (l / L) % L, c = l / (L * L);
      const int ab[3] = {a, b, c};
      double xl[3] = {0, 0, 0};
      for (int cc = 0; cc < dim; ++cc) xl[cc] = lo[cc] + h[cc] * lx[ab[cc]];
      rho_nodal[l] = rho0_at(p, dim, xl);
      e_nodal[l] = e0_at(p, dim, xl);
    }
    auto to_bernstein = [&](const std::vector<double>& in, std::vector<double>& out) {
      std::vector<double> t = in, u(nl);
      for (int axis = 0; axis < dim; ++axis) {
        for (int l = 0; l < nl; ++l) {
          int ab[3] = {l % L, (l / L) % L, l / (L * L)};
          double s = 0.0;
          const int i = ab[axis];
          for (int j = 0; j < L; ++j) {
            ab[axis] = j;
            s += vinv[i * L + j] * t[lex(dim, L, ab[0], ab[1], ab[2])];
          }
          u[l] = s;
        }
        t = u;
      }
      out = t;
    };
    to_bernstein(rho_nodal, rho_b);
    to_bernstein(e_nodal, e_b);
    for (int l = 0; l < nl; ++l) E[static_cast<std::size_t>(e) * nl + l] = e_b[l];
    for (int q = 0; q < nq; ++q) {
      const int qi[3] = {q % d.Q1D, (q / d.Q1D) % d.Q1D, q / (d.Q1D * d.Q1D)};
      double rho_q = 0.0;
      for (int l = 0; l < nl; ++l) {
        const int li[3] = {l % L, (l / L) % L, l / (L * L)};
        double phi = 1.0;
        for (int c = 0; c < dim; ++c) phi *= d.Bl[qi[c] * L + li[c]];
        rho_q += phi * rho_b[l];
      }
      const std::size_t eq = static_cast<std::size_t>(e) * nq + q;
      d.rho0DetJ0w[eq] = d.wq[q] * rho_q * detJ;
      for (int c = 0; c < dim; ++c) d.Jac0inv[eq * dim * dim + c * dim + c] = 1.0 / h[c];
    }
  }
  d.h0 = sub.h0 > 0 ? sub.h0 : reference_length(mesh, d.k);

  if (p == 1) {
    // Sedov: MFEM's delta projection at the vertex closest to the origin. In the nodal L2 space
    // it is the interpolant of ((1-x)(1-y)(1-z))^ot in the corner element's reference frame,
    // which is exactly the Bernstein function of the corner dof; it is scaled so that its
    // integral equals E0 / 2^dim: coefficient = E0/2^dim * (ot+1)^dim / |element|.
    // The element whose lower corner is the origin is unique, so in a distributed run exactly one
    // sub-mesh finds it; the others deposit nothing.
    int best = 0;
    double best_dist = std::numeric_limits<double>::infinity();
    for (int e = 0; e < d.NE; ++e) {
      const int eidx[3] = {e % d.cells[0], (e / d.cells[0]) % d.cells[1], dim == 3 ? e / (d.cells[0] * d.cells[1]) : 0};
      double dist = 0.0;
      for (int c = 0; c < dim; ++c) dist += mesh.nodes[c][eidx[c]] * mesh.nodes[c][eidx[c]];
      if (dist < best_dist) {
        best_dist = dist;
        best = e;
      }
    }
    if (std::sqrt(best_dist) >= 1e-12) {
      if (sub.whole) throw copa::InputError("--problem 1: the mesh has no vertex at the origin for the Sedov blast");
      return d;
    }
    d.holds_blast = true;
    const int eidx[3] = {best % d.cells[0], (best / d.cells[0]) % d.cells[1], dim == 3 ? best / (d.cells[0] * d.cells[1]) : 0};
    double vol = 1.0;
    for (int c = 0; c < dim; ++c) vol *= mesh.nodes[c][eidx[c] + 1] - mesh.nodes[c][eidx[c]];
    const double energy = spec.blast_energy / std::pow(2.0, dim);
    E[static_cast<std::size_t>(best) * nl + 0] = energy * std::pow(d.ot + 1.0, dim) / vol;
  }
  return d;
}

}  // namespace laghos
