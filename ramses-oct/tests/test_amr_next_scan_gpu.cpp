// The GPU step's next dt scan, run at the end of advance() and handed out by scan() while valid
// (NextScan): every scan the driver gets equals the host scan
// (scan_leaves) of the device state at that moment to 1e-13 relative per level (the device may
// contract the speed's products into FMAs; a stale scan, one step old, differs by far more), and
// the run equals the serial oracle to round-off, with a regrid every 1, 2 and 3 steps. gpu label:
// CUDA or HIP builds.
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "amr/amr_driver.hpp"
#include "amr/amr_gpu.hpp"
#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "test_amr_forwarding_step.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

struct ScanChecks {
  long scans = 0, unequal = 0;
};

// The GPU step with each scan() checked against the host scan of the downloaded state.
class ScanCheckedStep final : public ForwardingStep {
 public:
  ScanCheckedStep(std::unique_ptr<amr::DeviceStep> gpu, double gamma, ScanChecks& n)
      : ForwardingStep(std::move(gpu)), gamma_(gamma), n_(n) {}
  void upload(const amr::Tree& t, const std::vector<double>& u) override {
    t_ = t;
    inner().upload(t, u);
  }
  amr::LeafScan scan() override {
    const amr::LeafScan s = inner().scan();
    std::vector<double> u;
    inner().download(u);
    const amr::LeafScan host = amr::scan_leaves(t_, u, gamma_, *loops_);
    ++n_.scans;
    bool same = s.max_speed.size() == host.max_speed.size() && s.bad_cell == host.bad_cell;
    for (std::size_t l = 0; same && l < s.max_speed.size(); ++l)
      same = std::fabs(s.max_speed[l] - host.max_speed[l]) <= 1e-13 * std::fabs(host.max_speed[l]);
    if (!same) ++n_.unequal;
    return s;
  }
  // The host scan above reads the tree the state lives on: the new one, copied back.
  void adopt() override {
    inner().adopt();
    inner().download_tree(t_);
  }

 private:
  double gamma_;
  ScanChecks& n_;
  std::unique_ptr<amr::Loops> loops_ = amr::make_serial_loops();
  amr::Tree t_;
};

}  // namespace

TEST(Amr, amr_gpu_next_scan_equals_host_scan) {
  for (const PlanCase& c : next_scan_cases) {
    if (std::string(c.kind) == "band") continue;  // the GPU runs the two gradient cases
    for (int every : {1, 2, 3}) {
      const OctMesh base = case_mesh(c);
      const RunConfig cfg = case_config(c);
      amr::AmrConfig ac = case_amr(c, every);
      const auto oracle = amr::run_amr(copa::Backend::serial, base, cfg, ac);
      ScanChecks n;
      ac.device = [&n](const HydroParams& hp, bool reflux) {
        return std::unique_ptr<amr::DeviceStep>(new ScanCheckedStep(amr::make_gpu_amr_step(hp, reflux), hp.gamma, n));
      };
      const auto dev = amr::run_amr(copa::Backend::serial, base, cfg, ac);
      const std::string what = std::string(c.problem) + " regrid every " + std::to_string(every);
      ASSERT_EQ(dev.tree.key, oracle.tree.key) << what;
      const double l2 = relative_l2(dev.u, oracle.u);
      std::cerr << what << ": " << n.scans << " GPU scans, " << n.unequal << " unequal to the host scan; state vs oracle relative L2 "
                << l2 << "\n";
      EXPECT_EQ(n.scans, dev.steps) << what;
      EXPECT_EQ(n.unequal, 0) << what;
      EXPECT_LT(l2, 1e-12) << what;
    }
  }
}
