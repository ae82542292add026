// copa-probe: measures the ceilings the roofline needs, per backend, as copa-ceilings/1 entries.
#pragma once
#include <cstddef>

#include <nlohmann/json.hpp>

namespace copa::probe {

struct Options {
  std::size_t cpu_array_bytes = 256u << 20;   // per STREAM array: far larger than the last-level cache
  std::size_t gpu_array_bytes = 1024u << 20;  // per array: 17x the H200's 60 MB L2
  int reps = 10;
  int threads = 0;  // 0 = OpenMP's default
};

// STREAM copy (c = a) and triad (a = b + s c) bandwidth in GB/s counting bytes read + written,
// FP64 and FP32 FMA rates from independent vectorised FMA chains; medians over reps.
nlohmann::json probe_cpu(const Options& options, int threads);
// The same on the GPU, plus empty-kernel launch time, host<->device bandwidth and DGEMM (CUDA).
nlohmann::json probe_gpu(const Options& options);

}  // namespace copa::probe
