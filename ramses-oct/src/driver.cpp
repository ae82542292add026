#include "driver.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "copa/errors.hpp"
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
#include "copa/gpu_timing.hpp"
#endif

namespace ro {

static std::unique_ptr<copa::RegionTimer> make_timer(copa::Backend b, copa::Profile& p) {
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
  if (copa::is_gpu(b)) return std::make_unique<copa::gpu::EventTimer>(p);
#endif
  (void)b;
  return std::make_unique<copa::HostTimer>(p);
}

// Exit 3 naming the step, the cell (oct, cell, integer coordinates) and its values.
[[noreturn]] static void report_bad_cell(HydroKernels& k, const OctMesh& m, const HydroParams& hp, long step,
                                         double t, std::int64_t g) {
  std::vector<double> u;
  k.store(u);
  const std::int64_t n = m.ncell();
  double uc[nvar], q[nvar];
  for (int f = 0; f < nvar; ++f) uc[f] = u[f * n + g];
  cons_to_prim(uc, hp.gamma, q);
  const auto ic = m.cell_coords(g / 8, int(g % 8));
  std::ostringstream os;
  os.precision(10);
  os << "non-physical state after step " << step << " (t = " << t << "): cell " << g << " (oct " << g / 8
     << ", cell " << g % 8 << ", i,j,k = " << ic[0] << "," << ic[1] << "," << ic[2] << ") has density " << q[0]
     << " and pressure " << q[4];
  throw copa::RuntimeError(os.str());
}

RunResult run_backend(copa::Backend backend, const std::string& variant, const OctMesh& mesh,
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
  double t = 0;
  long step = 0;
  // Each repetition restarts from u0 and runs the same steps; the samples of all repetitions
  // are pooled (the warm-up steps are those of the first), the last final state is kept.
  for (int rep = 0; rep < std::max(cfg.reps, 1); ++rep) {
    kernels->load(u0);
    ScanResult scan = kernels->scan();
    t = 0;
    step = 0;
    while (t < cfg.tend && step < cfg.max_steps) {
      if (scan.bad_cell >= 0) report_bad_cell(*kernels, mesh, cfg.hydro, step, t, scan.bad_cell);
      double dt = cfg.courant * mesh.dx / scan.max_speed;
      if (t + dt > cfg.tend) dt = cfg.tend - t;
      {
        copa::Region r(*timer, "step");
        scan = kernels->advance(dt);
      }
      t += dt;
      ++step;
    }
    if (scan.bad_cell >= 0) report_bad_cell(*kernels, mesh, cfg.hydro, step, t, scan.bad_cell);
    res.timed_steps += step;
  }
  timer->flush();
  kernels->store(res.u);
  res.t = t;
  res.steps = step;
  res.costs = kernels->kernel_costs();
  return res;
}

copa::Stats region_stats(const copa::Profile& p, const std::string& name, int skip) {
  std::vector<double> s = p.samples(name);
  const int drop = std::min<int>(skip, static_cast<int>(s.size()) - 1);
  if (drop > 0) s.erase(s.begin(), s.begin() + drop);
  return copa::summarize(s);
}

}  // namespace ro
