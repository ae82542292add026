// What the distributed simulation asks of every backend between rebuilds (README, "Distributed
// runs"): the displacement since remember_positions and the active count over the owned particles
// (load index < owned), whatever the bucket reordering did to the storage. Run under the label gpu
// too, where it covers the device reductions.
#include <cmath>

#include "copa/backend.hpp"
#include "copa/testing.hpp"
#include "kernels.hpp"

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
