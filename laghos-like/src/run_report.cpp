#include "run_report.hpp"

#include <algorithm>
#include <sstream>

#include "copa/mpi.hpp"
#include "cost_model.hpp"
#include "problem_size.hpp"

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
nlohmann::json problem_json(const Setup& setup, const Discretization& d, copa::Backend backend, double zones,
                            double h1_dofs, double l2_dofs) {
  nlohmann::json pj = nlohmann::json::object();
  pj["problem"] = setup.spec.problem;
  pj["dim"] = d.dim;
  pj["order_k"] = d.k;
  pj["order_t"] = d.ot;
  pj["zones"] = zones;
  pj["h1_dofs"] = h1_dofs;
  pj["l2_dofs"] = l2_dofs;
  pj["quadrature_points_per_zone"] = d.nq;
  pj["ode"] = setup.run.ode == 7 ? "rk2avg" : "rk4";
  pj["t_final"] = setup.run.t_final;
  pj["cg_tol"] = setup.run.cg_tol;
  pj["max_steps"] = setup.run.max_steps;
  if (setup.reference) pj["laghos_run"] = setup.reference->run;
  const MemoryEstimate mem = estimate_memory(setup.size, backend);
  pj["memory_estimate"] = {{"host_bytes", mem.host_bytes}, {"device_bytes", mem.device_bytes}};
  return pj;
}

void add_kernel_rows(copa::Report& report, const Discretization& d, const HydroTiming& T, bool distributed) {
  const CostModel cm{d};
  // The kernel rows exclude the communication inside Laghos's timers (its own rows on ranks);
  // the Laghos block and the FOM keep Laghos's timers, which include it.
  report.add_kernel("CG (H1) iteration", row_stats(T.cg_h1_samples, T.cg_h1 - T.comm_cg_h1, T.h1_iter),
                    cm.cg_h1_iteration());
  report.add_kernel("CG (L2) iteration", row_stats(T.cg_l2_samples, T.cg_l2 - T.comm_cg_l2, T.l2_iter),
                    cm.cg_l2_iteration());
  report.add_kernel("Forces (F 1, F^T v)", row_stats(T.force_samples, T.force - T.comm_force, T.force_calls),
                    cm.force_call());
  report.add_kernel("UpdateQuadData", row_stats(T.qdata_samples, T.qdata - T.comm_qdata, T.qdata_calls),
                    cm.qupdate_call());
  if (distributed) {
    const auto calls = [](const std::vector<double>& v) { return static_cast<std::int64_t>(v.size()); };
    report.add_kernel("halo_exchange", row_stats(T.halo_samples, T.halo, calls(T.halo_samples)),
                      halo_cost(T));
    report.add_kernel("allreduce", row_stats(T.allreduce_samples, T.allreduce, calls(T.allreduce_samples)),
                      copa::KernelCost{});
  }
}

}  // namespace laghos
