// GPU ceilings: STREAM-like FP64 copy/triad, FP64/FP32 FMA chains, empty-kernel launch time,
// host<->device bandwidth and (CUDA) cuBLAS DGEMM. One source for CUDA and HIP.
#include <memory>
#include <vector>

#include "copa/gpu.hpp"
#include "copa/gpu_timing.hpp"
#include "probe.hpp"
#if defined(COPA_HAVE_CUDA)
#include <cublas_v2.h>
#endif

namespace copa::probe {

namespace {

__global__ void copy_kernel(const double* __restrict__ a, double* __restrict__ c, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    c[i] = a[i];
}

__global__ void triad_kernel(double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c,
                             double s, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    a[i] = b[i] + s * c[i];
}

__global__ void init_kernel(double* a, double* b, double* c, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.5;
  }
}

// Independent FMA chains per thread hide the FMA latency; the result is stored so nothing is removed.
constexpr int fma_chains = 8;
constexpr int fma_iterations = 4096;

template <class T>
__global__ void fma_kernel(T* out, T a, T b) {
  T acc[fma_chains];
  for (int j = 0; j < fma_chains; ++j) acc[j] = T(threadIdx.x + j);
  for (int i = 0; i < fma_iterations; ++i)
#pragma unroll
    for (int j = 0; j < fma_chains; ++j) acc[j] = fma(acc[j], a, b);
  T sum = 0;
  for (int j = 0; j < fma_chains; ++j) sum += acc[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

__global__ void empty_kernel() {}

template <class Body>
double median_seconds(Profile& profile, gpu::EventTimer& timer, const char* name, int reps, Body body) {
  repeat_timed(timer, name, 1, reps, body);
  return profile.stats(name).median;
}

template <class T>
double fma_gflops(Profile& profile, gpu::EventTimer& timer, const char* name, int blocks, int reps) {
  constexpr int threads = 256;
  T* out = static_cast<T*>(gpu::malloc_device(sizeof(T) * blocks * threads));
  const double t = median_seconds(profile, timer, name, reps, [&] {
    fma_kernel<T><<<blocks, threads>>>(out, T(0.999999), T(1e-7));
    COPA_GPU_CHECK_LAUNCH("fma_kernel");
  });
  gpu::free_device(out);
  return 2.0 * blocks * threads * double(fma_iterations) * fma_chains / t * 1e-9;
}

double transfer_GBs(Profile& profile, gpu::EventTimer& timer, const char* name, void* dst, const void* src,
                    std::size_t bytes, bool to_device, int reps) {
  const double t = median_seconds(profile, timer, name, reps, [&] {
    if (to_device)
      COPA_GPU_CHECK(COPA_GPU_SYMBOL(MemcpyAsync)(dst, src, bytes, COPA_GPU_SYMBOL(MemcpyHostToDevice), nullptr));
    else
      COPA_GPU_CHECK(COPA_GPU_SYMBOL(MemcpyAsync)(dst, src, bytes, COPA_GPU_SYMBOL(MemcpyDeviceToHost), nullptr));
  });
  return bytes / t * 1e-9;
}

#if defined(COPA_HAVE_CUDA)
double dgemm_gflops(Profile& profile, gpu::EventTimer& timer, int reps) {
  const int n = 8192;
  const std::size_t bytes = sizeof(double) * std::size_t(n) * n;
  double* a = static_cast<double*>(gpu::malloc_device(bytes));
  double* b = static_cast<double*>(gpu::malloc_device(bytes));
  double* c = static_cast<double*>(gpu::malloc_device(bytes));
  init_kernel<<<1024, 256>>>(a, b, c, std::size_t(n) * n);
  COPA_GPU_CHECK_LAUNCH("init_kernel");
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) throw RuntimeError("cublasCreate failed");
  const double alpha = 1.0, beta = 0.0;
  const double t = median_seconds(profile, timer, "dgemm", reps, [&] {
    if (cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, n, b, n, &beta, c, n) != CUBLAS_STATUS_SUCCESS)
      throw RuntimeError("cublasDgemm failed");
  });
  cublasDestroy(handle);
  gpu::free_device(a);
  gpu::free_device(b);
  gpu::free_device(c);
  return 2.0 * double(n) * n * n / t * 1e-9;
}
#endif

}  // namespace

