// GPU --tuning step=graph (KernelOptions::step_graph): the rebucketing, and the density benchmark's
// step (rebucketing + number density), replayed as graphs. Every GPU strategy, every rebucketing
// method, reorder on and off, must give the serial sorted-particle sums (the bucket oracle, itself
// checked against the brute force in test_strategies) to 1e-12 over several steps in a row: the
// reorder's swap alternates two buffer sets, so both sets' graphs are captured and then replayed,
// and a graph holding the other set's pointers would sum over the wrong arrays. With the stable
// bucket order the graph gives the separate launches' bits. Skipped without a GPU (cpu label).
#include <iostream>
#include <string>
#include <vector>

#include "copa/testing.hpp"
#include "kernels.hpp"
#include "strategy_fixture.hpp"

namespace {

using mps::Field;

// Three steps (rebucketing + density), three more rebucketings alone, a density and a Laplacian.
std::vector<std::vector<double>> sums(copa::Backend b, const mps::KernelOptions& ko, const mps::Problem& pr) {
  auto k = mps::make_kernels(b, ko);
  k->load(pr, pr.re_lap);
  std::vector<std::vector<double>> out;
  for (int step = 0; step < 3; ++step) {
    k->rebucket_and_density(pr.re);
    out.push_back(k->get(Field::n));
  }
  for (int r = 0; r < 3; ++r) k->prepare_neighbours(true);
  k->number_density(pr.re);
  out.push_back(k->get(Field::n));
  k->velocity_laplacian(pr.re_lap, 0.7);
  for (Field f : {Field::ax, Field::ay, Field::az}) out.push_back(k->get(f));
  return out;
}

// The GPU rebucketing methods (KernelOptions): atomic, stable, fused, and the vendor library's
// where every build of the backend has it (CUDA: CUB; a HIP build may lack hipCUB).
std::vector<std::string> methods() {
#if defined(COPA_HAVE_CUDA)
  return {"atomic", "stable", "fused", "cub"};
#else
  return {"atomic", "stable", "fused"};
#endif
}

mps::KernelOptions with_method(mps::KernelOptions ko, const std::string& method) {
  ko.stable_buckets = method == "stable";
  ko.fused_rebucket = method == "fused";
  ko.cub_rebucket = method == "cub";
  return ko;
}

// 30,000 particles in a 60^3 box, r = 2.1: a fine grid of 62^3 buckets (233 scan blocks).
mps::Problem cloud() { return mps::random_cloud_problem(3, 30000, 60.0, 2.1, 13u); }

}  // namespace

TEST(StepGraph, every_gpu_strategy_and_rebucketing_matches_the_serial_bucket_sums) {
  if (!mps::test::gpu_present()) GTEST_SKIP() << "no GPU";
  const auto pr = cloud();
  mps::KernelOptions oracle;
  oracle.strategy = mps::Strategy::sorted_particle;
  const auto ref = sums(copa::Backend::serial, oracle, pr);
  int checked = 0;
  mps::test::for_each_runnable_variant([&](copa::Backend b, const std::string& name, mps::KernelOptions ko) {
    if (!copa::is_gpu(b)) return;
    ko.step_graph = true;
    for (const auto& method : methods()) {
      const double d = mps::test::max_rel_diff(ref, sums(b, with_method(ko, method), pr));
      if (!(d <= 1e-12))
        std::cerr << name << " step=graph, rebucket " << method << ", reorder " << ko.reorder << ": " << d
                  << " from the serial bucket sums\n";
      EXPECT_TRUE(d <= 1e-12);
      ++checked;
    }
  });
  EXPECT_TRUE(checked > 0);
}

TEST(StepGraph, stable_order_gives_the_bits_of_the_separate_launches) {
  if (!mps::test::gpu_present()) GTEST_SKIP() << "no GPU";
  const auto pr = cloud();
  int checked = 0;
  for (auto b : copa::built_backends()) {
    if (!copa::is_gpu(b)) continue;
    for (bool reorder : {true, false}) {
      mps::KernelOptions ko;
      ko.strategy = mps::Strategy::fine_lean_cellrows;
      ko.reorder = reorder;
      ko.stable_buckets = true;
      const auto launches = sums(b, ko, pr);
      ko.step_graph = true;
      EXPECT_TRUE(sums(b, ko, pr) == launches);
      ++checked;
    }
  }
  EXPECT_TRUE(checked > 0);
}
