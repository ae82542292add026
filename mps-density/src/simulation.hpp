// The semi-implicit MPS time step (Koshizuka & Oka 1996), written once against the kernel
// interface so that every backend runs the whole step (PPE included) on its own storage:
//   1. rebucket;  2. explicit viscosity (Laplacian, r_lap) + gravity, u* and r*;
//   3. collision model (r_col = 0.5 l0, restitution 0.2);  4. number density n* (r_e);
//   5. free surface n* < 0.97 n0 -> Dirichlet p = 0; PPE
//        2d/(lambda0 n0) sum_j w_ij (p_i - p_j) + rho c/dt^2 p_i = relax rho/dt^2 (n*_i - n0)/n0
//      solved by conjugate gradients, matrix-free (the operator is a neighbour sum, never assembled);
//   6. negative pressures clamped to 0; minimum-pressure gradient; u += -dt/rho grad p, r += dt du;
//   7. NaN / particle outside the bucket grid -> copa::RuntimeError (exit 3).
#pragma once
#include <cstddef>

#include "copa/timing.hpp"
#include "kernels.hpp"
#include "reference.hpp"

namespace mps {

struct SimParams {
  double dt = 0;            // 0 = 0.2 l0 / sqrt(2 g H) (Courant 0.2 on the free-fall speed)
  double nu = 1.0e-6;       // kinematic viscosity, m^2/s
  double rho = 1000.0;      // kg/m^3
  double gravity = 9.81;    // along -y
  double beta = 0.97;       // free surface: n* < beta n0
  double relax = 0.2;       // relaxation of the PPE source term
  double compressibility = 0.45e-9;  // 1/Pa, makes the PPE strictly positive definite
  double restitution = 0.2;
  double collision_ratio = 0.5;      // r_col / l0
  double cg_tol = 1e-8;     // relative residual
  int cg_max = 5000;
};

struct StepInfo {
  int cg_iterations = 0;
  double cg_residual = 0;
  std::size_t active = 0;
};

class Simulation {
 public:
  Simulation(MpsKernels& k, const Problem& pr, const SimParams& sp);
  StepInfo step(copa::RegionTimer& timer);
  double dt() const { return dt_; }
  double n0() const { return c_.n0; }

 private:
  MpsKernels& k_;
  SimParams sp_;
  int dim_;
  double l0_, re_, re_lap_, dt_;
  LatticeConstants c_, c_lap_;
};

// Surge front z = max x of the fluid particles measured from the left wall face.
double front_position(const Particles& ps, double left_wall_face, double l0);

}  // namespace mps
