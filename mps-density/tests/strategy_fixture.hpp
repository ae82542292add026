// What the strategy tests (test_strategies.cpp, test_targets.cpp, test_fused_rebucket.cpp) share:
// whether a GPU is there, the variants that can run on this machine, and the distance between two
// sets of neighbour sums.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "copa/backend.hpp"
#include "copa/gpu_model.hpp"
#include "copa/testing.hpp"
#include "kernels.hpp"
#include "variants.hpp"
#if COPA_GPU
#include "copa/gpu.hpp"
#endif

namespace mps::test {

// A GPU build on a machine without a device (CI's compile checks) skips the GPU backends in its
// cpu-labelled cases; a gpu-labelled case (copa::testing::gpu_required) fails instead, since a
// failing runtime also finds no device.
inline bool gpu_present() {
#if COPA_GPU
  const bool present = copa::gpu::device_count() > 0;
  if (!present && copa::testing::gpu_required()) ADD_FAILURE() << "a gpu-labelled case found no GPU device";
  return present;
#else
  return false;
#endif
}

// Calls f(backend, variant name, options) for every registry row of every built backend that can
// run here, with the bucket reordering on and then off; options carry the strategy and reorder flag.
template <class F>
void for_each_runnable_variant(F&& f) {
  for (auto b : copa::built_backends()) {
    if (copa::is_gpu(b) && !gpu_present()) continue;
    for (const auto& name : registry().names(b))
      for (bool reorder : {true, false}) {
        KernelOptions ko;
        ko.strategy = strategy_named(name);
        ko.reorder = reorder;
        f(b, name, ko);
      }
  }
}

// max over the fields of max_i |a_i - b_i| / max_i |a_i| (absolute where a field is all zero).
inline double max_rel_diff(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  double worst = 0;
  for (std::size_t f = 0; f < a.size(); ++f) {
    double scale = 0, err = 0;
    for (std::size_t i = 0; i < a[f].size(); ++i) {
      scale = std::max(scale, std::fabs(a[f][i]));
      err = std::max(err, std::fabs(a[f][i] - b[f][i]));
    }
    worst = std::max(worst, scale > 0 ? err / scale : err);
  }
  return worst;
}

}  // namespace mps::test
