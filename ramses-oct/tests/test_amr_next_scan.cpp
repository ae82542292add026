// The next step's dt scan carried from advance() to scan() (NextScan) on the GPU path's driver with the device emulated on the host: every carried scan
// equals a scan of the state it is used on, a scan runs again exactly after the start and after
// each regrid that changed the tree, and the run equals the serial oracle, with a regrid every 1,
// 2 and 3 steps. A regrid between two steps must drop the carried scan; the per-scan comparison
// is what sees a stale one (these regrids rarely change a level's largest speed, so a stale scan
// often gives the same dt and the same state).
#include <iostream>
#include <string>

#include "amr/amr_driver.hpp"
#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "test_amr_emulated_step.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"

using namespace ro;
using namespace ro::amr_test;

TEST(Amr, amr_device_next_scan_emulated_equals_serial) {
  const PlanCase cases[] = {{"sedov", {8, 8, 8}, Boundary::reflecting, 3, "gradient", 12},
                            {"sod", {16, 4, 4}, Boundary::outflow, 2, "gradient", 16},
                            {"sedov", {8, 8, 8}, Boundary::periodic, 2, "band", 6}};
  for (const PlanCase& c : cases) {
    for (int every : {1, 2, 3}) {
      const OctMesh base = case_mesh(c);
      const RunConfig cfg = case_config(c);
      amr::AmrConfig ac = case_amr(c, every);
      const auto oracle = amr::run_amr(copa::Backend::serial, base, cfg, ac);
      EmulatedCounts n;
      ac.device = emulated_device(n);
      const auto dev = amr::run_amr(copa::Backend::serial, base, cfg, ac);
      const std::string what = std::string(c.problem) + " " + c.kind + " regrid every " + std::to_string(every);
      ASSERT_EQ(dev.tree.key, oracle.tree.key) << what;
      ASSERT_EQ(dev.steps, c.steps) << what;
      const double l2 = relative_l2(dev.u, oracle.u);
      std::cerr << what << ": " << n.scans_run << " scans run, " << n.scans_held << " carried from the step ("
                << n.scans_stale << " stale), " << n.moves << " state moves in " << dev.regrids
                << " regrids; vs oracle relative L2 " << l2 << "\n";
      EXPECT_EQ(n.scans_stale, 0) << what;
      EXPECT_EQ(n.scans_run, 1 + n.moves) << what;
      EXPECT_EQ(n.scans_run + n.scans_held, dev.steps) << what;
      EXPECT_EQ(dev.t, oracle.t) << what;
      EXPECT_LT(l2, 1e-12) << what;
      if (std::string(c.kind) == "band") {
        EXPECT_EQ(n.moves, 0) << what;  // a static band keeps the tree, the state and the scan
      } else {
        EXPECT_GT(n.moves, 1) << what;
      }
    }
  }
}
