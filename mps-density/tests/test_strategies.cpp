// Every strategy of every built backend against the brute-force O(N^2) sums of the serial oracle,
// on random clouds (2D, 3D) and lattices, for all neighbour ops; verlet under motion.
#include <algorithm>
#include <array>
#include <random>

#include "copa/testing.hpp"
#include "buckets.hpp"
#include "kernels.hpp"
#include "neighbour_loops.hpp"
#include "strategy_fixture.hpp"

namespace {

using mps::Field;
using mps::test::gpu_present;
using mps::test::max_rel_diff;

// The neighbour sums of one evaluation, one vector per output field.
using Results = std::vector<std::vector<double>>;

// All neighbour sums for one backend/strategy; radii: density/gradient re, Laplacian/PPE re_lap.
Results evaluate(copa::Backend b, const mps::KernelOptions& ko, const mps::Problem& pr) {
  auto k = mps::make_kernels(b, ko);
  k->load(pr, pr.re_lap);
  k->prepare_neighbours(true);
  Results r;
  const double re = pr.re, rl = pr.re_lap;
  k->number_density(re);
  r.push_back(k->get(Field::n));
  k->velocity_laplacian(rl, 0.7);
  for (Field f : {Field::ax, Field::ay, Field::az}) r.push_back(k->get(f));
  k->pressure_gradient(re, 0.3);
  for (Field f : {Field::ax, Field::ay, Field::az}) r.push_back(k->get(f));
  k->collision(0.9 * pr.l0, 0.2);
  for (Field f : {Field::ax, Field::ay, Field::az}) r.push_back(k->get(f));
  // PPE operator on an active set from the density (threshold between min and max of n).
  const auto n = r[0];
  double nmin = 1e300, nmax = -1e300;
  for (double v : n) nmin = std::min(nmin, v), nmax = std::max(nmax, v);
  k->ppe_setup(0.5 * (nmin + nmax), nmax, 1.0);
  k->ppe_apply(Field::p, Field::adir, rl, 1.3, 0.01);
  r.push_back(k->get(Field::adir));
  r.push_back(k->get(Field::rhs));
  return r;
}

std::vector<mps::Problem> problems() {
  std::vector<mps::Problem> ps;
  for (int dim : {2, 3}) {
    auto pr = mps::random_cloud_problem(dim, dim == 2 ? 3000 : 4000, dim == 2 ? 50.0 : 15.0, 3.1, 7u);
    pr.re = 2.1;
    ps.push_back(pr);
    auto lat = mps::lattice_problem(dim, 3.1, dim == 2 ? 40 : 14);
    lat.re = 2.1;
    // velocities and pressures on the lattice so every op has something to sum
    for (std::size_t i = 0; i < lat.particles.size(); ++i) {
      lat.particles.u[i] = std::sin(0.3 * lat.particles.x[i]);
      lat.particles.v[i] = std::cos(0.2 * lat.particles.y[i]);
      lat.particles.w[i] = dim == 3 ? 0.1 * lat.particles.z[i] : 0.0;
      lat.particles.p[i] = 100.0 + lat.particles.y[i] * 10.0;
      if (i % 13 == 0) lat.particles.type[i] = mps::wall;
      if (i % 17 == 0) lat.particles.type[i] = mps::dummy;
    }
    ps.push_back(lat);
  }
  return ps;
}

}  // namespace

TEST(Strategies, all_strategies_match_brute_force) {
  mps::KernelOptions brute;
  brute.strategy = mps::Strategy::brute;
  for (const auto& pr : problems()) {
    const Results ref = evaluate(copa::Backend::serial, brute, pr);
    mps::test::for_each_runnable_variant([&](copa::Backend b, const std::string& name, const mps::KernelOptions& ko) {
      const double d = max_rel_diff(ref, evaluate(b, ko, pr));
      if (d > 1e-12)
        std::cerr << copa::to_string(b) << " " << name << " reorder " << ko.reorder << " dim " << pr.grid.dim << " "
                  << pr.name << ": " << d << "\n";
      EXPECT_TRUE(d <= 1e-12);
    });
  }
}

// GPU --rebucket stable: every strategy still matches the brute force, and two evaluations from a
// fresh load agree bitwise (no order-dependent atomics left). Host backends are always stable.
TEST(Strategies, stable_rebucketing_is_bitwise_reproducible) {
  mps::KernelOptions brute;
  brute.strategy = mps::Strategy::brute;
  for (const auto& pr : problems()) {
    const Results ref = evaluate(copa::Backend::serial, brute, pr);
    mps::test::for_each_runnable_variant([&](copa::Backend b, const std::string& name, mps::KernelOptions ko) {
      ko.stable_buckets = true;
      const Results first = evaluate(b, ko, pr), second = evaluate(b, ko, pr);
      const double d = max_rel_diff(ref, first), again = max_rel_diff(first, second);
      if (d > 1e-12 || again != 0)
        std::cerr << copa::to_string(b) << " " << name << " stable, reorder " << ko.reorder << " dim " << pr.grid.dim
                  << " " << pr.name << ": vs brute " << d << ", run to run " << again << "\n";
      EXPECT_TRUE(d <= 1e-12);
      EXPECT_TRUE(again == 0);
    });
  }
}

// Verlet lists stay valid while particles move less than skin/2 and are rebuilt after.
TEST(Strategies, verlet_rebuild_under_motion) {
  auto pr = mps::random_cloud_problem(3, 3000, 14.0, 2.1, 3u);
  for (auto b : copa::built_backends()) {
    if (copa::is_gpu(b) && !gpu_present()) continue;
    mps::KernelOptions ko;
    ko.strategy = mps::Strategy::verlet;
    ko.skin = 0.4;
    auto k = mps::make_kernels(b, ko);
    mps::KernelOptions bo;
    bo.strategy = mps::Strategy::brute;
    auto oracle = mps::make_kernels(copa::Backend::serial, bo);
    k->load(pr, pr.re);
    k->prepare_neighbours(true);
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> d(-0.05, 0.05);
    auto x = k->get(Field::x), y = k->get(Field::y), z = k->get(Field::z);
    for (int step = 0; step < 8; ++step) {
      for (std::size_t i = 0; i < x.size(); ++i) x[i] += d(rng), y[i] += d(rng), z[i] += d(rng);
      k->set(Field::x, x);
      k->set(Field::y, y);
      k->set(Field::z, z);
      k->prepare_neighbours(false);
      k->number_density(pr.re);
      auto moved = pr;
      moved.particles.x = x;
      moved.particles.y = y;
      moved.particles.z = z;
      oracle->load(moved, pr.re);
      oracle->number_density(pr.re);
      const auto a = k->get(Field::n), r = oracle->get(Field::n);
      double err = 0;
      for (std::size_t i = 0; i < a.size(); ++i) err = std::max(err, std::fabs(a[i] - r[i]) / std::max(1.0, r[i]));
      if (err > 1e-12) std::cerr << "step " << step << " rebuilds " << k->list_rebuilds() << " err " << err << "\n";
      EXPECT_TRUE(err <= 1e-12);
    }
    // 8 steps of up to 0.087 each: more than skin/2 = 0.2 after a few steps, fewer than 8 rebuilds
    EXPECT_TRUE(k->list_rebuilds() > 1 && k->list_rebuilds() < 9);
  }
}
