#include "copa/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace copa {

namespace {
double median_of_sorted(const std::vector<double>& v) {
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
}  // namespace

Stats summarize(std::vector<double> samples) {
  Stats s;
  s.count = samples.size();
  if (samples.empty()) return s;
  s.samples = samples;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.total = std::accumulate(samples.begin(), samples.end(), 0.0);
  s.mean = s.total / static_cast<double>(s.count);
  s.median = median_of_sorted(samples);
  for (double& x : samples) x = std::fabs(x - s.median);
  std::sort(samples.begin(), samples.end());
  s.mad = median_of_sorted(samples);
  return s;
}

}  // namespace copa
