// Order statistics of repeated timings (docs/CONVENTIONS.md: report medians, with min and max).
#pragma once
#include <cstddef>
#include <vector>

namespace copa {

struct Stats {
  std::size_t count = 0;
  double min = 0, median = 0, max = 0, mean = 0, total = 0;
  double mad = 0;  // median absolute deviation from the median: the noise scale the compare report uses
  // The samples these statistics summarise, in the order measured. They travel with the statistics
  // so that every kernel row a Report receives keeps them (samples_s in the JSON): copa-compare's
  // rank test needs the repetitions, not only their median and MAD.
  std::vector<double> samples;
};

// The median of an even count is the mean of the two middle samples.
Stats summarize(std::vector<double> samples);

}  // namespace copa
