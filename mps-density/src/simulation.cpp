#include "simulation.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "copa/errors.hpp"

namespace mps {

Simulation::Simulation(MpsKernels& k, const Problem& pr, const SimParams& sp)
    : k_(k), sp_(sp), dim_(pr.grid.dim), l0_(pr.l0), re_(pr.re), re_lap_(pr.re_lap) {
  c_ = lattice_constants(dim_, re_ / l0_);
  c_lap_ = lattice_constants(dim_, re_lap_ / l0_);
  double height = 0;
  for (std::size_t i = 0; i < pr.particles.size(); ++i)
    if (pr.particles.type[i] == fluid) height = std::max(height, pr.particles.y[i]);
  dt_ = sp.dt > 0 ? sp.dt : 0.2 * l0_ / std::sqrt(2.0 * sp.gravity * std::max(height, l0_));
  k_.load(pr, std::max(re_, re_lap_));
}

StepInfo Simulation::step(copa::RegionTimer& timer) {
  StepInfo info;
  const double g[3] = {0.0, -sp_.gravity, 0.0};
  const double lap_coef = 2.0 * dim_ / (c_lap_.lambda0 * l0_ * l0_ * c_lap_.n0);
  {
    // Over MPI ranks: particles move to the rank of their slab, ghosts rebuilt (dist/rank_kernels).
    copa::Region r(timer, "migration");
    k_.begin_step();
  }
  {
    copa::Region r(timer, "rebucket");
    k_.prepare_neighbours();
  }
  {
    copa::Region r(timer, "viscosity+gravity");
    k_.velocity_laplacian(re_lap_, lap_coef);
    k_.predictor(dt_, sp_.nu, g);
  }
  {
    copa::Region r(timer, "rebucket");
    k_.prepare_neighbours();
  }
  {
    copa::Region r(timer, "collision");
    k_.collision(sp_.collision_ratio * l0_, sp_.restitution);
    k_.correct(1.0, dt_);
  }
  {
    copa::Region r(timer, "number-density");
    k_.number_density(re_);
  }
  {
    copa::Region r(timer, "ppe-cg");
    const double diag = sp_.rho * sp_.compressibility / (dt_ * dt_);
    info.active = k_.ppe_setup(sp_.beta * c_.n0, c_.n0, sp_.relax * sp_.rho / (dt_ * dt_));
    // Conjugate gradients, warm-started from the previous pressure (zero off the active set).
    const CgResult cg = k_.ppe_cg(re_lap_, lap_coef, diag, sp_.cg_tol, sp_.cg_max);
    if (cg.residual > sp_.cg_tol)
      throw copa::RuntimeError("PPE conjugate gradients did not converge in " + std::to_string(sp_.cg_max) + " iterations");
    info.cg_iterations = cg.iterations;
    info.cg_residual = cg.residual;
  }
  {
    copa::Region r(timer, "pressure-gradient");
    k_.clamp_negative_pressure();
    k_.pressure_gradient(re_, dim_ / c_.n0);
    k_.correct(-dt_ / sp_.rho, dt_);
  }
  {
    copa::Region r(timer, "check");
    k_.check_state();
  }
  return info;
}

double front_position(const Particles& ps, double left_wall_face, double l0) {
  double xmax = -1e300;
  for (std::size_t i = 0; i < ps.size(); ++i)
    if (ps.type[i] == fluid) xmax = std::max(xmax, ps.x[i]);
  return xmax + 0.5 * l0 - left_wall_face;
}

}  // namespace mps
