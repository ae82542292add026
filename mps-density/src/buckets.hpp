// Bucket build on the host by counting sort: count per bucket, exclusive prefix sum, scatter.
#pragma once
#include <vector>

#include "geometry.hpp"

namespace mps {

// start has cells + 1 entries; order[k] = particle at sorted position k. Stable (particles of a
// bucket keep their relative order) in both forms: `parallel` counts and scatters with OpenMP
// atomics and then sorts each bucket, so the result is the serial one in every run.
void build_buckets(const Grid& g, const double* x, const double* y, const double* z, int n, bool parallel,
                   std::vector<int>& start, std::vector<int>& order, std::vector<int>& cell_scratch);

}  // namespace mps
