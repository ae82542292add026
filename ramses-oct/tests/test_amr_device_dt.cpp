// The device dt's driver on the host emulation of the device step: a run
// whose steps are queued, each with the dt the emulated device clock computed (clock_after_scan, the
// device's function), gives the host-dt run's results bit for bit: the same state, time, steps,
// regrids and update counts, with regrids that change the tree or keep it, a last step clipped to
// tend and a run cut by --steps; a bad leaf cell stops it with the host-dt run's report; the step
// before each regrid and the last step are waited for, the others not. And the clock's formulas
// against the host's cfl_dt and tend clip.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "amr/amr_clock.hpp"
#include "amr/amr_driver.hpp"
#include "copa/errors.hpp"
#include "hydro/reference.hpp"
#include "test_amr_emulated_step.hpp"
#include "test_amr_device_dt_cases.hpp"
#include "test_amr_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

// The emulated device step with and without the device dt on one configuration: bitwise equal.
void expect_device_dt_as_host_dt(const std::string& what, const OctMesh& base, const RunConfig& cfg,
                                 amr::AmrConfig ac) {
  SCOPED_TRACE(what);
  EmulatedCounts host_n, device_n;
  ac.device = emulated_device(host_n);
  const auto host = amr::run_amr(copa::Backend::serial, base, cfg, ac);
  ac.device = emulated_device(device_n, amr::default_group_min, true);
  const auto device = amr::run_amr(copa::Backend::serial, base, cfg, ac);
  expect_same_run(device, host);
  EXPECT_EQ(device_n.moves, host_n.moves);
  if (ac.regrid_every > 0) {
    EXPECT_GT(host_n.moves, 0);  // the tree changed at some regrid
  }
  // Every step queued; each regrid after a wait for the step before it, and one wait at the end:
  // the other steps overlap the next one.
  EXPECT_EQ(device_n.queued_steps, device.steps);
  EXPECT_EQ(device_n.regrids_unwaited, 0);
  EXPECT_EQ(device_n.queued_waits, device.regrids + 1);
}

}  // namespace

TEST(AmrDeviceDt, cfl_dt_of_is_the_host_formula) {
  const double speed[3] = {1.5, 0.0, 7.25};
  const double dx0 = 1.0 / 24;
  // Level 1 has no leaf (0): skipped; level 2's dx is dx0 / 4.
  const double expect = std::min(0.8 * dx0 / 1.5, 0.8 * (dx0 / 4) / 7.25);
  EXPECT_TRUE(same_bits(amr::cfl_dt_of(speed, 3, dx0, 0.8), expect));
  const double none[2] = {0.0, 0.0};
  EXPECT_EQ(amr::cfl_dt_of(none, 2, dx0, 0.8), std::numeric_limits<double>::infinity());
  EXPECT_EQ(amr::clip_dt(0.25, std::numeric_limits<double>::infinity(), 1.0), 0.75);
  EXPECT_EQ(amr::clip_dt(0.25, 0.5, 1.0), 0.5);
  EXPECT_TRUE(same_bits(amr::clip_dt(0.7, 0.4, 1.0), 1.0 - 0.7));
}

TEST(AmrDeviceDt, clock_after_scan_moves_time_only_after_a_step) {
  amr::DeviceClock c;
  c.time = 0.5;
  c.dt = 0.125;
  c.courant = 0.5;
  c.tend = 0.7;
  c.dx0 = 0.25;
  const double speed[1] = {2.0};
  amr::clock_after_scan(c, speed, 1, false, false);  // an upload's or a regrid's scan
  EXPECT_EQ(c.time, 0.5);
  EXPECT_EQ(c.dt, 0.0625);
  amr::clock_after_scan(c, speed, 1, false, true);  // the end of a step of 0.0625
  EXPECT_EQ(c.time, 0.5625);
  EXPECT_EQ(c.dt, 0.0625);
  c.dt = 0.125;
  amr::clock_after_scan(c, speed, 1, false, true);  // 0.6875: the next dt clipped to tend
  EXPECT_TRUE(same_bits(c.dt, 0.7 - 0.6875));
  EXPECT_EQ(c.halt, 0);
  amr::clock_after_scan(c, speed, 1, true, true);  // a bad cell halts the next step
  EXPECT_EQ(c.halt, 1);
  EXPECT_EQ(c.dt, 0.0);
}

TEST(AmrDeviceDt, emulated_device_dt_equals_host_dt_bitwise) {
  const Boundary p = Boundary::periodic, r = Boundary::reflecting;
  // Regrids every 1 and 2 steps (trees that change and trees that stay), runs cut by --steps; and
  // a static grid, every step queued before the one before it is waited for.
  expect_device_dt_as_host_dt("sedov 8^3 + 2 every 1", build_mesh({8, 8, 8}, {p, p, p}), amr_config("sedov", 1.0, 6),
                              amr_levels(2, "gradient", 1));
  expect_device_dt_as_host_dt("sod 16 x 4 x 4 + 2 every 2", build_mesh({16, 4, 4}, {r, r, r}),
                              amr_config("sod", 1.0, 8), amr_levels(2, "gradient", 2));
  expect_device_dt_as_host_dt("sedov 8^3 + 2 static", build_mesh({8, 8, 8}, {p, p, p}), amr_config("sedov", 1.0, 8),
                              amr_levels(2, "gradient", 0));
  // A run that ends at tend: the last dt clipped (tend reached well before the step cap).
  const RunConfig short_run = amr_config("sedov", 2e-3, 200);
  EmulatedCounts n;
  amr::AmrConfig ac = amr_levels(2, "gradient", 2);
  ac.device = emulated_device(n, amr::default_group_min, true);
  const auto clipped = amr::run_amr(copa::Backend::serial, build_mesh({8, 8, 8}, {p, p, p}), short_run, ac);
  EXPECT_LT(clipped.steps, 200);
  EXPECT_DOUBLE_EQ(clipped.t, short_run.tend);
  expect_device_dt_as_host_dt("sedov 8^3 + 2 to tend", build_mesh({8, 8, 8}, {p, p, p}), short_run,
                              amr_levels(2, "gradient", 2));
}

TEST(AmrDeviceDt, emulated_device_dt_bad_cell_report_as_host_dt) {
  const Boundary p = Boundary::periodic;
  const OctMesh base = build_mesh({8, 8, 8}, {p, p, p});
  const RunConfig cfg = amr_config("sedov", 1.0, 4);
  amr::AmrConfig ac = amr_levels(2, "gradient", 2);
  ac.set_state = [](const amr::Tree& t, std::vector<double>& u) { put_bad_cell(t, u); };
  EmulatedCounts host_n, device_n;
  ac.device = emulated_device(host_n);
  const std::string host = run_error(base, cfg, ac);
  ac.device = emulated_device(device_n, amr::default_group_min, true);
  const std::string device = run_error(base, cfg, ac);
  EXPECT_NE(host.find("non-physical state after step 0"), std::string::npos) << host;
  EXPECT_EQ(device, host);
}
