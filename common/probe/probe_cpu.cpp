#include <cmath>
#include <memory>
#include <vector>

#include "copa/stats.hpp"
#include "copa/timing.hpp"
#include "probe.hpp"
#if defined(COPA_HAVE_OPENMP)
#include <omp.h>
#endif

namespace copa::probe {

namespace {

// Independent accumulators per thread: enough to cover FMA latency x issue width on current CPUs
// (e.g. 4-cycle latency x 2 pipes x 8 doubles per AVX-512 register = 64).
constexpr int chains = 64;
constexpr long fma_iterations = 2'500'000;  // per thread and chain: milliseconds per rep

template <class T>
double fma_seconds(int threads) {
  T sink = 0;
  const double t0 = host_seconds();
#pragma omp parallel num_threads(threads) reduction(+ : sink)
  {
    T acc[chains];
    for (int j = 0; j < chains; ++j) acc[j] = T(1) + T(j) * T(1e-3);
    const T a = T(0.999999), b = T(1e-7);
    for (long i = 0; i < fma_iterations; ++i) {
#pragma omp simd
      for (int j = 0; j < chains; ++j) acc[j] = std::fma(acc[j], a, b);
    }
    for (int j = 0; j < chains; ++j) sink += acc[j];
  }
  const double t = host_seconds() - t0;
  volatile T keep = sink;  // the result must be live or the chains are removed
  (void)keep;
  return t;
}

template <class T>
double fma_gflops(int threads, int reps) {
  const double flops = 2.0 * threads * static_cast<double>(fma_iterations) * chains;
  std::vector<double> s;
  fma_seconds<T>(threads);
  for (int r = 0; r < reps; ++r) s.push_back(fma_seconds<T>(threads));
  return flops / summarize(s).median * 1e-9;
}

}  // namespace

nlohmann::json probe_cpu(const Options& o, int threads) {
  const std::size_t n = o.cpu_array_bytes / sizeof(double);
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
  // First touch by the threads that use the data (NUMA placement as in STREAM).
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.5;
  }
  std::vector<double> copy_s, triad_s;
  const double s = 3.0;
  for (int r = 0; r <= o.reps; ++r) {
    double t0 = host_seconds();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < n; ++i) c[i] = a[i];
    const double tc = host_seconds() - t0;
    t0 = host_seconds();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    const double tt = host_seconds() - t0;
    if (r > 0) {  // the first pass is the warm-up
      copy_s.push_back(tc);
      triad_s.push_back(tt);
    }
  }
  const double bytes = static_cast<double>(n * sizeof(double));
  return {{"threads", threads},
          {"array_bytes", o.cpu_array_bytes},
          {"copy_GBs", 2 * bytes / summarize(copy_s).median * 1e-9},
          {"triad_GBs", 3 * bytes / summarize(triad_s).median * 1e-9},
          {"fp64_GFLOPs", fma_gflops<double>(threads, o.reps)},
          {"fp32_GFLOPs", fma_gflops<float>(threads, o.reps)}};
}

}  // namespace copa::probe
