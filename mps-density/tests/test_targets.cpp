// Over MPI ranks a rank's particles are its owned ones followed by its ghosts (Problem::ghosts),
// and the neighbour sums evaluate only the owned ones as targets while every particle is a source
// (README, "Distributed runs"). Here every output slot is set to NaN before each operator: an owned
// target that a strategy skipped keeps its NaN and fails the comparison with the brute-force sums
// over the whole cloud, and a ghost that it evaluated loses its NaN and fails the NaN check. Every
// strategy of every built backend, reorder on and off (the bucket reordering interleaves owned
// particles and ghosts in storage); under the label gpu the GPU strategies and FP32 kernels too.
#include <algorithm>
#include <cmath>
#include <limits>

#include "copa/testing.hpp"
#include "kernels.hpp"
#include "variants.hpp"
#include "strategy_fixture.hpp"

namespace {

using mps::Field;
using mps::test::gpu_present;
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// A random cloud (3D) and a 2D lattice with walls, dummies, velocities and pressures; the last
// quarter in load order are ghosts: scattered over the cloud, a band of rows of the lattice.
std::vector<mps::Problem> problems() {
  auto cloud = mps::random_cloud_problem(3, 3000, 14.0, 3.1, 11u);
  cloud.re = 2.1;
  auto lat = mps::lattice_problem(2, 3.1, 36);
  lat.re = 2.1;
  for (auto* pr : {&cloud, &lat}) {
    auto& ps = pr->particles;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      ps.u[i] = std::sin(0.3 * ps.x[i]) + 0.1 * std::cos(0.7 * ps.y[i]);
      ps.v[i] = std::cos(0.2 * ps.y[i]) - 0.2 * std::sin(0.5 * ps.x[i]);
      ps.w[i] = ps.dim == 3 ? 0.1 * ps.z[i] : 0.0;
      ps.p[i] = 100.0 + ps.y[i] * 10.0 + ps.x[i];
      if (i % 13 == 0) ps.type[i] = mps::wall;
      if (i % 17 == 0) ps.type[i] = mps::dummy;
    }
  }
  return {cloud, lat};
}

struct Outputs {
  std::vector<std::vector<double>> fields;  // n; lap ax ay az; grad ax ay az; coll ax ay az; PPE y
};

// Each operator with its outputs set to NaN first; after ppe_setup the pressures are set to the
// reference's (`p_all`), as the ghost refresh of a distributed run does (ppe_setup zeroes p where
// n is below the surface threshold, and the ghosts' n is not computed).
Outputs run_ops(mps::MpsKernels& k, std::size_t n, const std::vector<double>* p_all, double threshold, double nmax,
                const mps::Problem& pr, bool density_only) {
  const std::vector<double> poison(n, nan);
  Outputs o;
  k.set(Field::n, poison);
  k.number_density(pr.re);
  o.fields.push_back(k.get(Field::n));
  if (density_only) return o;
  auto three = [&](auto&& op) {
    for (Field f : {Field::ax, Field::ay, Field::az}) k.set(f, poison);
    op();
    for (Field f : {Field::ax, Field::ay, Field::az}) o.fields.push_back(k.get(f));
  };
  three([&] { k.velocity_laplacian(pr.re_lap, 0.7); });
  three([&] { k.pressure_gradient(pr.re, 0.3); });
  three([&] { k.collision(0.9 * pr.l0, 0.2); });
  k.ppe_setup(threshold, nmax, 1.0);
  if (p_all) k.set(Field::p, *p_all);
  k.set(Field::adir, poison);
  k.ppe_apply(Field::p, Field::adir, pr.re_lap, 1.3, 0.01);
  o.fields.push_back(k.get(Field::adir));
  return o;
}

}  // namespace

