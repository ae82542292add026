// The rows of laghos-like's report: kernel-row statistics, the communication share of each rank and
// Laghos's timing block as Laghos prints it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "copa/backend.hpp"
#include "copa/report.hpp"
#include "copa/stats.hpp"
#include "discretization.hpp"
#include "hydro.hpp"
#include "setup.hpp"

namespace laghos {

copa::Stats row_stats(const std::vector<double>& samples, double total, std::int64_t calls);

// Communication fraction of each rank: (halo + allreduce) / the four Laghos timers' total.
struct CommShare {
  double mean = 0, max = 0;
  std::vector<double> per_rank;
};
CommShare comm_share(const HydroTiming& T);

std::string laghos_timing_block(const RunResult& r);

// run.problem: the problem, orders, global sizes, integrator and the memory estimate.
nlohmann::json problem_json(const Setup& setup, const Discretization& d, copa::Backend backend, double zones,
                            double h1_dofs, double l2_dofs);
// The four kernel rows with the FLOP/byte model (cost_model.hpp), and on ranks the halo_exchange
// and allreduce rows.
void add_kernel_rows(copa::Report& report, const Discretization& d, const HydroTiming& T, bool distributed);

}  // namespace laghos
