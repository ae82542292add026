// Per-rank medians of a run's rows reduced over the MPI ranks (the scaling tables of
// bench/dist.sh read them): the step (max: the FOM), the compute (max and mean: the imbalance),
// the halo exchange and the allreduce. Collective.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "copa/mpi.hpp"
#include "hydro/run_config.hpp"

namespace ro {

struct RankTimes {
  copa::mpi::Reduced step, compute, halo, allreduce;
  nlohmann::json to_json() const {
    auto j = [](const copa::mpi::Reduced& r) { return nlohmann::json{{"max", r.max}, {"mean", r.mean}, {"min", r.min}}; };
    return {{"step_median_s", j(step)}, {"compute_median_s", j(compute)}, {"halo_exchange_median_s", j(halo)},
            {"allreduce_median_s", j(allreduce)}};
  }
};

// Each part the sum of its rows' medians (a row the run does not have counts 0).
inline RankTimes rank_times(const copa::Profile& p, int warmup, const std::vector<std::string>& compute,
                            const std::vector<std::string>& halo) {
  const auto median = [&](const std::vector<std::string>& rows) {
    double s = 0;
    for (const std::string& name : rows)
      if (p.has(name)) s += region_stats(p, name, warmup).median;
    return s;
  };
  RankTimes t;
  t.step = copa::mpi::reduce(median({"step"}));
  t.compute = copa::mpi::reduce(median(compute));
  t.halo = copa::mpi::reduce(median(halo));
  t.allreduce = copa::mpi::reduce(median({"allreduce"}));
  return t;
}

}  // namespace ro
