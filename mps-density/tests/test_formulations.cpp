// The operators of the published formulations (simulation.hpp, `--formulation`; neighbour_ops.hpp):
// Khayyer & Gotoh's CMPS gradient, HS source and HL Laplacian, on a 2D lattice of spacing 1
// (r_e = 2.1), uniform or with every particle displaced. Each property below is one that a wrong
// sign, radius, factor or pair term breaks; every built backend (under the label gpu the GPU's)
// must give the serial brute-force sums to round-off.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "copa/backend.hpp"
#include "copa/testing.hpp"
#include "kernels.hpp"
#include "reference.hpp"

namespace {

using mps::Field;
constexpr int m = 20;          // lattice points per side
constexpr double re = 2.1;     // radius, in units of the spacing

// The lattice, its particles displaced by up to `jitter` (deterministic), with velocities u(x, y)
// and pressures p(x, y) given by the callers.
mps::Problem lattice(double jitter) {
  auto pr = mps::lattice_problem(2, re, m);
  auto& ps = pr.particles;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    ps.x[i] += jitter * std::sin(12.9898 * i);
    ps.y[i] += jitter * std::cos(78.233 * i);
  }
  return pr;
}

std::unique_ptr<mps::MpsKernels> loaded(copa::Backend b, const mps::Problem& pr, mps::Strategy s) {
  mps::KernelOptions o;
  o.strategy = s;
  auto k = mps::make_kernels(b, o);
  k->load(pr, re);
  k->prepare_neighbours(true);
  return k;
}

// Every particle is a target of the PPE (n_surface below any n); rhs is then overwritten by HS.
std::vector<double> hs_rate(mps::MpsKernels& k) {
  k.number_density(re);
  k.ppe_setup(-1.0, 1.0, 0.0);
  k.ppe_source_hs(re, 1.0);  // coef 1: rhs = -sum r_e / r^3 (r_ij . u_ij) = Dn/Dt
  return k.get(Field::rhs);
}

double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::fabs(v));
  return m;
}

bool interior(const mps::Particles& ps, std::size_t i, double margin) {
  return ps.x[i] >= margin && ps.x[i] <= m - 1 - margin && ps.y[i] >= margin && ps.y[i] <= m - 1 - margin;
}

}  // namespace

// HS's source is the rate of the number density: with the particles moved by +-h u, the central
// difference (n(+h) - n(-h)) / 2h tends to the op's Dn/Dt: error O(h^2) plus round-off, 1e-16 n / h,
// as long as no pair crosses r_e, where w' jumps from -1/r_e to 0 (a pair of this set-up lies
// 2.2e-6 from r_e, and |h u| stays below 6e-7). Measured at h = 1e-7: 1.9e-8 of max |Dn/Dt|. A uniform
// velocity moves no particle relative to another: Dn/Dt = 0.
TEST(Formulations, hs_source_is_the_rate_of_the_number_density) {
  auto pr = lattice(0.2);
  auto& ps = pr.particles;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    ps.u[i] = std::sin(0.3 * ps.x[i]) + 0.2 * ps.y[i];
    ps.v[i] = std::cos(0.2 * ps.y[i]) - 0.1 * ps.x[i] * ps.x[i] / m;
  }
  const auto rate = hs_rate(*loaded(copa::Backend::serial, pr, mps::Strategy::brute));
  const double h = 1e-7;
  auto density_at = [&](double s) {
    auto moved = pr;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      moved.particles.x[i] += s * ps.u[i];
      moved.particles.y[i] += s * ps.v[i];
    }
    auto k = loaded(copa::Backend::serial, moved, mps::Strategy::brute);
    k->number_density(re);
    return k->get(Field::n);
  };
  const auto plus = density_at(h), minus = density_at(-h);
  double err = 0;
  for (std::size_t i = 0; i < ps.size(); ++i) err = std::max(err, std::fabs((plus[i] - minus[i]) / (2 * h) - rate[i]));
  std::printf("HS: max |finite difference - Dn/Dt| / max |Dn/Dt| = %.2e (max |Dn/Dt| %.3f)\n", err / max_abs(rate), max_abs(rate));
  EXPECT_TRUE(max_abs(rate) > 1.0);
  EXPECT_TRUE(err <= 1e-6 * max_abs(rate));

  for (std::size_t i = 0; i < ps.size(); ++i) {
    ps.u[i] = 0.7;
    ps.v[i] = -0.3;
  }
  EXPECT_TRUE(max_abs(hs_rate(*loaded(copa::Backend::serial, pr, mps::Strategy::brute))) == 0.0);
}

