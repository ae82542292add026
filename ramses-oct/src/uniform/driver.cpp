#include "uniform/driver.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "copa/errors.hpp"
#include "copa/gpu_model.hpp"
#if COPA_GPU
#include "copa/gpu_timing.hpp"
#endif

namespace ro {

static std::unique_ptr<copa::RegionTimer> make_timer(copa::Backend b, copa::Profile& p) {
#if COPA_GPU
  if (copa::is_gpu(b)) return std::make_unique<copa::gpu::EventTimer>(p);
#endif
  (void)b;
  return std::make_unique<copa::HostTimer>(p);
}

// Exit 3 naming the step, the cell (global oct, cell, integer coordinates) and its values. The
// rank that owns the cell reports it; the others wait for its abort.
static void check_bad_cell(HydroKernels& k, const OctMesh& m, const RunConfig& cfg, long step, double t,
                           std::int64_t global_cell) {
  if (global_cell < 0) return;
  const std::int64_t l = global_cell - m.first_global * 8;
  if (l < 0 || l >= m.nowned_cells()) cfg.comm->wait_for_failure(step, t, global_cell);
  std::vector<double> u;
  k.store(u);
  const std::int64_t n = m.ncell();
  double uc[nvar], q[nvar];
  for (int f = 0; f < nvar; ++f) uc[f] = u[f * n + l];
  cons_to_prim(uc, cfg.hydro.gamma, q);
  const auto ic = m.cell_coords(l / 8, int(l % 8));
  std::ostringstream os;
  os.precision(10);
  os << "non-physical state after step " << step << " (t = " << t << "): cell " << global_cell << " (oct "
     << global_cell / 8 << ", cell " << global_cell % 8 << ", i,j,k = " << ic[0] << "," << ic[1] << "," << ic[2]
     << ") has density " << q[0] << " and pressure " << q[4] << non_physical_hint;
  throw copa::RuntimeError(os.str());
}

// The dt reduction of this rank's cells made global (bad cell as a global index).
static ScanResult global_scan(ScanResult s, const OctMesh& m, const RunConfig& cfg, copa::RegionTimer& comm_timer) {
  if (s.bad_cell >= 0) s.bad_cell += m.first_global * 8;
  if (!cfg.comm) return s;
  copa::Region r(comm_timer, "allreduce");
  return cfg.comm->combine(s);
}

RunResult run_backend(copa::Backend backend, const copa::Selection& variant, const OctMesh& mesh,
                      const std::vector<double>& u0, const RunConfig& cfg) {
  RunResult res;
  auto timer = make_timer(backend, res.profile);
  SolverSetup setup;
  setup.mesh = &mesh;
  setup.hydro = cfg.hydro;
  setup.variant = variant;
  setup.block_size = cfg.block_size;
  setup.host_resident = cfg.host_resident;
  setup.timer = timer.get();
  auto kernels = make_kernels(backend, setup);
  copa::HostTimer comm_timer(res.profile);
  double t = 0;
  long step = 0;
  // Each repetition restarts from u0 and runs the same steps; the samples of all repetitions
  // are pooled (the warm-up steps are those of the first), the last final state is kept.
  for (int rep = 0; rep < std::max(cfg.reps, 1); ++rep) {
    kernels->load(u0);
    ScanResult scan = global_scan(kernels->scan(), mesh, cfg, comm_timer);
    t = 0;
    step = 0;
    if (cfg.after_step) cfg.after_step(rep, step, t, *kernels);
    while (t < cfg.tend && step < cfg.max_steps) {
      check_bad_cell(*kernels, mesh, cfg, step, t, scan.bad_cell);
      double dt = cfg.courant * mesh.dx / scan.max_speed;
      if (t + dt > cfg.tend) dt = cfg.tend - t;
      {
        copa::Region r(*timer, "step");
        if (cfg.comm) {
          // Host clock around the exchange, after the stream has drained: the halo's own row.
          copa::Region h(comm_timer, "halo_exchange");
          cfg.comm->fill_ghosts(*kernels);
          kernels->synchronize();
        }
        scan = global_scan(kernels->advance(dt), mesh, cfg, comm_timer);
      }
      t += dt;
      ++step;
      if (cfg.after_step) cfg.after_step(rep, step, t, *kernels);
    }
    check_bad_cell(*kernels, mesh, cfg, step, t, scan.bad_cell);
    res.timed_steps += step;
  }
  timer->flush();
  kernels->store(res.u);
  res.t = t;
  res.steps = step;
  res.costs = kernels->kernel_costs();
  res.fallbacks = kernels->fallbacks();
  if (cfg.comm) res.costs.push_back({"halo_exchange", cfg.comm->halo_cost()});
  return res;
}

}  // namespace ro
