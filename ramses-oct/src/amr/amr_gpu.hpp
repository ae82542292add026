// The device-resident AMR step (CUDA and HIP from one source, amr_gpu.cu): the state and the
// step plan (amr_plan.hpp) live on the device between regrids; a step is one kernel for the ghost
// slots, ONE launch that updates every leaf oct of every level, the reflux gather, one restriction
// launch per level, then the next step's leaf scan, with one wait at the end (NextScan); with the
// device dt the scan also computes the next dt and the host queues a step before it waits for
// the one before (queue_step). A regrid
// keeps the state and the tree on the device: the criterion, the refinement flags, the new tree's
// rebuild and links, the state's move and the step lists and step plan all run there; only counts
// and error words come back. With --subcycle, advance_subcycled runs the same kernels level by
// level over the plan's per-level ranges.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "amr/amr_plan.hpp"
#include "amr/amr_ranks.hpp"
#include "amr/amr_regrid.hpp"
#include "amr/amr_solver.hpp"
#include "amr/amr_tree.hpp"
#include "copa/gpu_model.hpp"
#include "copa/timing.hpp"

namespace ro::amr {

// The device plan's sizes, the only part of it the host sees: launch sizes and memory checks.
struct PlanCounts {
  long long leaf_octs = 0, singles = 0, groups = 0, ghosts = 0, faces = 0;
  std::vector<std::int64_t> restrict_begin;  // as StepPlan::restrict_begin
  PlanLevels levels;                         // --subcycle only (a step built for it): per-level ranges
};

// The next step's dt scan, run at the end of advance() on the state it just made: scan() hands it out while it is valid and runs the scan itself only
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

// Over MPI ranks (amr_ranks.hpp) on a GPU backend: what the device step asks of the other ranks
// inside its own calls, where the host driver calls RankComm.
struct DeviceRanks {
  // Before the reflux, the fine-face fluxes of other ranks' octs next to this rank's coarse cells
  // of level l (l < 0: every level) into flux (device memory, Stepper::fine_flux's layout):
  // advance()'s fine fluxes (l < 0), advance_subcycled()'s sums (level l's visit).
  std::function<void(int l, double* flux)> fluxes;
  // advance_subcycled(), before each substep of level l: the ghost octs level l's update and ghost
  // slots read, as their owners hold them now, into the state u the substep reads (the finest
  // level's second substep reads the first's output).
  std::function<void(int l, double* u)> ghosts;
  // refinement_flags(): every owner's criterion bytes (host copy, one per cell) before the flags.
  std::function<void(std::vector<char>& crit)> criterion;
};

class DeviceStep {
 public:
  virtual ~DeviceStep() = default;
  // Copies the tree's tables and the state to the device (the initial grid) and builds the step
  // lists and the step plan there; exit 3 (RuntimeError) with the estimate when device memory does
  // not hold them. Device arrays only grow: a later upload reuses them where they are large enough.
  virtual void upload(const Tree& t, const std::vector<double>& u) = 0;
  // The sizes of the lists and plan the last upload or adopt built.
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
  // --phase-timing: from now on advance() records device events between its phases and adds
  // their times to p as rows amr.ghosts, amr.update, amr.reflux+finest_restriction and
  // amr.coarser_restrictions+scan. A step that has no device
  // phases to time (the tests' host emulation) records nothing.
  virtual void time_phases(copa::Profile& p) { (void)p; }
  // --subcycle: one coarse step of dt0 in which level l advances in 2^l substeps of dt0 / 2^l, the
  // host's subcycled_step (amr_subcycle.hpp) in the same order and arithmetic, one launch per
  // level and phase and no wait inside; returns as advance() does, the next scan held (NextScan).
  virtual void advance_subcycled(double dt0) = 0;
  // The device dt (the global step only, not --subcycle): the device
  // computes each step's dt in the scan before it (amr_clock.hpp), so the host queues step k + 1
  // before it waits for step k. queues_steps(): whether this step does (else the driver keeps
  // the host dt: scan(), advance()). start_clock(): the run's clock set once after the upload,
  // kept across regrids; from then on every scan also moves it on, and advance() refuses.
  // queue_step(): one step with the clock's dt queued behind the scan it starts from (a scan of
  // the current state queued first where there is none), then its own scan; returns at once. A
  // halted step (the scan before it found a bad leaf cell) leaves the leaf cells as they are.
  // step_scan(): waits for the scan the last queued step started from (the step before it, or
  // the upload's or the regrid's scan), not for the step, and returns it with the dt the device
  // computed from it, the queued step's dt. wait_queued(): waits for the last queued step and its
  // scan (the driver's step before a regrid, and the last).
  virtual bool queues_steps() const { return false; }
  virtual void start_clock(double time, double courant, double tend) {
    (void)time, (void)courant, (void)tend;
    throw std::logic_error("ramses-oct AMR: start_clock on a device step without the device dt");
  }
  virtual void queue_step() { throw std::logic_error("ramses-oct AMR: queue_step on a device step without the device dt"); }
  virtual LeafScan step_scan(double& device_dt) {
    (void)device_dt;
    throw std::logic_error("ramses-oct AMR: step_scan on a device step without the device dt");
  }
  virtual void wait_queued() {}
  // The regrid on the device, in calls the driver times apart. criterion(): the criterion byte
  // of every cell of the current tree (every kind, amr_flags_body.hpp); refinement_flags(): the
  // flags from it (son flags, buffer, 2:1 balance) into the device array flag_; nothing comes up:
  // the error word comes with rebuild()'s counts, and rebuild() throws the host's RuntimeError
  // where the tree was not balanced (the host and emulated steps throw in refinement_flags).
  // The device rebuild (amr_rebuild_body.hpp): rebuild() builds the
  // new tree's octs, their father and son links and the old->new map beside the current tree
  // from flag_ (only the counts come up: octs per level, created octs), exit 3 (RuntimeError)
  // over max_octs before allocating, false when the tree is unchanged (then nothing else is
  // needed); link() builds its coordinate hash and neighbour tables; adopt() moves the state
  // through the device map (move_cell, amr_regrid_body.hpp), makes the new tree the current one,
  // builds the step lists and plan from it and scans it for the next dt (scan() returns that),
  // with one wait at its end, where the scan's words and the lists' and plan's counts come up.
  virtual void criterion(const RefineCriterion& rc, double gamma) = 0;
  virtual void refinement_flags() = 0;
  virtual bool rebuild(std::int64_t max_octs) = 0;
  virtual void link() = 0;
  virtual void adopt() = 0;
  // The current tree's level_begin (the counts the host keeps while its tree is stale), its leaf
  // cells per level counted on the device, and the whole tree copied back (where the host needs
  // it: the end of the run, a bad cell's report).
  virtual const std::vector<std::int64_t>& level_begin() const = 0;
  virtual std::vector<std::int64_t> leaf_cells_per_level() = 0;
  virtual void download_tree(Tree& t) = 0;
  // Test hooks: flag_ copied back (the flags against the host's), flag_ set from the host (the
  // rebuild against the host's on flags no criterion gives), the last rebuild's map copied back.
  virtual void download_flags(std::vector<char>& flag) = 0;
  virtual void upload_flags(const std::vector<char>& flag) = 0;
  virtual void download_map(RegridMap& m) = 0;
  // Test hook: the regrids whose step lists and plan were built again with exact sizes because a
  // count passed the capacity the queued build guessed (the GPU step's fallback); a step without one has none.
  virtual long long regrid_fallbacks() const { return 0; }
  // Over MPI ranks: set_ranks() gives the hooks (kept by pointer; null: one rank). set_owned()
  // takes t's owned ranges (Tree::owned_begin, owned_end; empty: every oct) for the lists, plan and
  // dt scan that the next upload, adopt or replan builds (lists_owns); replan() builds them again
  // for the current tree (after a re-cut changed the ranges). state(): the current state on the
  // device, which the ghost exchange and the migration write into between calls.
  virtual void set_ranks(const DeviceRanks* ranks) {
    if (ranks) throw std::logic_error("ramses-oct AMR: this device step does not run over MPI ranks");
  }
  virtual void set_owned(const Tree& t) {
    if (!t.owned_begin.empty()) throw std::logic_error("ramses-oct AMR: set_owned on a one-rank device step");
  }
  virtual void replan() { throw std::logic_error("ramses-oct AMR: replan on a one-rank device step"); }
  // After a rebuild() that changed the tree: the new tree's keys and level_begin (what the owned
  // ranges of its partition are computed from, before adopt() builds its lists).
  virtual void new_tree_keys(std::vector<std::uint64_t>& key, std::vector<std::int64_t>& level_begin) {
    (void)key, (void)level_begin;
    throw std::logic_error("ramses-oct AMR: new_tree_keys on a one-rank device step");
  }
  virtual double* state() { throw std::logic_error("ramses-oct AMR: state on a one-rank device step"); }
  // Over MPI ranks, after an upload, adopt or replan over owned ranges: this rank's request lists
  // of the current tree (RankLists: per level its ghost octs, per coarse level the reflux faces
  // whose fine oct another rank owns), built on the device through the host's bodies
  // (amr_ranks_body.hpp) and copied up: the exchanges' contents, of the halo's size, not the tree.
  virtual void rank_lists(RankLists& r) {
    (void)r;
    throw std::logic_error("ramses-oct AMR: rank_lists on a one-rank device step");
  }
  // Over MPI ranks: the current tree's work per base oct (base_work: leaf cells weighted by
  // substeps, summed over each base oct's descendants) reduced on the device; only the base octs'
  // totals come up. The partition's re-cut reads it in place of the tree.
  virtual std::vector<std::int64_t> base_work(bool subcycle) {
    (void)subcycle;
    throw std::logic_error("ramses-oct AMR: base_work on a one-rank device step");
  }
};
#if COPA_GPU
// The capacities a regrid's queued lists and plan build guesses for its reflux faces and ghosts:
// optimistic (the last counts and a quarter more), or starved (half the last counts, for the test
// of the fallback that builds them again with exact sizes; the unit kernels' grids, sized from the
// last unit count the same way, then stride).
enum class RegridCapacity { optimistic, starved };
// subcycle: the step also keeps the per-level ranges and the fine-flux sums advance_subcycled needs.
// group_min: the fewest leaf octs of a 2 x 2 x 2 block updated as one sibling group.
std::unique_ptr<DeviceStep> make_gpu_amr_step(const HydroParams& hp, bool reflux, bool subcycle = false,
                                              int group_min = default_group_min,
                                              RegridCapacity capacity = RegridCapacity::optimistic);
#endif

}  // namespace ro::amr
