#define COPA_TEST_MAIN
#include <cstdio>
#include <fstream>
#include <memory_resource>
#include <vector>

#include "copa/errors.hpp"
#include "copa/memory.hpp"
#include "copa/roofline.hpp"
#include "copa/testing.hpp"

COPA_TEST(counting_resource_tracks_current_and_peak) {
  copa::CountingResource r;
  void* a = r.allocate(1000);
  void* b = r.allocate(3000);
  COPA_CHECK(r.counters().current_bytes == 4000);
  r.deallocate(a, 1000);
  void* c = r.allocate(500);
  COPA_CHECK(r.counters().current_bytes == 3500);
  COPA_CHECK(r.counters().peak_bytes == 4000);
  COPA_CHECK(r.counters().allocations == 3);
  r.deallocate(b, 3000);
  r.deallocate(c, 500);
  COPA_CHECK(r.counters().current_bytes == 0);
  COPA_CHECK(r.counters().deallocations == 3);
}

COPA_TEST(host_pool_reuses_memory_between_steps) {
  copa::HostPool pool;
  for (int step = 0; step < 5; ++step) {
    std::pmr::vector<double> v(1000, 1.0, &pool);
    std::pmr::vector<double> w(500, 2.0, &pool);
  }
  // What the program asked for peaks at one step's arrays ...
  COPA_CHECK(pool.counters().peak_bytes == 1500 * sizeof(double));
  COPA_CHECK(pool.counters().allocations == 10);
  COPA_CHECK(pool.counters().current_bytes == 0);
  // ... and the pool took memory from the system once, not once per step.
  COPA_CHECK(pool.upstream_counters().allocations < 10);
  COPA_CHECK(pool.upstream_counters().current_bytes >= 1500 * sizeof(double));
}

COPA_TEST(roofline_arithmetic) {
  copa::Ceilings c;
  c.source = "test";
  c.triad_GBs = 100;
  c.fp64_GFLOPs = 1000;
  c.fp32_GFLOPs = 2000;
  // 1e9 FLOPs and 1e9 bytes in 0.02 s: 50 GFLOP/s, 50 GB/s, intensity 1 (below the ridge at 10).
  copa::KernelCost k{1e9, 0.6e9, 0.4e9};
  const copa::RooflinePoint p = copa::evaluate(k, 0.02, c);
  COPA_CHECK_NEAR(p.gflops, 50, 1e-12);
  COPA_CHECK_NEAR(p.gbs, 50, 1e-12);
  COPA_CHECK_NEAR(p.intensity, 1, 1e-12);
  COPA_CHECK_NEAR(p.frac_bandwidth, 0.5, 1e-12);
  COPA_CHECK_NEAR(p.frac_flops, 0.05, 1e-12);
  COPA_CHECK_NEAR(p.frac_roofline, 0.5, 1e-12);  // floor = 1e9 B / 100 GB/s = 0.01 s
  COPA_CHECK(p.bound == "memory");
  // Compute bound: intensity 100 > ridge 10; floor = 1e12 / 1e12 = 1 s of a 4 s run.
  const copa::RooflinePoint q = copa::evaluate({1e12, 1e10, 0}, 4.0, c);
  COPA_CHECK(q.bound == "compute");
  COPA_CHECK_NEAR(q.frac_roofline, 0.25, 1e-12);
  // FP32 kernels are measured against the FP32 roof.
  const copa::RooflinePoint r = copa::evaluate({2e12, 1e9, 0, copa::Precision::fp32}, 2.0, c);
  COPA_CHECK_NEAR(r.frac_flops, 0.5, 1e-12);
  // Without ceilings only the rates are known.
  const copa::RooflinePoint s = copa::evaluate(k, 0.02, std::nullopt);
  COPA_CHECK_NEAR(s.gflops, 50, 1e-12);
  COPA_CHECK(s.frac_roofline == 0);
}

COPA_TEST(ceilings_file_is_read_and_checked) {
  const char* path = "test_ceilings.json";
  {
    std::ofstream f(path);
    f << R"({"schema":"copa-ceilings/1","backends":{"openmp":{"triad_GBs":80.5,"copy_GBs":70,"fp64_GFLOPs":500,"fp32_GFLOPs":1000}}})";
  }
  const copa::Ceilings c = copa::load_ceilings(path, copa::Backend::openmp);
  COPA_CHECK_NEAR(c.triad_GBs, 80.5, 0);
  COPA_CHECK_NEAR(c.fp32_GFLOPs, 1000, 0);
  COPA_CHECK_THROWS(copa::load_ceilings(path, copa::Backend::cuda), copa::InputError);
  COPA_CHECK_THROWS(copa::load_ceilings("no-such-file.json", copa::Backend::openmp), copa::InputError);
  {
    std::ofstream f(path);
    f << "{ not json";
  }
  COPA_CHECK_THROWS(copa::load_ceilings(path, copa::Backend::openmp), copa::InputError);
  std::remove(path);
}

COPA_TEST(builtin_ceilings_only_for_the_h200) {
  const auto h200 = copa::builtin_ceilings(copa::Backend::cuda, "NVIDIA H200");
  COPA_CHECK(h200 && h200->triad_GBs == 4133 && h200->fp64_GFLOPs == 33400);
  COPA_CHECK(!copa::builtin_ceilings(copa::Backend::cuda, "NVIDIA A100-SXM4-40GB"));
  COPA_CHECK(!copa::builtin_ceilings(copa::Backend::openmp, "NVIDIA H200"));
}

COPA_TEST(memory_estimates_are_refused_with_the_numbers) {
  COPA_CHECK(copa::host_memory_available() > 0);
  bool thrown = false;
  try {
    copa::require_host_memory(std::size_t(1) << 60, "a test problem");
  } catch (const copa::OutOfMemoryError& e) {
    thrown = true;
    COPA_CHECK(e.needed() == std::size_t(1) << 60);
    COPA_CHECK(std::string(e.what()).find("a test problem needs") != std::string::npos);
  }
  COPA_CHECK(thrown);
  copa::require_host_memory(1024, "a small problem");
  COPA_CHECK(copa::format_bytes(14.4e9) == "14.40 GB");
}
