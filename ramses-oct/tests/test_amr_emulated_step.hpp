// The device step emulated on the host (test_amr_regrid.cpp, test_amr_device_emulation.cpp): the
// tables and the state held as the device holds them, the step through the GPU body's emulation,
// the regrid's criterion, flags, rebuild and move through the bodies the kernels call, and the next step's
// dt scan carried from advance() to scan() under the GPU step's rule (NextScan). Counts the moves,
// so a test sees the skipped unchanged regrids, the sibling groups updated, so it sees the group
// body run, and the scans: run by scan(), handed out from advance(), and handed out but unequal to
// a scan of the state at that moment (a stale one). With device_dt it also queues steps as the GPU
// step does with the device dt (queue_step, step_scan), the clock moved on
// by clock_after_scan, the function the device's last scan block calls; a halted step leaves the
// state as it is (the device copies the leaf cells and restricts them again).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "amr/amr_clock.hpp"
#include "amr/amr_driver.hpp"
#include "amr/amr_gpu.hpp"
#include "amr/amr_plan.hpp"
#include "amr/amr_rebuild.hpp"
#include "amr/amr_regrid.hpp"
#include "amr/amr_solver.hpp"

namespace ro::amr_test {

struct EmulatedCounts {
  long moves = 0, group_updates = 0;
  long grouped_oct_updates = 0;  // the groups' leaf members (their masks' bits), summed as group_updates
  long scans_run = 0, scans_held = 0, scans_stale = 0;
  long subcycled_steps = 0;
  // The device dt: steps queued, waits for the last queued one (wait_queued), and regrids begun
  // while a queued step was not waited for (its device time would fall in the regrid's row).
  long queued_steps = 0, queued_waits = 0, regrids_unwaited = 0;
  // Over ranks: the request lists built on the device, and the trees copied back to the host.
  long rank_lists = 0, tree_downloads = 0;
};

class HostEmulatedStep final : public amr::DeviceStep {
 public:
  HostEmulatedStep(const HydroParams& hp, bool reflux, EmulatedCounts& n, int group_min = amr::default_group_min,
                   bool device_dt = false)
      : hp_(hp), reflux_(reflux), group_min_(group_min), device_dt_(device_dt), n_(n) {}
  void upload(const amr::Tree& t, const std::vector<double>& u) override {
    u_ = u;
    upload_tree(t);
  }
  // The lists and the plan as the device builds them: their passes in kernel order through the
  // same bodies.
  void upload_tree(const amr::Tree& t) {
    next_scan_.drop();
    latest_.reset();
    t_ = t;
    // Over ranks the lists, plan and scan cover the owned octs set_owned gave (as lists_owns).
    t_.owned_begin = owned_begin_;
    t_.owned_end = owned_end_;
    amr::emulate_device_lists(t_, lists_);
    amr::emulate_device_plan(t_, lists_, reflux_, plan_, group_min_);
    counts_.leaf_octs = static_cast<long long>(plan_.leaf_octs.size());
    counts_.singles = static_cast<long long>(plan_.singles.size());
    counts_.groups = static_cast<long long>(plan_.groups.size());
    counts_.ghosts = static_cast<long long>(plan_.ghost_flip.size() / 7);
    counts_.faces = static_cast<long long>(lists_.faces.size());
    counts_.restrict_begin = plan_.restrict_begin;
    counts_.levels = amr::emulate_plan_levels(t_, plan_);
    fine_flux_.assign(t_.noct() * amr::fine_flux_per_oct, 0.0);
    flux_sum_.assign(t_.noct() * amr::fine_flux_per_oct, 0.0);
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
    step(dt);
    next_scan_.hold(amr::emulate_leaf_scan(t_, u_, hp_.gamma));
  }
  bool queues_steps() const override { return device_dt_; }
  void start_clock(double time, double courant, double tend) override {
    clock_ = amr::DeviceClock{};
    clock_.time = time;
    clock_.courant = courant;
    clock_.tend = tend;
    clock_.dx0 = t_.base->dx;
    latest_.reset();
  }
  void queue_step() override {
    ++n_.queued_steps;
    unwaited_ = true;
    if (!latest_) latest_ = clocked_scan(false);
    start_ = *latest_;
    next_scan_.drop();
    if (!clock_.halt) step(clock_.dt);
    latest_ = clocked_scan(true);
  }
  amr::LeafScan step_scan(double& device_dt) override {
    device_dt = start_.dt;
    return start_.scan;
  }
  void wait_queued() override {
    ++n_.queued_waits;
    unwaited_ = false;
  }
  // The device's subcycled coarse step: the per-level ranges its plan build brings up, the sums
  // kept across coarse steps as the device keeps them.
  void advance_subcycled(double dt0) override {
    next_scan_.drop();
    unew_.resize(u_.size());
    amr::emulate_plan_subcycled_step(t_, plan_, lists_, counts_.levels, hp_, reflux_, u_, unew_, fine_flux_, flux_sum_,
                                     dt0, ranks_ ? ranks_->ghosts : nullptr, ranks_ ? ranks_->fluxes : nullptr);
    for (std::size_t l = 0; l + 1 < counts_.levels.group_begin.size(); ++l) {
      n_.group_updates += (1L << l) * (counts_.levels.group_begin[l + 1] - counts_.levels.group_begin[l]);
      n_.grouped_oct_updates += (1L << l) * grouped_octs(counts_.levels.group_begin[l], counts_.levels.group_begin[l + 1]);
    }
    ++n_.subcycled_steps;
    next_scan_.hold(amr::emulate_leaf_scan(t_, u_, hp_.gamma));
  }
  long grouped_octs(long long g0, long long g1) const {
    long n = 0;
    for (long long g = g0; g < g1; ++g) n += amr::member_rank(plan_.group_members[g], 8);
    return n;
  }
  void criterion(const amr::RefineCriterion& rc, double gamma) override {
    if (unwaited_) ++n_.regrids_unwaited;
    params_ = amr::criterion_params(rc, gamma, t_.base->dx);
  }
  // The criterion and flag kernels in launch order (emulate_device_flags) into flag_, as the
  // device keeps them for its rebuild, then the error word.
  void refinement_flags() override {
    std::vector<char> crit;
    amr::check_flags_error(
        amr::emulate_device_flags(t_, u_, params_, crit, flag_, ranks_ ? ranks_->criterion : nullptr));
  }
  // The device rebuild through its emulation (the same bodies and pass order as the kernels).
  bool rebuild(std::int64_t max_octs) override {
    amr::emulate_device_rebuild(t_, flag_, max_octs, new_tree_, map_);
    return !map_.unchanged();
  }
  void link() override {}
  void adopt() override {
    next_scan_.drop();
    std::vector<double> unew;
    amr::move_state(map_, u_, hp_.gamma, *loops_, unew);
    u_.swap(unew);
    ++n_.moves;
    upload_tree(new_tree_);
    if (device_dt_) latest_ = clocked_scan(false);  // the GPU's adopt() ends with its scan
  }
  const std::vector<std::int64_t>& level_begin() const override { return t_.level_begin; }
  std::vector<std::int64_t> leaf_cells_per_level() override { return t_.leaf_cells_per_level(); }
  void download_tree(amr::Tree& t) override {
    ++n_.tree_downloads;
    // As the GPU step's: the tables and levels, the owned ranges left as the host set them.
    std::vector<std::int64_t> begin = t.owned_begin, end = t.owned_end;
    t = t_;
    t.owned_begin = std::move(begin);
    t.owned_end = std::move(end);
  }
  void download_flags(std::vector<char>& flag) override { flag = flag_; }
  void upload_flags(const std::vector<char>& flag) override { flag_ = flag; }
  void download_map(amr::RegridMap& m) override { m = map_; }
  // Over MPI ranks, as the GPU step: the hooks called inside advance() and refinement_flags().
  void set_ranks(const amr::DeviceRanks* ranks) override { ranks_ = ranks; }
  void set_owned(const amr::Tree& t) override {
    owned_begin_ = t.owned_begin;
    owned_end_ = t.owned_end;
  }
  void replan() override { upload_tree(amr::Tree(t_)); }
  double* state() override { return u_.data(); }
  // The GPU step's passes (a mark per owned oct and slot, a scan and a fill per level; a flag per
  // reflux face, a scan, a fill and the split by level) on the emulated device's tree and lists.
  void rank_lists(amr::RankLists& r) override {
    ++n_.rank_lists;
    r = amr::emulate_device_rank_lists(t_, lists_);
  }
  // The GPU step's kernel adds each oct's oct_work to its base oct's total (atomics over exact
  // integers): base_work's loop over the same body.
  std::vector<std::int64_t> base_work(bool subcycle) override { return amr::base_work(t_, subcycle); }
  void new_tree_keys(std::vector<std::uint64_t>& key, std::vector<std::int64_t>& level_begin) override {
    key = new_tree_.key;
    level_begin = new_tree_.level_begin;
  }

