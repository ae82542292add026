// The rows of laghos-like's report: kernel-row statistics, the communication share of each rank and
// Laghos's timing block as Laghos prints it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "copa/stats.hpp"
#include "hydro.hpp"

namespace laghos {

copa::Stats row_stats(const std::vector<double>& samples, double total, std::int64_t calls);

// Communication fraction of each rank: (halo + allreduce) / the four Laghos timers' total.
struct CommShare {
  double mean = 0, max = 0;
  std::vector<double> per_rank;
};
CommShare comm_share(const HydroTiming& T);

std::string laghos_timing_block(const RunResult& r);

}  // namespace laghos
