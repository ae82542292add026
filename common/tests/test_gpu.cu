#include <string>
#include <vector>

#include "copa/device_memory.hpp"
#include "copa/gpu.hpp"
#include "copa/gpu_launch.hpp"
#include "copa/gpu_timing.hpp"
#include "copa/testing.hpp"

namespace {

__global__ void scale(double* x, double s, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < n) x[i] *= s;
}

__global__ void block_sums(const double* x, double* out, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  double v = i < n ? x[i] : 0.0;
  v = copa::gpu::warp_sum(v);
  if (threadIdx.x % COPA_WARP_SIZE == 0) atomicAdd(out, v);
}

// One link of a dependent-launch chain: each element from the mirrored element of the previous
// link's output, so that every block reads what other blocks of the previous grid wrote.
__global__ void mirrored_plus_one(const double* in, double* out, std::size_t n) {
  copa::gpu::wait_for_prior_grid();
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[n - 1 - i] + 1.0;
}

}  // namespace

TEST(Gpu, failing_call_raises_with_file_and_line) {
  bool thrown = false;
  const int line = __LINE__ + 2;
  try {
    COPA_GPU_CHECK(COPA_GPU_SYMBOL(SetDevice)(100000));
  } catch (const copa::GpuError& e) {
    thrown = true;
    EXPECT_TRUE(e.line() == line);
    EXPECT_TRUE(e.file().find("test_gpu.cu") != std::string::npos);
    EXPECT_TRUE(std::string(e.what()).find("SetDevice") != std::string::npos);
  }
  EXPECT_TRUE(thrown);
}

TEST(Gpu, bad_launch_is_caught_after_the_launch) {
  double* x = static_cast<double*>(copa::gpu::malloc_device(8 * sizeof(double)));
  scale<<<1, 4096>>>(x, 2.0, 8);  // more threads per block than any GPU allows
  EXPECT_THROW(COPA_GPU_CHECK_LAUNCH("scale"), copa::GpuError);
  copa::gpu::free_device(x);
}

TEST(Gpu, dependent_launch_error_names_the_kernel) {
  double* x = static_cast<double*>(copa::gpu::malloc_device(8 * sizeof(double)));
  bool thrown = false;
  try {
    COPA_GPU_LAUNCH_DEPENDENT("mirrored_plus_one", mirrored_plus_one, 1, 4096, x, x, std::size_t(8));
  } catch (const copa::GpuError& e) {
    thrown = true;
    EXPECT_TRUE(std::string(e.what()).find("mirrored_plus_one") != std::string::npos);
    EXPECT_TRUE(e.file().find("test_gpu.cu") != std::string::npos);
  }
  EXPECT_TRUE(thrown);
  copa::gpu::free_device(x);
}

// A chain of dependent launches ping-ponging between two arrays: each link reads what the link
// before wrote (read after write) and overwrites what the link before read (write after read); a
// link that touched memory before its wait_for_prior_grid would break the count.
TEST(Gpu, dependent_launch_chain_sees_each_previous_link) {
  const std::size_t n = 1 << 22;
  const int links = 64;
  copa::gpu::DeviceArray<double> a(n), b(n);
  copa::gpu::fill_zero(a.data(), n * sizeof(double));
  for (int k = 0; k < links; ++k) {
    const double* in = k % 2 == 0 ? a.data() : b.data();
    double* out = k % 2 == 0 ? b.data() : a.data();
    COPA_GPU_LAUNCH_DEPENDENT("mirrored_plus_one", mirrored_plus_one, copa::gpu::blocks_for(n, 256), 256, in, out, n);
  }
  std::vector<double> h(n);
  a.copy_to_host(h.data());  // an even number of links ends in a
  std::size_t wrong = 0;
  for (double v : h) wrong += v != links;
  EXPECT_TRUE(wrong == 0);
}

TEST(Gpu, kernel_results_and_event_timing) {
  const std::size_t n = 1 << 20;
  std::vector<double> h(n, 1.5);
  copa::gpu::DeviceArray<double> x(n), sum(1);
  x.copy_from_host(h.data());
  copa::gpu::fill_zero(sum.data(), sizeof(double));
  copa::Profile profile;
  copa::gpu::EventTimer timer(profile);
  copa::repeat_timed(timer, "scale", 1, 4, [&] {
    scale<<<copa::gpu::blocks_for(n, 256), 256>>>(x.data(), 2.0, n);
    COPA_GPU_CHECK_LAUNCH("scale");
  });
  EXPECT_TRUE(profile.samples("scale").size() == 4);
  EXPECT_TRUE(profile.stats("scale").min > 0);
  block_sums<<<copa::gpu::blocks_for(n, 256), 256>>>(x.data(), sum.data(), n);
  COPA_GPU_CHECK_LAUNCH("block_sums");
  double s = 0;
  sum.copy_to_host(&s);
  COPA_EXPECT_NEAR_REL(s, 1.5 * 32 * n, 1e-12);  // five scalings by 2
}

TEST(Gpu, device_pool_reuses_and_counts) {
  copa::gpu::DevicePool& pool = copa::gpu::device_pool();
  const auto before = pool.counters();
  for (int step = 0; step < 3; ++step) {
    copa::gpu::DeviceArray<double> a(1000), b(3000);
  }
  copa::gpu::synchronize();
  const auto after = pool.counters();
  EXPECT_TRUE(after.allocations - before.allocations == 6);
  EXPECT_TRUE(after.current_bytes == before.current_bytes);
  EXPECT_TRUE(after.peak_bytes >= before.current_bytes + 4000 * sizeof(double));
}

TEST(Gpu, oversized_problem_is_refused_with_the_estimate) {
  const auto info = copa::gpu::device_info(copa::gpu::current_device());
  EXPECT_TRUE(info.multiprocessors > 0 && info.warp_size == COPA_WARP_SIZE);
  EXPECT_THROW(copa::gpu::require_device_memory(std::size_t(1) << 52, "a test"), copa::OutOfMemoryError);
}