// CMPS's pair term is antisymmetric: the pressure forces of the whole set sum to zero (linear
// momentum), where the standard minimum-pressure gradient's do not. On the uniform lattice a
// linear p has p - p^ the same at every interior particle, so CMPS's interior gradient vanishes
// while the standard one is exact: CMPS's force comes from disorder and the surface (p^ = 0 there).
TEST(Formulations, cmps_gradient_conserves_momentum_and_is_not_linear_exact) {
  const double n0 = mps::lattice_constants(2, re).n0, coef = 2 / n0;
  auto pr = lattice(0.2);
  auto& ps = pr.particles;
  for (std::size_t i = 0; i < ps.size(); ++i) ps.p[i] = 1000.0 + 50.0 * std::sin(0.4 * ps.x[i] + 0.3 * ps.y[i] * ps.y[i]);
  auto sum_and_scale = [&](bool cmps, double* scale) {
    auto k = loaded(copa::Backend::serial, pr, mps::Strategy::brute);
    cmps ? k->pressure_gradient_cmps(re, coef) : k->pressure_gradient(re, coef);
    const auto gx = k->get(Field::ax), gy = k->get(Field::ay);
    double sx = 0, sy = 0;
    *scale = 0;
    for (std::size_t i = 0; i < gx.size(); ++i) sx += gx[i], sy += gy[i], *scale += std::hypot(gx[i], gy[i]);
    return std::hypot(sx, sy);
  };
  double scale_cmps = 0, scale_std = 0;
  const double net_cmps = sum_and_scale(true, &scale_cmps), net_std = sum_and_scale(false, &scale_std);
  std::printf("net pressure force / sum |force|: CMPS %.2e, standard %.2e\n", net_cmps / scale_cmps, net_std / scale_std);
  EXPECT_TRUE(scale_cmps > 0);
  EXPECT_TRUE(net_cmps <= 1e-12 * scale_cmps);
  EXPECT_TRUE(net_std >= 1e-3 * scale_std);

  auto uniform = lattice(0.0);
  const double ax = 3.0, ay = -2.0;
  for (std::size_t i = 0; i < uniform.particles.size(); ++i)
    uniform.particles.p[i] = 100.0 + ax * uniform.particles.x[i] + ay * uniform.particles.y[i];
  for (bool cmps : {true, false}) {
    auto k = loaded(copa::Backend::serial, uniform, mps::Strategy::brute);
    cmps ? k->pressure_gradient_cmps(re, coef) : k->pressure_gradient(re, coef);
    const auto gx = k->get(Field::ax), gy = k->get(Field::ay);
    double err = 0;
    int count = 0;
    for (std::size_t i = 0; i < gx.size(); ++i) {
      if (!interior(uniform.particles, i, 2 * re + 1)) continue;
      err = std::max(err, cmps ? std::hypot(gx[i], gy[i]) : std::hypot(gx[i] - ax, gy[i] - ay));
      ++count;
    }
    EXPECT_TRUE(count >= 64);
    EXPECT_TRUE(err <= 1e-10 * std::hypot(ax, ay));
  }
}

