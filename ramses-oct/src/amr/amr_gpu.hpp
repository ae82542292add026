// The device-resident AMR step (CUDA and HIP from one source, amr_gpu.cu): the state and the
// step plan (amr_plan.hpp) live on the device between regrids; a step is one kernel for the ghost
// slots, ONE launch that updates every leaf oct of every level, the reflux gather, one restriction
// launch per level, then the next step's leaf scan, with one wait at the end (NextScan).
// A regrid keeps the state on the device: the
// criterion, the refinement flags and the state's move run there, the host rebuilds the tree
// from the flags and uploads the new tables (with the levels' coordinate hash), and the device builds the step
// lists and the step plan from them; only their counts come back (README "AMR", "The device plan",
// "The device lists", "The device flags").
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "amr_plan.hpp"
#include "amr_regrid.hpp"
#include "amr_solver.hpp"
#include "amr_tree.hpp"

namespace ro::amr {

// The device plan's sizes, the only part of it the host sees: launch sizes and memory checks.
struct PlanCounts {
  long long leaf_octs = 0, singles = 0, groups = 0, ghosts = 0, faces = 0;
  std::vector<std::int64_t> restrict_begin;  // as StepPlan::restrict_begin
};

// The next step's dt scan, run at the end of advance() on the state it just made (README "The
// device step, round 4"): scan() hands it out while it is valid and runs the scan itself only
// when it is not. It holds until the state or the tree changes otherwise: an upload, a tree
// upload or a state move (a regrid whose tree changed) drops it, and so does the start of
// advance() (a step that throws leaves none). A regrid that keeps the tree
// keeps the state, and so the scan.
class NextScan {
 public:
  void hold(LeafScan s) {
    scan_ = std::move(s);
    valid_ = true;
  }
  void drop() { valid_ = false; }
  const LeafScan* get() const { return valid_ ? &scan_ : nullptr; }

 private:
  LeafScan scan_;
  bool valid_ = false;
};

class DeviceStep {
 public:
  virtual ~DeviceStep() = default;
  // Copies the tree's tables and the state to the device (the initial grid) and builds the step
  // lists and the step plan there; exit 3 (RuntimeError) with the estimate when device memory does
  // not hold them. Device arrays only grow: a later upload reuses them where they are large enough.
  virtual void upload(const Tree& t, const std::vector<double>& u) = 0;
  // The same without the state (after a device regrid, the state is already there).
  virtual void upload_tree(const Tree& t) = 0;
  // The sizes of the lists and plan the last upload built.
  virtual const PlanCounts& counts() const = 0;
  // Debug hooks for the tests: the device plan, and the device lists' leaf_octs and faces (the
  // parts of StepLists the device builds), copied back to the host.
  virtual void download_plan(StepPlan& p) = 0;
  virtual void download_lists(StepLists& l) = 0;
  virtual void download(std::vector<double>& u) = 0;
  // The leaf scan of the current state: the one the last advance() ran if still valid (NextScan),
  // else run now.
  virtual LeafScan scan() = 0;
  // Returns after the device finished the step and the next step's scan (NextScan).
  virtual void advance(double dt) = 0;
  // The regrid's flags on the device (amr_flags_body.hpp): the criterion byte of every cell of
  // the current tree (every kind), kept on the device; then the refinement flags from it (son
  // flags, buffer, 2:1 balance), kept on the device and copied back into flag_out (one byte per
  // cell: the only bytes that cross) with the error word, which throws the host's RuntimeError
  // where the tree was not balanced. Once the host rebuilt the tree from the flags, the state is
  // moved onto the new tree (amr_regrid_body.hpp).
  virtual void criterion(const RefineCriterion& rc, double gamma) = 0;
  virtual void refinement_flags(std::vector<char>& flag_out) = 0;
  virtual void move_state(const RegridMap& m) = 0;
};
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
std::unique_ptr<DeviceStep> make_gpu_amr_step(const HydroParams& hp, bool reflux);
#endif

}  // namespace ro::amr
