// Still water in a tank (README, Verification): the semi-implicit MPS step must keep a fluid at
// rest at rest and carry its weight, on every built backend (the GPU's when the build has one).
// Reference: the hydrostatic pressure rho g (H - y), H the free surface (the top particle layer's
// upper face). The MPS pressure of one particle fluctuates from step to step (the PPE source is the
// number-density deviation of that step), so the pressure is averaged over the last `window` steps.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "copa/backend.hpp"
#include "copa/testing.hpp"
#include "copa/timing.hpp"
#include "kernels.hpp"
#include "simulation.hpp"

namespace {

struct StillWater {
  double pressure_error = 0;  // max |<p> - rho g (H - y0)| / (rho g H) over the fluid below the surface layers
  double bottom_error = 0;    // |mean <p> of the bottom layer - rho g (H - l0/2)| / (rho g H)
  double displacement = 0;    // max |r - r0| / l0 over the fluid particles at the end
  double speed = 0;           // max |u| / sqrt(g H) at the end
};

StillWater run_still_water(copa::Backend b, int width, int depth, int steps, int window) {
  const double l0 = 0.01;
  const auto pr = mps::still_water_problem(width, depth, l0);
  mps::SimParams sp;
  auto k = mps::make_kernels(b, mps::KernelOptions{});
  mps::Simulation sim(*k, pr, sp);
  copa::Profile profile;
  copa::HostTimer timer(profile);
  const std::size_t n = pr.particles.size();
  std::vector<double> mean_p(n, 0.0);
  for (int s = 1; s <= steps; ++s) {
    sim.step(timer);
    if (s > steps - window) {
      const auto p = k->get(mps::Field::p);
      for (std::size_t i = 0; i < n; ++i) mean_p[i] += p[i] / window;
    }
  }
  mps::Particles end;
  k->store(end);
  const auto& ps = pr.particles;
  const double H = depth * l0, scale = sp.rho * sp.gravity * H;
  StillWater r;
  double bottom_sum = 0;
  int bottom_count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (ps.type[i] != mps::fluid) continue;
    const double dx = end.x[i] - ps.x[i], dy = end.y[i] - ps.y[i];
    r.displacement = std::max(r.displacement, std::sqrt(dx * dx + dy * dy) / l0);
    r.speed = std::max(r.speed, std::hypot(end.u[i], end.v[i]) / std::sqrt(sp.gravity * H));
    // The two top layers are (or border) the free surface, where p = 0 is imposed (Dirichlet).
    if (ps.y[i] > H - 2 * l0) continue;
    const double exact = sp.rho * sp.gravity * (H - ps.y[i]);
    r.pressure_error = std::max(r.pressure_error, std::fabs(mean_p[i] - exact) / scale);
    if (ps.y[i] < l0) bottom_sum += mean_p[i], ++bottom_count;
  }
  r.bottom_error = std::fabs(bottom_sum / bottom_count - sp.rho * sp.gravity * (H - 0.5 * l0)) / scale;
  std::printf("still water %s %d x %d, %d steps: pressure error %.4f (bottom layer %.4f) of rho g H, displacement %.4f l0, "
              "speed %.2e sqrt(g H)\n",
              copa::to_string(b).c_str(), width, depth, steps, r.pressure_error, r.bottom_error, r.displacement, r.speed);
  return r;
}

}  // namespace

// 16 x 16 particles, l0 = 1 cm, 120 steps (0.14 s), pressure averaged over the last 60. Measured (serial = OpenMP):
// pressure error 0.026 of rho g H, bottom layer 0.006, displacement 0.058 l0, speed 0.008
// sqrt(g H); the tolerances are about twice that. Longer runs are not at rest (README, Verification:
// the free-surface particles are laterally unstable: 1 l0 after 360 steps, 8.5 l0 after 2000),
// which this test does not hide: its horizon is in its name.
TEST(StillWater, hydrostatic_and_at_rest_for_120_steps_on_every_backend) {
  for (auto b : copa::built_backends()) {
    const StillWater r = run_still_water(b, 16, 16, 120, 60);
    EXPECT_TRUE(r.pressure_error <= 0.05);
    EXPECT_TRUE(r.bottom_error <= 0.02);
    EXPECT_TRUE(r.displacement <= 0.1);
    EXPECT_TRUE(r.speed <= 0.02);
  }
}

// The collapse of the water column (the dam break, a/10) converts potential into kinetic energy;
// the inviscid semi-implicit step (nu = 1e-6 acts on no resolved shear) neither creates nor
// destroys mechanical energy E = sum (g y + |u|^2 / 2) beyond a small drift until the surge
// reaches T = 1 (T = t sqrt(2g/a)): the surge front's lead over the experiment is not energy that
// the step injects (README, Verification).
TEST(DamBreakPhysics, collapse_conserves_mechanical_energy_until_T1) {
  const double a = 0.1;
  const auto pr = mps::dambreak_problem(2, a, a / 10, 0);
  mps::SimParams sp;
  auto k = mps::make_kernels(copa::Backend::serial, mps::KernelOptions{});
  mps::Simulation sim(*k, pr, sp);
  copa::Profile profile;
  copa::HostTimer timer(profile);
  auto energy = [&](double* kinetic) {
    mps::Particles s;
    k->store(s);
    double e = 0, ke = 0;
    for (std::size_t i = 0; i < s.x.size(); ++i)
      if (pr.particles.type[i] == mps::fluid) {
        const double q = 0.5 * (s.u[i] * s.u[i] + s.v[i] * s.v[i]);
        e += sp.gravity * s.y[i] + q;
        ke += q;
      }
    if (kinetic) *kinetic = ke;
    return e;
  };
  const double e0 = energy(nullptr);
  const int steps = static_cast<int>(std::ceil(1.0 / std::sqrt(2 * sp.gravity / a) / sim.dt()));
  for (int s = 0; s < steps; ++s) sim.step(timer);
  double ke = 0;
  const double e1 = energy(&ke);
  std::printf("dam break a/10, %d steps to T = 1: mechanical energy drift %.2e, kinetic / initial %.3f\n", steps,
              (e1 - e0) / e0, ke / e0);
  // Measured: drift -2.2e-3 (a/20: -4e-4), kinetic 0.154 of E0 (the column has collapsed).
  EXPECT_TRUE(std::fabs(e1 - e0) / e0 <= 0.01);
  EXPECT_TRUE(ke / e0 >= 0.1);
}