nlohmann::json probe_gpu(const Options& o) {
  const gpu::DeviceInfo info = gpu::device_info(gpu::current_device());
  Profile profile;
  gpu::EventTimer timer(profile);
  const std::size_t n = o.gpu_array_bytes / sizeof(double);
  gpu::require_device_memory(3 * o.gpu_array_bytes, "copa-probe's STREAM arrays");
  double* a = static_cast<double*>(gpu::malloc_device(o.gpu_array_bytes));
  double* b = static_cast<double*>(gpu::malloc_device(o.gpu_array_bytes));
  double* c = static_cast<double*>(gpu::malloc_device(o.gpu_array_bytes));
  const int blocks = info.multiprocessors * 8;
  init_kernel<<<blocks, 256>>>(a, b, c, n);
  COPA_GPU_CHECK_LAUNCH("init_kernel");
  const double bytes = static_cast<double>(o.gpu_array_bytes);
  const double t_copy = median_seconds(profile, timer, "copy", o.reps, [&] {
    copy_kernel<<<blocks, 256>>>(a, c, n);
    COPA_GPU_CHECK_LAUNCH("copy_kernel");
  });
  const double t_triad = median_seconds(profile, timer, "triad", o.reps, [&] {
    triad_kernel<<<blocks, 256>>>(a, b, c, 3.0, n);
    COPA_GPU_CHECK_LAUNCH("triad_kernel");
  });

  // Launch cost: back-to-back empty kernels (throughput) and launch + synchronise (latency).
  constexpr int launches = 1000;
  const double t_launch = median_seconds(profile, timer, "launch", o.reps, [&] {
    for (int i = 0; i < launches; ++i) empty_kernel<<<1, 1>>>();
    COPA_GPU_CHECK_LAUNCH("empty_kernel");
  }) / launches;
  std::vector<double> sync_samples;
  for (int i = 0; i < 100; ++i) {
    const double t0 = host_seconds();
    empty_kernel<<<1, 1>>>();
    COPA_GPU_CHECK_LAUNCH("empty_kernel");
    gpu::synchronize();
    sync_samples.push_back(host_seconds() - t0);
  }

  const std::size_t transfer_bytes = std::min<std::size_t>(o.gpu_array_bytes, 256u << 20);
  void* pinned = gpu::malloc_pinned(transfer_bytes);
  std::unique_ptr<char[]> pageable(new char[transfer_bytes]());
  const double h2d_pinned = transfer_GBs(profile, timer, "h2d_pinned", a, pinned, transfer_bytes, true, o.reps);
  const double d2h_pinned = transfer_GBs(profile, timer, "d2h_pinned", pinned, a, transfer_bytes, false, o.reps);
  const double h2d_pageable = transfer_GBs(profile, timer, "h2d_pageable", a, pageable.get(), transfer_bytes, true, o.reps);
  gpu::free_pinned(pinned);
  gpu::free_device(a);
  gpu::free_device(b);
  gpu::free_device(c);

  nlohmann::json r = {{"device", info.name},
                      {"array_bytes", o.gpu_array_bytes},
                      {"copy_GBs", 2 * bytes / t_copy * 1e-9},
                      {"triad_GBs", 3 * bytes / t_triad * 1e-9},
                      {"fp64_GFLOPs", fma_gflops<double>(profile, timer, "fma_fp64", info.multiprocessors * 16, o.reps)},
                      {"fp32_GFLOPs", fma_gflops<float>(profile, timer, "fma_fp32", info.multiprocessors * 16, o.reps)},
                      {"launch_us", 1e6 * t_launch},
                      {"launch_sync_us", 1e6 * summarize(sync_samples).median},
                      {"h2d_pinned_GBs", h2d_pinned},
                      {"d2h_pinned_GBs", d2h_pinned},
                      {"h2d_pageable_GBs", h2d_pageable},
                      {"dgemm_GFLOPs", 0.0}};
#if defined(COPA_HAVE_CUDA)
  r["dgemm_GFLOPs"] = dgemm_gflops(profile, timer, o.reps);
#endif
  return r;
}

}  // namespace copa::probe
