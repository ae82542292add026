// What the distributed simulation asks of every backend between rebuilds (README, "Distributed
// runs"): the displacement since remember_positions and the active count over the owned particles
// (load index < owned), whatever the bucket reordering did to the storage; and a rank that holds
// no particle at all must run every operation of the step (GPU: no launch of an empty grid). Run
// under the label gpu too, where it covers the device reductions and the empty-rank guards.
#include <algorithm>
#include <cmath>

#include "copa/backend.hpp"
#include "copa/testing.hpp"
#include "kernels.hpp"
#include "variants.hpp"

TEST(RankState, displacement_and_active_count_select_by_load_index) {
  const auto pr = mps::random_cloud_problem(3, 3000, 14.0, 2.1, 7u);
  const std::size_t n = pr.particles.size(), owned = n / 2;
  for (auto be : copa::built_backends()) {
    auto k = mps::make_kernels(be, mps::KernelOptions{});
    k->load(pr, pr.re);
    k->prepare_neighbours(true);  // reorders the storage by bucket
    k->remember_positions(owned);
    EXPECT_TRUE(k->max_displacement(owned) == 0.0);
    // Move the last owned particle by 0.3 (x) and 0.4 (y), the first one not owned by 2.0.
    auto x = k->get(mps::Field::x), y = k->get(mps::Field::y);
    const double dx = (x[owned - 1] + 0.3) - x[owned - 1], dy = (y[owned - 1] + 0.4) - y[owned - 1];
    x[owned - 1] += 0.3;
    y[owned - 1] += 0.4;
    x[owned] += 2.0;
    k->set(mps::Field::x, x);
    k->set(mps::Field::y, y);
    k->prepare_neighbours(true);
    const double got = k->max_displacement(owned), want = std::sqrt(dx * dx + dy * dy);
    EXPECT_TRUE(std::fabs(got - want) <= 1e-15 * want);
    k->remember_positions(n);
    EXPECT_TRUE(k->max_displacement(n) == 0.0);

    k->number_density(pr.re);
    const auto nd = k->get(mps::Field::n);
    mps::Particles ps;
    k->store(ps);
    double mean = 0;
    for (double v : nd) mean += v / static_cast<double>(n);
    const std::size_t active = k->ppe_setup(mean, mean, 1.0);
    std::size_t want_owned = 0, want_all = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const bool a = ps.type[i] != mps::dummy && nd[i] >= mean;
      want_all += a;
      want_owned += a && i < owned;
    }
    EXPECT_TRUE(active == want_all);
    EXPECT_TRUE(k->count_active(n) == want_all);
    EXPECT_TRUE(k->count_active(owned) == want_owned);
    EXPECT_TRUE(want_owned > 0 && want_owned < want_all);
  }
}

TEST(RankState, kernels_with_no_particle_run_every_operation) {
  auto pr = mps::dambreak_problem(2, 0.1, 0.02, 0);
  pr.particles = mps::Particles();
  pr.particles.dim = 2;
  const double g[3] = {0.0, -9.81, 0.0};
  for (auto be : copa::built_backends())
    for (const char* variant : {"sorted-particle", "verlet", "fine-rows"}) {
      mps::KernelOptions ko;
      ko.strategy = mps::strategy_named(variant);
      auto k = mps::make_kernels(be, ko);
      k->load(pr, std::max(pr.re, pr.re_lap));
      k->prepare_neighbours(true);
      k->velocity_laplacian(pr.re_lap, 1.0);
      k->predictor(1e-3, 1e-6, g);
      k->prepare_neighbours(false);
      k->collision(0.5 * pr.l0, 0.2);
      k->correct(1.0, 1e-3);
      k->number_density(pr.re);
      EXPECT_TRUE(k->ppe_setup(1.0, 1.0, 1.0) == 0);
      const auto cg = k->ppe_cg(pr.re_lap, 1.0, 1.0, 1e-8, 10);
      EXPECT_TRUE(cg.iterations == 0);
      k->clamp_negative_pressure();
      k->pressure_gradient(pr.re, 1.0);
      k->axpy(1.0, mps::Field::p, mps::Field::res);
      k->xpay(mps::Field::p, 1.0, mps::Field::res);
      k->copy(mps::Field::p, mps::Field::res);
      EXPECT_TRUE(k->dot(mps::Field::p, mps::Field::p) == 0.0);
      EXPECT_TRUE(k->dot_owned(mps::Field::p, mps::Field::p, 0) == 0.0);
      k->remember_positions(0);
      EXPECT_TRUE(k->max_displacement(0) == 0.0);
      EXPECT_TRUE(k->count_active(0) == 0);
      k->check_state();
      EXPECT_TRUE(k->get(mps::Field::x).empty());
      mps::Particles out;
      k->store(out);
      EXPECT_TRUE(out.size() == 0);
    }
}
