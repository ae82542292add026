// A DeviceStep that hands every call to another one (the GPU step): the GPU tests derive from it and
// override only the calls they check, instead of each restating the whole interface.
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "amr/amr_gpu.hpp"

namespace ro::amr_test {

class ForwardingStep : public amr::DeviceStep {
 public:
  explicit ForwardingStep(std::unique_ptr<amr::DeviceStep> inner) : inner_(std::move(inner)) {}
  void upload(const amr::Tree& t, const std::vector<double>& u) override { inner_->upload(t, u); }
  const amr::PlanCounts& counts() const override { return inner_->counts(); }
  void download_plan(amr::StepPlan& p) override { inner_->download_plan(p); }
  void download_lists(amr::StepLists& l) override { inner_->download_lists(l); }
  void download(std::vector<double>& u) override { inner_->download(u); }
  amr::LeafScan scan() override { return inner_->scan(); }
  void advance(double dt) override { inner_->advance(dt); }
  void time_phases(copa::Profile& p) override { inner_->time_phases(p); }
  void advance_subcycled(double dt0) override { inner_->advance_subcycled(dt0); }
  void criterion(const amr::RefineCriterion& rc, double gamma) override { inner_->criterion(rc, gamma); }
  void refinement_flags() override { inner_->refinement_flags(); }
  bool rebuild(std::int64_t max_octs) override { return inner_->rebuild(max_octs); }
  void link() override { inner_->link(); }
  void adopt() override { inner_->adopt(); }
  const std::vector<std::int64_t>& level_begin() const override { return inner_->level_begin(); }
  std::vector<std::int64_t> leaf_cells_per_level() override { return inner_->leaf_cells_per_level(); }
  void download_tree(amr::Tree& t) override { inner_->download_tree(t); }
  void download_flags(std::vector<char>& flag) override { inner_->download_flags(flag); }
  void upload_flags(const std::vector<char>& flag) override { inner_->upload_flags(flag); }
  void download_map(amr::RegridMap& m) override { inner_->download_map(m); }
  long long regrid_fallbacks() const override { return inner_->regrid_fallbacks(); }

 protected:
  amr::DeviceStep& inner() { return *inner_; }

 private:
  std::unique_ptr<amr::DeviceStep> inner_;
};

}  // namespace ro::amr_test
