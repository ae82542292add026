// The device dt on the GPU: the GPU step's queued steps, each with the dt its last scan block
// computed, give the host-dt path's results (the path --phase-timing and --subcycle take: the
// host's dt, then advance() and its wait) bit for bit: the same trees, state, time, steps and update counts, with
// regrids every 1 and 2 steps and none, three levels (the scan launched with the coarsest
// restriction), a last step clipped to tend and runs cut by --steps; the driver's own check
// compares every device dt with the host's and would throw. A bad leaf cell stops the run with the host-dt run's report,
// and a halted step leaves the state as it was. gpu label: CUDA or HIP builds.
#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "amr/amr_driver.hpp"
#include "amr/amr_gpu.hpp"
#include "amr/amr_regrid.hpp"
#include "copa/errors.hpp"
#include "test_amr_device_dt_cases.hpp"
#include "test_amr_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

amr::AmrConfig on_gpu(amr::AmrConfig ac, bool host_dt) {
  ac.device = [](const HydroParams& hp, bool reflux) { return amr::make_gpu_amr_step(hp, reflux); };
  ac.phase_timing = host_dt;  // --phase-timing waits per phase: the host computes each dt
  return ac;
}

void expect_device_dt_as_host_dt(const std::string& what, const OctMesh& base, const RunConfig& cfg,
                                 const amr::AmrConfig& ac) {
  SCOPED_TRACE(what);
  const auto host = amr::run_amr(copa::Backend::serial, base, cfg, on_gpu(ac, true));
  const auto device = amr::run_amr(copa::Backend::serial, base, cfg, on_gpu(ac, false));
  std::cerr << what << ": " << device.steps << " steps, " << device.regrids << " regrids, t = " << device.t << "\n";
  expect_same_run(device, host);
}

}  // namespace

TEST(AmrDeviceDt, amr_gpu_device_dt_equals_host_dt_bitwise) {
  const Boundary p = Boundary::periodic, r = Boundary::reflecting;
  expect_device_dt_as_host_dt("sedov 8^3 + 2 every 2", build_mesh({8, 8, 8}, {p, p, p}), amr_config("sedov", 1.0, 12),
                              amr_levels(2, "gradient", 2));
  expect_device_dt_as_host_dt("sod 16 x 4 x 4 + 2 every 1", build_mesh({16, 4, 4}, {r, r, r}),
                              amr_config("sod", 1.0, 12), amr_levels(2, "gradient", 1));
  expect_device_dt_as_host_dt("sedov 8^3 + 3 every 2", build_mesh({8, 8, 8}, {r, r, r}), amr_config("sedov", 1.0, 10),
                              amr_levels(3, "gradient", 2));
  // A static grid: every step queued before the one before it ends (both scan word sets in turn).
  expect_device_dt_as_host_dt("sedov 8^3 + 2 static", build_mesh({8, 8, 8}, {p, p, p}), amr_config("sedov", 1.0, 16),
                              amr_levels(2, "gradient", 0));
  // Ends at tend, well before the step cap: the last dt clipped on the device as on the host.
  const RunConfig to_tend = amr_config("sedov", 2e-3, 400);
  const auto clipped = amr::run_amr(copa::Backend::serial, build_mesh({8, 8, 8}, {p, p, p}), to_tend,
                                    on_gpu(amr_levels(2, "gradient", 2), false));
  EXPECT_LT(clipped.steps, 400);
  EXPECT_DOUBLE_EQ(clipped.t, to_tend.tend);
  expect_device_dt_as_host_dt("sedov 8^3 + 2 to tend", build_mesh({8, 8, 8}, {p, p, p}), to_tend,
                              amr_levels(2, "gradient", 2));
}

TEST(AmrDeviceDt, amr_gpu_device_dt_bad_cell_report_as_host_dt) {
  const BadCellCase c;
  const std::string host = run_error(c.base, c.cfg, on_gpu(c.ac, true));
  const std::string device = run_error(c.base, c.cfg, on_gpu(c.ac, false));
  expect_bad_cell_report_as_host(device, host);
}

// The halt path on the GPU step itself: the scan before a step finds the bad cell, the step
// queued behind it leaves every leaf cell as uploaded and so the whole state (the covered cells
// are restricted again from the same leaves, and the upload's were restricted by the host's
// restrict_cell, whose sum and product nothing can contract), and so does a second and a third
// halted step; its dt is 0, and the host-dt calls refuse once the clock is on.
TEST(AmrDeviceDt, amr_gpu_halted_step_keeps_the_state) {
  const Boundary p = Boundary::periodic;
  const OctMesh base = build_mesh({8, 8, 8}, {p, p, p});
  const RunConfig cfg = amr_config("sedov", 1.0, 4);
  const amr::AmrConfig ac = amr_levels(2, "gradient", 2);
  amr::Tree t = amr::base_tree(base, ac.levels);
  std::vector<double> u;
  const auto loops = amr::make_serial_loops();
  amr::initial_grid(t, u, cfg.problem, ac.criterion, ac.max_octs, *loops);
  put_bad_cell(t, u);
  amr::restrict_all(t, u, *loops);
  const auto gpu = amr::make_gpu_amr_step(cfg.hydro, true);
  gpu->upload(t, u);
  gpu->start_clock(0.0, cfg.courant, cfg.tend);
  EXPECT_THROW(gpu->advance(1e-3), std::logic_error);
  gpu->queue_step();
  double dt = -1;
  const amr::LeafScan first = gpu->step_scan(dt);
  EXPECT_GE(first.bad_cell, 0);
  EXPECT_EQ(dt, 0.0);
  std::vector<double> once;
  gpu->download(once);
  ASSERT_EQ(once.size(), u.size());
  const std::int64_t stride = t.noct() * 8;
  long unequal_leaves = 0;
  for (std::int64_t g = 0; g < stride; ++g)
    for (int f = 0; f < nvar; ++f)
      if (t.son[g] < 0 && !same_bits(once[f * stride + g], u[f * stride + g])) ++unequal_leaves;
  EXPECT_EQ(unequal_leaves, 0);
  EXPECT_TRUE(same_bits(once, u));
  gpu->queue_step();
  const amr::LeafScan second = gpu->step_scan(dt);
  EXPECT_EQ(second.bad_cell, first.bad_cell);
  EXPECT_EQ(dt, 0.0);
  gpu->queue_step();
  std::vector<double> thrice;
  gpu->download(thrice);
  EXPECT_TRUE(same_bits(thrice, once));
}
