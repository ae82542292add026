#include "buckets.hpp"

#include <algorithm>

namespace mps {

void build_buckets(const Grid& g, const double* x, const double* y, const double* z, int n, bool parallel,
                   std::vector<int>& start, std::vector<int>& order, std::vector<int>& cell) {
  const long long cells = g.cells();
  start.assign(static_cast<std::size_t>(cells) + 1, 0);
  order.resize(n);
  cell.resize(n);
  int* s = start.data();
#pragma omp parallel for if (parallel) schedule(static)
  for (int i = 0; i < n; ++i) {
    const int c = g.cell_of(x[i], y[i], z[i]);
    cell[i] = c;
#pragma omp atomic
    s[c + 1]++;
  }
  for (long long c = 0; c < cells; ++c) s[c + 1] += s[c];  // inclusive over count[c+1] = exclusive start
  std::vector<int> cursor(start.begin(), start.end() - 1);
  int* cur = cursor.data();
  if (parallel) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
      int slot;
#pragma omp atomic capture
      slot = cur[cell[i]]++;
      order[slot] = i;
    }
    // The atomic hands out the slots of a bucket in the order the threads arrive, which changes
    // from run to run; sorting each bucket (a few particles) restores the serial order, so the
    // neighbour sums add in the same order in every run (bitwise reproducible results).
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < cells; ++c) std::sort(order.begin() + s[c], order.begin() + s[c + 1]);
  } else {
    for (int i = 0; i < n; ++i) order[cur[cell[i]]++] = i;
  }
}

}  // namespace mps
