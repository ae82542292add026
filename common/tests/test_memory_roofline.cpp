#include <cstdio>
#include <fstream>
#include <memory_resource>
#include <vector>

#include "copa/errors.hpp"
#include "copa/memory.hpp"
#include "copa/roofline.hpp"
#include "copa/testing.hpp"

TEST(MemoryRoofline, counting_resource_tracks_current_and_peak) {
  copa::CountingResource r;
  void* a = r.allocate(1000);
  void* b = r.allocate(3000);
  EXPECT_TRUE(r.counters().current_bytes == 4000);
  r.deallocate(a, 1000);
  void* c = r.allocate(500);
  EXPECT_TRUE(r.counters().current_bytes == 3500);
  EXPECT_TRUE(r.counters().peak_bytes == 4000);
  EXPECT_TRUE(r.counters().allocations == 3);
  r.deallocate(b, 3000);
  r.deallocate(c, 500);
  EXPECT_TRUE(r.counters().current_bytes == 0);
  EXPECT_TRUE(r.counters().deallocations == 3);
}

TEST(MemoryRoofline, host_pool_reuses_memory_between_steps) {
  copa::HostPool pool;
  for (int step = 0; step < 5; ++step) {
    std::pmr::vector<double> v(1000, 1.0, &pool);
    std::pmr::vector<double> w(500, 2.0, &pool);
  }
  // What the program asked for peaks at one step's arrays ...
  EXPECT_TRUE(pool.counters().peak_bytes == 1500 * sizeof(double));
  EXPECT_TRUE(pool.counters().allocations == 10);
  EXPECT_TRUE(pool.counters().current_bytes == 0);
  // ... and the pool took memory from the system once, not once per step.
  EXPECT_TRUE(pool.upstream_counters().allocations < 10);
  EXPECT_TRUE(pool.upstream_counters().current_bytes >= 1500 * sizeof(double));
}

TEST(MemoryRoofline, roofline_arithmetic) {
  copa::Ceilings c;
  c.source = "test";
  c.triad_GBs = 100;
  c.fp64_GFLOPs = 1000;
  c.fp32_GFLOPs = 2000;
  // 1e9 FLOPs and 1e9 bytes in 0.02 s: 50 GFLOP/s, 50 GB/s, intensity 1 (below the ridge at 10).
  copa::KernelCost k{1e9, 0.6e9, 0.4e9};
  const copa::RooflinePoint p = copa::evaluate(k, 0.02, c);
  COPA_EXPECT_NEAR_REL(p.gflops, 50, 1e-12);
  COPA_EXPECT_NEAR_REL(p.gbs, 50, 1e-12);
  COPA_EXPECT_NEAR_REL(p.intensity, 1, 1e-12);
  COPA_EXPECT_NEAR_REL(p.frac_bandwidth, 0.5, 1e-12);
  COPA_EXPECT_NEAR_REL(p.frac_flops, 0.05, 1e-12);
  COPA_EXPECT_NEAR_REL(p.frac_roofline, 0.5, 1e-12);  // floor = 1e9 B / 100 GB/s = 0.01 s
  EXPECT_TRUE(p.bound == "memory");
  // Compute bound: intensity 100 > ridge 10; floor = 1e12 / 1e12 = 1 s of a 4 s run.
  const copa::RooflinePoint q = copa::evaluate({1e12, 1e10, 0}, 4.0, c);
  EXPECT_TRUE(q.bound == "compute");
  COPA_EXPECT_NEAR_REL(q.frac_roofline, 0.25, 1e-12);
  // FP32 kernels are measured against the FP32 roof.
  const copa::RooflinePoint r = copa::evaluate({2e12, 1e9, 0, copa::Precision::fp32}, 2.0, c);
  COPA_EXPECT_NEAR_REL(r.frac_flops, 0.5, 1e-12);
  // Without ceilings only the rates are known.
  const copa::RooflinePoint s = copa::evaluate(k, 0.02, std::nullopt);
  COPA_EXPECT_NEAR_REL(s.gflops, 50, 1e-12);
  EXPECT_TRUE(s.frac_roofline == 0);
}

TEST(MemoryRoofline, ceilings_file_is_read_and_checked) {
  const char* path = "test_ceilings.json";
  {
    std::ofstream f(path);
    f << R"({"schema":"copa-ceilings/1","backends":{"openmp":{"triad_GBs":80.5,"copy_GBs":70,"fp64_GFLOPs":500,"fp32_GFLOPs":1000}}})";
  }
  const copa::Ceilings c = copa::load_ceilings(path, copa::Backend::openmp);
  COPA_EXPECT_NEAR_REL(c.triad_GBs, 80.5, 0);
  COPA_EXPECT_NEAR_REL(c.fp32_GFLOPs, 1000, 0);
  EXPECT_THROW(copa::load_ceilings(path, copa::Backend::cuda), copa::InputError);
  EXPECT_THROW(copa::load_ceilings("no-such-file.json", copa::Backend::openmp), copa::InputError);
  {
    std::ofstream f(path);
    f << "{ not json";
  }
  EXPECT_THROW(copa::load_ceilings(path, copa::Backend::openmp), copa::InputError);
  std::remove(path);
}

TEST(MemoryRoofline, builtin_ceilings_only_for_the_h200) {
  const auto h200 = copa::builtin_ceilings(copa::Backend::cuda, "NVIDIA H200");
  EXPECT_TRUE(h200 && h200->triad_GBs == 4133 && h200->fp64_GFLOPs == 33400);
  EXPECT_TRUE(!copa::builtin_ceilings(copa::Backend::cuda, "NVIDIA A100-SXM4-40GB"));
  EXPECT_TRUE(!copa::builtin_ceilings(copa::Backend::openmp, "NVIDIA H200"));
}

TEST(MemoryRoofline, memory_estimates_are_refused_with_the_numbers) {
  EXPECT_TRUE(copa::host_memory_available() > 0);
  bool thrown = false;
  try {
    copa::require_host_memory(std::size_t(1) << 60, "a test problem");
  } catch (const copa::OutOfMemoryError& e) {
    thrown = true;
    EXPECT_TRUE(e.needed() == std::size_t(1) << 60);
    EXPECT_TRUE(std::string(e.what()).find("a test problem needs") != std::string::npos);
  }
  EXPECT_TRUE(thrown);
  copa::require_host_memory(1024, "a small problem");
  EXPECT_TRUE(copa::format_bytes(14.4e9) == "14.40 GB");
}