// HL's PPE operator (1/n0) sum r_e / r^3 (x_i - x_j) is symmetric (CG needs it) and, for
// phi = x^2 + y^2 on the uniform lattice, gives -(n0 + N)/n0 at an interior particle
// (sum r_e / r = sum (w + 1); N the neighbours within r_e): -2.835 at r_e = 2.1 against the exact
// -lap phi = -4 that the standard operator 2d/(lambda0 n0) sum w reproduces (lambda0's definition).
TEST(Formulations, hl_laplacian_is_symmetric_with_its_lattice_value) {
  const auto c = mps::lattice_constants(2, re);
  auto uniform = lattice(0.0);
  auto& ps = uniform.particles;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    ps.p[i] = ps.x[i] * ps.x[i] + ps.y[i] * ps.y[i];
    ps.u[i] = std::sin(0.5 * ps.x[i]) * ps.y[i];  // a second field for the symmetry
  }
  for (bool hl : {true, false}) {
    auto k = loaded(copa::Backend::serial, uniform, mps::Strategy::brute);
    k->number_density(re);
    k->ppe_setup(-1.0, 1.0, 0.0);
    k->use_higher_order_laplacian(hl);
    const double coef = hl ? 1.0 / c.n0 : 4.0 / (c.lambda0 * c.n0);
    k->ppe_apply(Field::p, Field::adir, re, coef, 0.0);
    const auto a_phi = k->get(Field::adir);
    int neighbours = 0;
    for (int i = -3; i <= 3; ++i)
      for (int j = -3; j <= 3; ++j) neighbours += (i || j) && i * i + j * j < re * re;
    const double expect = hl ? -(c.n0 + neighbours) / c.n0 : -4.0;
    double err = 0;
    for (std::size_t i = 0; i < ps.size(); ++i)
      if (interior(ps, i, re + 1)) err = std::max(err, std::fabs(a_phi[i] - expect));
    std::printf("%s: A (x^2 + y^2) = %.4f in the interior (error %.1e)\n", hl ? "HL" : "standard", expect, err);
    EXPECT_TRUE(err <= 1e-10 * std::fabs(expect));
    // Symmetry: psi . A phi = phi . A psi.
    k->set(Field::dir, k->get(Field::u));
    k->ppe_apply(Field::dir, Field::res, re, coef, 0.0);
    const auto a_psi = k->get(Field::res), phi = k->get(Field::p), psi = k->get(Field::u);
    double l = 0, r = 0, scale = 0;
    for (std::size_t i = 0; i < ps.size(); ++i) l += psi[i] * a_phi[i], r += phi[i] * a_psi[i], scale += std::fabs(psi[i] * a_phi[i]);
    EXPECT_TRUE(std::fabs(l - r) <= 1e-12 * scale);
  }
}

// Every built backend with its default strategy gives the serial brute-force sums of the three
// new operators (CMPS gradient, HS source, HL operator) on the displaced lattice.
TEST(Formulations, every_backend_matches_serial_brute_force) {
  const auto c = mps::lattice_constants(2, re);
  auto pr = lattice(0.25);
  auto& ps = pr.particles;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    ps.u[i] = std::sin(0.3 * ps.x[i]) + 0.2 * ps.y[i];
    ps.v[i] = std::cos(0.2 * ps.y[i]);
    ps.p[i] = 1000.0 + 30.0 * std::cos(0.5 * ps.x[i] - 0.2 * ps.y[i]);
    if (i % 11 == 0) ps.type[i] = mps::wall;
    if (i % 23 == 0) ps.type[i] = mps::dummy;
  }
  auto fields = [&](copa::Backend b, mps::Strategy s) {
    auto k = loaded(b, pr, s);
    std::vector<std::vector<double>> out;
    out.push_back(hs_rate(*k));
    k->use_higher_order_laplacian(true);
    k->ppe_apply(Field::p, Field::adir, re, 1.0 / c.n0, 0.0);
    out.push_back(k->get(Field::adir));
    k->pressure_gradient_cmps(re, 2 / c.n0);
    out.push_back(k->get(Field::ax));
    out.push_back(k->get(Field::ay));
    return out;
  };
  const auto oracle = fields(copa::Backend::serial, mps::Strategy::brute);
  for (auto b : copa::built_backends())
    for (auto s : {mps::Strategy::sorted_particle, mps::Strategy::verlet}) {
      const auto got = fields(b, s);
      for (std::size_t f = 0; f < oracle.size(); ++f) {
        double err = 0;
        for (std::size_t i = 0; i < oracle[f].size(); ++i) err = std::max(err, std::fabs(got[f][i] - oracle[f][i]));
        EXPECT_TRUE(err <= 1e-12 * max_abs(oracle[f])) << copa::to_string(b) << " " << mps::to_string(s) << " field " << f;
      }
    }
}
