// GPU --rebucket fused (three launches: count, a scan whose last block scans the block totals, a
// scatter that writes the bucket starts): every GPU strategy, reorder on and off, must give the
// serial sorted-particle sums (the bucket oracle, itself checked against the brute force in
// test_strategies) to 1e-12, after several rebucketings in a row (the counts and the scan's ticket
// are reset by the kernels themselves), on a cloud whose fine grid needs hundreds of scan blocks.
// Skipped without a GPU (cpu label).
#include <iostream>

#include "copa/testing.hpp"
#include "kernels.hpp"
#include "strategy_fixture.hpp"

namespace {

// Density, then the Laplacian after the particles were rebucketed twice more.
std::vector<std::vector<double>> sums(copa::Backend b, const mps::KernelOptions& ko, const mps::Problem& pr) {
  auto k = mps::make_kernels(b, ko);
  k->load(pr, pr.re_lap);
  k->prepare_neighbours(true);
  k->number_density(pr.re);
  std::vector<std::vector<double>> out{k->get(mps::Field::n)};
  k->prepare_neighbours(true);
  k->prepare_neighbours(true);
  k->velocity_laplacian(pr.re_lap, 0.7);
  for (mps::Field f : {mps::Field::ax, mps::Field::ay, mps::Field::az}) out.push_back(k->get(f));
  return out;
}

}  // namespace

TEST(FusedRebucket, every_gpu_strategy_matches_the_serial_bucket_sums) {
  if (!mps::test::gpu_present()) GTEST_SKIP() << "no GPU";
  // 30,000 particles in a 60^3 box, r = 2.1: 31^3 buckets (30 scan blocks of 1024), 62^3 fine
  // buckets (233 scan blocks), so the last block scans many block totals.
  auto pr = mps::random_cloud_problem(3, 30000, 60.0, 2.1, 13u);
  mps::KernelOptions oracle;
  oracle.strategy = mps::Strategy::sorted_particle;
  const auto ref = sums(copa::Backend::serial, oracle, pr);
  int checked = 0;
  mps::test::for_each_runnable_variant([&](copa::Backend b, const std::string& name, mps::KernelOptions ko) {
    if (!copa::is_gpu(b)) return;
    ko.fused_rebucket = true;
    const double d = mps::test::max_rel_diff(ref, sums(b, ko, pr));
    if (d > 1e-12) std::cerr << name << " fused, reorder " << ko.reorder << ": " << d << " from the serial bucket sums\n";
    EXPECT_TRUE(d <= 1e-12);
    ++checked;
  });
  EXPECT_TRUE(checked > 0);
}