TEST(Targets, only_owned_particles_are_evaluated) {
  for (const auto& whole : problems()) {
    const std::size_t n = whole.particles.size(), owned = n - n / 4;
    // The reference: brute force over the whole cloud, every particle a target.
    mps::KernelOptions bo;
    bo.strategy = mps::Strategy::brute;
    auto oracle = mps::make_kernels(copa::Backend::serial, bo);
    oracle->load(whole, whole.re_lap);
    oracle->prepare_neighbours(true);
    oracle->number_density(whole.re);
    double nmin = 1e300, nmax = -1e300;
    for (double v : oracle->get(Field::n)) nmin = std::min(nmin, v), nmax = std::max(nmax, v);
    const double threshold = 0.5 * (nmin + nmax);  // a surface: some particles inactive, some active
    const Outputs ref = run_ops(*oracle, n, nullptr, threshold, nmax, whole, false);
    const auto p_ref = oracle->get(Field::p);  // after its ppe_setup: zero off the active set

    mps::Problem pr = whole;
    pr.ghosts = n - owned;
    struct Case {
      copa::Backend backend;
      std::string variant;
      copa::Precision precision;
    };
    std::vector<Case> cases;
    for (auto b : copa::built_backends()) {
      if (copa::is_gpu(b) && !gpu_present()) continue;
      for (const auto& name : mps::registry().names(b)) cases.push_back({b, name, copa::Precision::fp64});
      if (copa::is_gpu(b))
        for (const char* name : {"sorted-particle", "fine-rows", "fine-lean"})
          cases.push_back({b, name, copa::Precision::fp32});
    }
    for (const auto& c : cases)
      for (bool reorder : {true, false}) {
        mps::KernelOptions ko;
        ko.strategy = mps::strategy_named(c.variant);
        ko.reorder = reorder;
        ko.precision = c.precision;
        const bool fp32 = c.precision == copa::Precision::fp32;
        auto k = mps::make_kernels(c.backend, ko);
        k->load(pr, pr.re_lap);
        k->prepare_neighbours(true);
        const Outputs got = run_ops(*k, n, &p_ref, threshold, nmax, pr, fp32);
        const double tolerance = fp32 ? 1e-5 : 1e-12;
        for (std::size_t f = 0; f < got.fields.size(); ++f) {
          double scale = 0, err = 0;
          bool owned_nan = false, ghost_written = false;
          for (std::size_t i = 0; i < n; ++i) {
            const double v = got.fields[f][i];
            if (i >= owned) {
              ghost_written = ghost_written || !std::isnan(v);
              continue;
            }
            owned_nan = owned_nan || std::isnan(v);
            scale = std::max(scale, std::fabs(ref.fields[f][i]));
            err = std::max(err, std::fabs(v - ref.fields[f][i]));
          }
          const double rel = scale > 0 ? err / scale : err;
          if (owned_nan || ghost_written || !(rel <= tolerance))
            std::cerr << copa::to_string(c.backend) << " " << c.variant << (fp32 ? " fp32" : "") << " reorder " << reorder
                      << " dim " << pr.grid.dim << " field " << f << ": owned NaN " << owned_nan << ", ghost written "
                      << ghost_written << ", max rel diff " << rel << "\n";
          EXPECT_TRUE(!owned_nan);
          EXPECT_TRUE(!ghost_written);
          EXPECT_TRUE(rel <= tolerance);
        }
      }
  }
}

// The cost rows count the owned targets' work: the neighbours within r_e that the statistics
// report are exactly the ordered pairs (owned target, any source), counted here by brute force.
TEST(Targets, statistics_count_owned_targets_only) {
  for (const auto& whole : problems()) {
    const auto& ps = whole.particles;
    const std::size_t n = ps.size(), owned = n - n / 4;
    mps::Problem pr = whole;
    pr.ghosts = n - owned;
    double pairs = 0;
    const double re2 = whole.re * whole.re;
    for (std::size_t i = 0; i < owned; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        const double dx = ps.x[j] - ps.x[i], dy = ps.y[j] - ps.y[i], dz = ps.z[j] - ps.z[i];
        pairs += j != i && dx * dx + dy * dy + dz * dz < re2;
      }
    for (auto s : {mps::Strategy::sorted_particle, mps::Strategy::fine_rows, mps::Strategy::verlet, mps::Strategy::brute}) {
      const auto part = mps::neighbour_statistics(pr, s, whole.re, whole.re + 0.3);
      const auto all = mps::neighbour_statistics(whole, s, whole.re, whole.re + 0.3);
      EXPECT_TRUE(part.neighbours == pairs);
      EXPECT_TRUE(part.candidates > 0 && part.candidates < all.candidates);
      if (s == mps::Strategy::brute) {
        EXPECT_TRUE(part.candidates == static_cast<double>(owned) * (n - 1));
      }
    }
  }
}