 private:
  void step(double dt) {
    std::vector<double> unew;
    std::function<void(double*)> fluxes;
    if (ranks_ && ranks_->fluxes) fluxes = [this](double* f) { ranks_->fluxes(-1, f); };
    amr::emulate_plan_step(t_, plan_, lists_, hp_, reflux_, u_, unew, dt, nullptr, fluxes);
    u_.swap(unew);
    n_.group_updates += static_cast<long>(plan_.groups.size());
    n_.grouped_oct_updates += grouped_octs(0, static_cast<long long>(plan_.groups.size()));
  }
  // A scan of the state that moves the clock on as the device's last scan block does.
  struct ClockedScan {
    amr::LeafScan scan;
    double dt;
  };
  ClockedScan clocked_scan(bool step_ended) {
    ClockedScan c{amr::emulate_leaf_scan(t_, u_, hp_.gamma), 0.0};
    amr::clock_after_scan(clock_, c.scan.max_speed.data(), t_.max_level + 1, c.scan.bad_cell >= 0, step_ended);
    c.dt = clock_.dt;
    return c;
  }

  HydroParams hp_;
  bool reflux_;
  int group_min_;
  bool device_dt_;
  EmulatedCounts& n_;
  std::unique_ptr<amr::Loops> loops_ = amr::make_serial_loops();
  amr::Tree t_, new_tree_;
  amr::RegridMap map_;
  std::vector<char> flag_;
  amr::StepPlan plan_;
  amr::PlanCounts counts_;
  amr::StepLists lists_;
  amr::CriterionParams params_;
  std::vector<double> u_, unew_, fine_flux_, flux_sum_;
  amr::NextScan next_scan_;
  // The device dt: the clock, the last scan if it is of the current state, and the scan the last
  // queued step started from.
  amr::DeviceClock clock_;
  std::optional<ClockedScan> latest_;
  ClockedScan start_;
  bool unwaited_ = false;
  const amr::DeviceRanks* ranks_ = nullptr;
  std::vector<std::int64_t> owned_begin_, owned_end_;
};

// The AmrConfig::device hook that runs the emulated step, counting into n.
// group_min: as make_gpu_amr_step's (tuning group-min).
// device_dt: the step queues its steps as the GPU step does with the device dt.
inline auto emulated_device(EmulatedCounts& n, int group_min = amr::default_group_min, bool device_dt = false) {
  return [&n, group_min, device_dt](const HydroParams& hp, bool reflux) {
    return std::unique_ptr<amr::DeviceStep>(new HostEmulatedStep(hp, reflux, n, group_min, device_dt));
  };
}

}  // namespace ro::amr_test
