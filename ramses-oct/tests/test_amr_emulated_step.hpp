// The device step emulated on the host (test_amr_regrid_parts.cpp, test_amr_next_scan.cpp): the
// tables and the state held as the device holds them, the step through the GPU body's emulation,
// the regrid's criterion, flags and move through the bodies the kernels call, and the next step's
// dt scan carried from advance() to scan() under the GPU step's rule (NextScan). Counts the moves,
// so a test sees the skipped unchanged regrids, the sibling groups updated, so it sees the group
// body run, and the scans: run by scan(), handed out from advance(), and handed out but unequal to
// a scan of the state at that moment (a stale one).
#pragma once
#include <memory>
#include <vector>

#include "amr_driver.hpp"
#include "amr_gpu.hpp"
#include "amr_plan.hpp"
#include "amr_regrid.hpp"
#include "amr_solver.hpp"

namespace ro::amr_test {

struct EmulatedCounts {
  long moves = 0, group_updates = 0;
  long scans_run = 0, scans_held = 0, scans_stale = 0;
};

class HostEmulatedStep final : public amr::DeviceStep {
 public:
  HostEmulatedStep(const HydroParams& hp, bool reflux, EmulatedCounts& n) : hp_(hp), reflux_(reflux), n_(n) {}
  void upload(const amr::Tree& t, const std::vector<double>& u) override {
    u_ = u;
    upload_tree(t);
  }
  // The lists and the plan as the device builds them: their passes in kernel order through the
  // same bodies.
  void upload_tree(const amr::Tree& t) override {
    next_scan_.drop();
    t_ = t;
    amr::emulate_device_lists(t_, lists_);
    amr::emulate_device_plan(t_, lists_, reflux_, plan_);
    counts_.leaf_octs = static_cast<long long>(plan_.leaf_octs.size());
    counts_.singles = static_cast<long long>(plan_.singles.size());
    counts_.groups = static_cast<long long>(plan_.groups.size());
    counts_.ghosts = static_cast<long long>(plan_.ghost_flip.size() / 7);
    counts_.faces = static_cast<long long>(lists_.faces.size());
    counts_.restrict_begin = plan_.restrict_begin;
  }
  const amr::PlanCounts& counts() const override { return counts_; }
  void download_plan(amr::StepPlan& p) override { p = plan_; }
  void download_lists(amr::StepLists& l) override { l = lists_; }
  void download(std::vector<double>& u) override { u = u_; }
  amr::LeafScan scan() override {
    const amr::LeafScan* held = next_scan_.get();
    if (!held) {
      ++n_.scans_run;
      return amr::emulate_leaf_scan(t_, u_, hp_.gamma);
    }
    ++n_.scans_held;
    const amr::LeafScan now = amr::emulate_leaf_scan(t_, u_, hp_.gamma);
    if (now.max_speed != held->max_speed || now.bad_cell != held->bad_cell) ++n_.scans_stale;
    return *held;
  }
  void advance(double dt) override {
    next_scan_.drop();
    std::vector<double> unew;
    amr::emulate_plan_step(t_, plan_, lists_, hp_, reflux_, u_, unew, dt);
    u_.swap(unew);
    n_.group_updates += static_cast<long>(plan_.groups.size());
    next_scan_.hold(amr::emulate_leaf_scan(t_, u_, hp_.gamma));
  }
  void criterion(const amr::RefineCriterion& rc, double gamma) override {
    params_ = amr::criterion_params(rc, gamma, t_.base->dx);
  }
  // The criterion and flag kernels in launch order (emulate_device_flags), then the error word.
  void refinement_flags(std::vector<char>& flag_out) override {
    std::vector<char> crit;
    amr::check_flags_error(amr::emulate_device_flags(t_, u_, params_, crit, flag_out));
  }
  void move_state(const amr::RegridMap& m) override {
    next_scan_.drop();
    std::vector<double> unew;
    amr::move_state(m, u_, hp_.gamma, *loops_, unew);
    u_.swap(unew);
    ++n_.moves;
  }

 private:
  HydroParams hp_;
  bool reflux_;
  EmulatedCounts& n_;
  std::unique_ptr<amr::Loops> loops_ = amr::make_serial_loops();
  amr::Tree t_;
  amr::StepPlan plan_;
  amr::PlanCounts counts_;
  amr::StepLists lists_;
  amr::CriterionParams params_;
  std::vector<double> u_;
  amr::NextScan next_scan_;
};

// The AmrConfig::device hook that runs the emulated step, counting into n.
inline auto emulated_device(EmulatedCounts& n) {
  return [&n](const HydroParams& hp, bool reflux) {
    return std::unique_ptr<amr::DeviceStep>(new HostEmulatedStep(hp, reflux, n));
  };
}

}  // namespace ro::amr_test
