// The discretisation as Laghos builds it: H1 Q_k (Gauss-Lobatto) kinematic space, L2 Q_{k-1}
// Bernstein thermodynamic space, 2k Gauss-Legendre points per direction, and the quadrature data
// that stays fixed in time (rho0 detJ0 w, J0^{-1}, the length scale h0). Built on the host once;
// each backend copies what it needs.
#pragma once
#include <array>
#include <cstddef>
#include <vector>

#include "mesh.hpp"

namespace laghos {

struct ProblemSpec {
  int problem = 1;     // 0 Taylor-Green, 1 Sedov, 3 triple point, 4 Gresho
  int order_k = 2;     // H1 order
  int order_t = 1;     // L2 order
  double blast_energy = 1.0;  // -E0 (divided by 2^dim inside, as Laghos)
  double cfl = 0.5;
};

// Throws the --problem input error unless problem is one this proxy runs (0, 1, 3, 4): the one
// check the CLI and build_discretization share.
void require_supported_problem(int problem);

// Where a rank's sub-mesh sits in the global mesh (partition.hpp). The default is the whole mesh.
struct Subdomain {
  // Faces of the local box that are global walls (essential velocity dofs lie only on those).
  std::array<bool, 3> wall_lo{true, true, true}, wall_hi{true, true, true};
  double h0 = 0;       // Laghos's global length scale (reference_length of the global mesh); 0 = this mesh's
  bool whole = true;   // the whole mesh: a Sedov run without a vertex at the origin is bad input
};

// (volume / NE)^(1/dim) / k over `mesh`, summed in element order (the same bits on every rank).
double reference_length(const CartesianMesh& mesh, int order_k);

struct Discretization {
  int dim = 2, k = 2, ot = 1;
  int D1D = 3, Q1D = 4, L1D = 2;
  int NE = 0;
  int nd = 0, nq = 0, nl = 0;          // H1 dofs, quadrature points, L2 dofs per element
  std::array<int, 3> cells{1, 1, 1};   // elements per axis
  std::array<int, 3> h1n{1, 1, 1};     // H1 nodes per axis (cells*k + 1)
  int nh1 = 0;                         // scalar H1 dofs
  int nl2 = 0;                         // L2 dofs (NE * nl)
  // 1D tables, row-major [q * n + i].
  std::vector<double> B, G;            // H1 values / derivatives at quadrature points
  std::vector<double> Bl;              // Bernstein values at quadrature points
  std::vector<double> w1d, wq;         // 1D and tensor quadrature weights
  std::vector<int> h1_map;             // NE * nd: element-local lexicographic -> global scalar dof
  std::vector<int> ess[3];             // essential scalar dofs of velocity component c
  std::vector<double> rho0DetJ0w;      // NE * nq
  std::vector<double> Jac0inv;         // NE * nq * dim*dim, [(e*nq+q)*dim*dim + r*dim + c] = (J0^{-1})_{rc}
  std::vector<double> gamma;           // NE
  double h0 = 0;                       // (volume / NE)^(1/dim) / k
  double cfl = 0.5;
  bool viscosity = true;
  bool taylor_source = false;          // 2D Taylor-Green energy source
  bool holds_blast = false;            // Sedov: this (sub-)mesh received the energy deposit

  std::size_t h1_vsize() const { return static_cast<std::size_t>(dim) * nh1; }
  std::size_t state_size() const { return 2 * h1_vsize() + nl2; }
};

// Builds the discretisation and the initial state S = (x, v, e) on the host.
// `sub` places `mesh` inside the global mesh of a distributed run.
Discretization build_discretization(const CartesianMesh& mesh, const ProblemSpec& spec,
                                    std::vector<double>& state, const Subdomain& sub = Subdomain{});

// Initial velocity (also the exact velocity of problems 0 and 4 for all time).
void initial_velocity(int problem, int dim, const double* x, double* v);

}  // namespace laghos
