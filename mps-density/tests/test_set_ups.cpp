// The sizes the memory estimate uses against the set-ups actually built, the stable host bucket
// sort, and the literature scatter of the dam-break references.
#include <algorithm>
#include <cmath>

#include "buckets.hpp"
#include "copa/testing.hpp"
#include "particles.hpp"
#include "reference.hpp"

namespace {
void check_size(const mps::ProblemSize& size, const mps::Problem& pr) {
  EXPECT_TRUE(size.particles == static_cast<double>(pr.particles.size()));
  EXPECT_TRUE(size.buckets == static_cast<double>(pr.grid.cells()));
}
}  // namespace

TEST(SetUps, set_up_sizes_match_the_built_set_ups) {
  check_size(mps::dambreak_size(2, 0.1, 0.005, 0), mps::dambreak_problem(2, 0.1, 0.005, 0));
  check_size(mps::dambreak_size(3, 0.1, 0.01, 6), mps::dambreak_problem(3, 0.1, 0.01, 6));
  check_size(mps::pflow_size(224910), mps::pflow_problem(224910));
  check_size(mps::pflow_size(600000), mps::pflow_problem(600000));
  check_size(mps::lattice_size(3, 2.1, 10), mps::lattice_problem(3, 2.1, 10));
  check_size(mps::lattice_size(2, 4.0, 25), mps::lattice_problem(2, 4.0, 25));
  check_size(mps::random_cloud_size(3, 5000, std::cbrt(5000.0), 3.1), mps::random_cloud_problem(3, 5000, std::cbrt(5000.0), 3.1, 7u));
}

// The OpenMP bucket build (atomic scatter, then each bucket sorted) gives the serial order.
TEST(SetUps, parallel_bucket_sort_is_the_serial_order) {
  const auto pr = mps::random_cloud_problem(3, 20000, std::cbrt(20000.0), 2.1, 11u);
  const auto& p = pr.particles;
  const int n = static_cast<int>(p.size());
  std::vector<int> s1, o1, c1, s2, o2, c2;
  mps::build_buckets(pr.grid, p.x.data(), p.y.data(), p.z.data(), n, false, s1, o1, c1);
  mps::build_buckets(pr.grid, p.x.data(), p.y.data(), p.z.data(), n, true, s2, o2, c2);
  EXPECT_TRUE(s1 == s2);
  EXPECT_TRUE(o1 == o2);
}

// The scatter of the literature on [1, 3], checked against a dense sampling of both tables.
TEST(SetUps, front_reference_scatter_is_the_largest_distance) {
  double dense = 0;
  for (int k = 0; k <= 20000; ++k) {
    const double T = 1.0 + 2.0 * k / 20000;
    dense = std::max(dense, std::fabs(mps::koshizuka_oka_Z(T) - mps::martin_moyce_Z(T)) / mps::martin_moyce_Z(T));
  }
  const double scatter = mps::front_reference_scatter(1.0, 3.0);
  EXPECT_TRUE(scatter >= dense);
  EXPECT_TRUE(scatter - dense < 1e-9);
  EXPECT_TRUE(scatter > 0.09 && scatter < 0.092);  // at T = 2.719: 3.003 against 3.304
}
