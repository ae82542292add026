// GPU --rebucket fused (three launches: count, a scan whose last block scans the block totals, a
// scatter that writes the bucket starts): every GPU strategy, reorder on and off, must give the
// serial sorted-particle sums (the bucket oracle, itself checked against the brute force in
// test_strategies) to 1e-12, after several rebucketings in a row (the counts and the scan's ticket
// are reset by the kernels themselves), on a cloud whose fine grid needs hundreds of scan blocks.
// Skipped without a GPU (cpu label).
#include <algorithm>
#include <cmath>
#include <iostream>

#include "copa/testing.hpp"
#include "kernels.hpp"
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
#include "copa/gpu.hpp"
#endif

namespace {

bool gpu_present() {
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
  return copa::gpu::device_count() > 0;
#else
  return false;
#endif
}

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

double max_rel_diff(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  double worst = 0;
  for (std::size_t f = 0; f < a.size(); ++f) {
    double scale = 0, err = 0;
    for (std::size_t i = 0; i < a[f].size(); ++i) {
      scale = std::max(scale, std::abs(a[f][i]));
      err = std::max(err, std::abs(a[f][i] - b[f][i]));
    }
    worst = std::max(worst, scale > 0 ? err / scale : err);
  }
  return worst;
}

}  // namespace

TEST(FusedRebucket, every_gpu_strategy_matches_the_serial_bucket_sums) {
  if (!gpu_present()) GTEST_SKIP() << "no GPU";
  // 30,000 particles in a 60^3 box, r = 2.1: 31^3 buckets (30 scan blocks of 1024), 62^3 fine
  // buckets (233 scan blocks), so the last block scans many block totals.
  auto pr = mps::random_cloud_problem(3, 30000, 60.0, 2.1, 13u);
  mps::KernelOptions oracle;
  oracle.strategy = mps::Strategy::sorted_particle;
  const auto ref = sums(copa::Backend::serial, oracle, pr);
  int checked = 0;
  for (auto b : copa::built_backends()) {
    if (!copa::is_gpu(b)) continue;
    for (const auto& name : mps::variants_for(b))
      for (bool reorder : {true, false}) {
        mps::KernelOptions ko;
        ko.strategy = mps::parse_strategy(name);
        ko.reorder = reorder;
        ko.fused_rebucket = true;
        const double d = max_rel_diff(ref, sums(b, ko, pr));
        if (d > 1e-12) std::cerr << name << " fused, reorder " << reorder << ": " << d << " from the serial bucket sums\n";
        EXPECT_TRUE(d <= 1e-12);
        ++checked;
      }
  }
  EXPECT_TRUE(checked > 0);
}
