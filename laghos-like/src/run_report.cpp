#include "run_report.hpp"

#include <algorithm>
#include <sstream>

#include "copa/mpi.hpp"

namespace laghos {

// A kernel row: median/min/max over the recorded samples (per call, or per CG solve divided by its
// iterations), count = calls (or iterations), total and mean over all of them.
copa::Stats row_stats(const std::vector<double>& samples, double total, std::int64_t calls) {
  copa::Stats st = samples.empty() ? copa::Stats{} : copa::summarize(samples);
  st.count = static_cast<std::size_t>(calls);
  st.total = total;
  st.mean = calls > 0 ? total / static_cast<double>(calls) : 0.0;
  return st;
}

// Communication fraction of each rank: (halo + allreduce) / the four Laghos timers' total (CG H1,
// CG L2, forces, quadrature update), which contain all of it. Collective.
CommShare comm_share(const HydroTiming& T) {
  const double timed = T.cg_h1 + T.cg_l2 + T.force + T.qdata;
  CommShare s;
  s.per_rank = copa::mpi::gather_all(timed > 0 ? (T.halo + T.allreduce) / timed : 0.0);
  for (double f : s.per_rank) {
    s.mean += f / static_cast<double>(s.per_rank.size());
    s.max = std::max(s.max, f);
  }
  return s;
}

std::string laghos_timing_block(const RunResult& r) {
  std::ostringstream os;
  const HydroTiming& T = r.timing;
  os << "\nCG (H1) total time: " << T.cg_h1 << "\nCG (H1) rate (megadofs x cg_iterations / second): " << r.rate_cg_h1
     << "\n\nCG (L2) total time: " << T.cg_l2 << "\nCG (L2) rate (megadofs x cg_iterations / second): " << r.rate_cg_l2
     << "\n\nForces total time: " << T.force << "\nForces rate (megadofs x timesteps / second): " << r.rate_force
     << "\n\nUpdateQuadData total time: " << T.qdata
     << "\nUpdateQuadData rate (megaquads x timesteps / second): " << r.rate_qdata
     << "\n\nMajor kernels total time (seconds): " << T.cg_h1 + T.force + T.qdata
     << "\nMajor kernels total rate (megadofs x time steps / second): " << r.rate_total << "\n";
  return os.str();
}

}  // namespace laghos
