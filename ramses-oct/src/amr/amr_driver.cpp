#include "amr/amr_driver.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "amr/amr_gpu.hpp"
#include "amr/amr_subcycle.hpp"
#include "copa/errors.hpp"
#include "copa/gpu_model.hpp"

namespace ro::amr {

namespace {

// A region timed only when `on` (the device regrid's parts under --phase-timing).
struct PartRegion {
  PartRegion(copa::RegionTimer& timer, const char* name, bool on) {
    if (on) r.emplace(timer, name);
  }
  std::optional<copa::Region> r;
};

// Exit 3 naming the step, the time, the leaf cell (level, oct, cell, coordinates) and its values.
void check_bad_cell(const Tree& t, const std::vector<double>& u, double gamma, long step, double time,
                    std::int64_t cell) {
  if (cell < 0) return;
  const std::int64_t stride = t.noct() * 8;
  double uc[nvar], q[nvar];
  for (int f = 0; f < nvar; ++f) uc[f] = u[f * stride + cell];
  cons_to_prim(uc, gamma, q);
  const auto ic = t.cell_coords(cell / 8, int(cell % 8));
  std::ostringstream os;
  os.precision(10);
  os << "non-physical state after step " << step << " (t = " << time << "): leaf cell of level "
     << int(t.level[cell / 8]) << " (oct " << cell / 8 << ", cell " << cell % 8 << ", i,j,k = " << ic[0] << ","
     << ic[1] << "," << ic[2] << ") has density " << q[0] << " and pressure " << q[4] << non_physical_hint;
  throw copa::RuntimeError(os.str());
}

// The device dt's self-check: the dt the device computed for a step equals the host's bit for bit
// (one formula, amr_clock.hpp), or the run stops naming both.
void check_device_dt(double host_dt, double device_dt, long step) {
  if (std::memcmp(&host_dt, &device_dt, sizeof host_dt) == 0) return;
  std::ostringstream os;
  os.precision(17);
  os << "ramses-oct AMR device dt: step " << step << " ran with dt = " << device_dt << " on the device, the host's is "
     << host_dt;
  throw std::logic_error(os.str());
}

// The reflux and restriction work of one (coarse) step on the current tree, counted at each
// regrid: the reflux faces of every coarse level and the son octs restricted into it, level l's
// counted 2^l times under --subcycle (its reflux and restriction follow each of its substeps,
// amr_subcycle.hpp). finest: the restriction of the finest level with sons (global dt only).
struct SideWork {
  double faces = 0, restricted = 0, finest = 0;
};

// The restriction part from t's owned ranges (levels and owned ranges alone): its owned son octs.
void add_owned_restrictions(SideWork& w, const Tree& t, bool subcycle) {
  for (int l = t.max_level - 1; l >= 0; --l) {
    const double sons = double(t.owned_last(l + 1) - t.owned_first(l + 1));
    if (w.restricted == 0) w.finest = sons;
    w.restricted += double(level_substeps(l, subcycle)) * sons;
  }
}

// Host path: this rank's reflux faces (its step lists) and owned son octs.
SideWork side_work(const Tree& t, const StepLists& lists, bool reflux, bool subcycle) {
  SideWork w;
  if (reflux)
    for (const RefluxFace& f : lists.faces) w.faces += double(level_substeps(t.level[f.cell >> 3], subcycle));
  add_owned_restrictions(w, t, subcycle);
  return w;
}

// GPU path: the device plan's counts (per level only when it was built for --subcycle). Over ranks
// (t with owned ranges: the host tree's shape, its level_begin and owned ranges) the reflux faces
// are this rank's (the device lists' cover its owned octs), the restrictions its owned son octs
// (the device plan restricts every rank's octs).
SideWork side_work(const PlanCounts& c, const Tree& t, bool reflux, bool subcycle) {
  const int max_level = t.max_level;
  SideWork w;
  if (reflux && subcycle)
    for (std::size_t l = 0; l + 1 < c.levels.face_begin.size(); ++l)
      w.faces += double(level_substeps(int(l), true)) * double(c.levels.face_begin[l + 1] - c.levels.face_begin[l]);
  else if (reflux)
    w.faces = double(c.faces);
  if (!t.owned_begin.empty()) {
    add_owned_restrictions(w, t, subcycle);
    return w;
  }
  // restrict_begin: per level from L - 1 down to 0 (+ end).
  for (std::size_t k = 0; k + 1 < c.restrict_begin.size(); ++k) {
    const double sons = double(c.restrict_begin[k + 1] - c.restrict_begin[k]);
    if (w.restricted == 0) w.finest = sons;
    w.restricted += double(level_substeps(max_level - 1 - int(k), subcycle)) * sons;
  }
  return w;
}

}  // namespace

AmrResult run_amr(copa::Backend b, const OctMesh& base, const RunConfig& cfg,
                  const AmrConfig& ac) {
  // GPU backends: the step runs on the device (amr_gpu.cu), and so does the regrid whole:
  // criterion, refinement flags, tree rebuild and links, state move, step lists and step plan;
  // the initial grid is built on the host with the host loops. With --subcycle the device runs
  // the subcycled coarse step (advance_subcycled).
  std::unique_ptr<DeviceStep> dev;
  if (ac.device) dev = ac.device(cfg.hydro, ac.reflux);
#if COPA_GPU
  else if (copa::is_gpu(b)) dev = make_gpu_amr_step(cfg.hydro, ac.reflux, ac.subcycle, ac.group_min);
#endif
#if defined(COPA_HAVE_OPENMP)
  const auto loops = dev ? make_openmp_loops() : make_loops(b);
#else
  const auto loops = dev ? make_serial_loops() : make_loops(b);
#endif
  AmrResult r;
  copa::HostTimer timer(r.profile);
  if (dev && ac.phase_timing) dev->time_phases(r.profile);
  r.tree = base_tree(base, ac.levels);
  Tree& t = r.tree;
  std::vector<double>& u = r.u;
  {
    copa::Region reg(timer, "initial_grid");
    initial_grid(t, u, cfg.problem, ac.criterion, ac.max_octs, *loops);
    if (ac.set_state) {
      ac.set_state(t, u);
      restrict_all(t, u, *loops);
    }
  }
  // Every rank built the whole initial grid and state (the problem's formula): the totals are one
  // rank's; from here on each rank computes its owned octs.
  r.initial = leaf_totals(t, u);
  RankComm* const comm = ac.comm;
  if (comm) {
    comm->set_timer(&timer);
    comm->partition(t);
  }
  // The lists are rebuilt in place at every regrid (their vectors only grow); on the GPU path
  // the device builds its own from the uploaded tree ("The device lists").
  // The device dt: the GPU global step queues step k, then waits for the
  // scan before it; --subcycle, --phase-timing and MPI ranks (the dt is a reduction over ranks)
  // keep the host dt.
  const bool device_dt = dev && !comm && !ac.subcycle && !ac.phase_timing && dev->queues_steps();
  // GPU path over ranks: the device step's lists, plan and scan cover the owned octs; the fine
  // fluxes, the criterion bytes and (--subcycle) each level's ghosts of the other ranks reach it
  // inside advance(), advance_subcycled() and refinement_flags() (DeviceRanks), every level's
  // ghosts after each step and regrid (fill_ghosts on its device state). The regrid stays on the
  // device: the host gets the new tree's keys and level_begin (the partition), its work per base
  // oct (the re-cut), its request lists (the exchanges) and the plan's counts, and downloads the
  // tree only where it reads it (a bad cell's report, the end of the run).
  DeviceRanks ranks;
  if (dev && comm) {
    ranks.fluxes = [&](int l, double* flux) { comm->fluxes(l, flux); };
    ranks.ghosts = [&](int l, double* state) { comm->fill_ghosts(l, state); };
    ranks.criterion = [&](std::vector<char>& crit) { comm->combine_criterion(t, crit); };
    dev->set_ranks(&ranks);
    dev->set_owned(t);
  }
  StepLists lists;
  if (dev) {
    copa::Region reg(timer, "upload");
    dev->upload(t, u);
    if (device_dt) dev->start_clock(0.0, cfg.courant, cfg.tend);
  }
  // Over ranks the exchanges are built from this rank's request lists: the device's on the GPU
  // path (built where its tree is), else the host's from its tree and lists.
  const auto adopt_patterns = [&] {
    if (dev) {
      RankLists requests;
      dev->rank_lists(requests);
      comm->adopt(requests);
    } else {
      comm->adopt(rank_lists(t, lists));
    }
  };
  if (!dev) build_step_lists(t, *loops, lists);
  if (comm) adopt_patterns();
  Stepper stepper(*loops, cfg.hydro, ac.reflux);
  std::vector<double> unew = u;
  // The reflux and restriction work per step, counted again after every regrid that changes the tree.
  SideWork side;
  const auto count_side_work = [&] {
    side = dev ? side_work(dev->counts(), t, ac.reflux, ac.subcycle) : side_work(t, lists, ac.reflux, ac.subcycle);
  };
  count_side_work();
  // GPU path: after a device rebuild the host tree is stale (over ranks all but its keys,
  // level_begin and owned ranges); the host keeps the device's counts (leaf cells, octs) and
  // copies the tree back only where it reads it.
  bool host_tree_stale = false;
  const auto current_tree = [&](const char* row) {
    if (!host_tree_stale) return;
    copa::Region reg(timer, row);
    dev->download_tree(t);
    host_tree_stale = false;
  };
  // One step with the host's dt: the device's (waiting for it), or the host's.
  const auto host_dt_step = [&](double dt) {
    if (dev) {
      {
        copa::Region reg(timer, "hydro_update+reflux+restriction");
        if (ac.subcycle)
          dev->advance_subcycled(dt);
        else
          dev->advance(dt);
      }
      if (comm) comm->fill_ghosts(dev->state());
    } else if (ac.subcycle) {
      {
        copa::Region reg(timer, "hydro_update+reflux+restriction");
        subcycled_step(t, lists, stepper, *loops, u, unew, dt, comm);
      }
      if (comm) comm->fill_ghosts(u.data());
    } else {
      {
        copa::Region reg(timer, "hydro_update");
        stepper.update(t, lists, u, unew, dt);
      }
      if (comm) comm->fluxes(-1, stepper.fine_flux());
      {
        copa::Region reg(timer, "reflux");
        stepper.reflux(t, lists, unew, dt);
      }
      {
        copa::Region reg(timer, "restriction");
        restrict_all(t, unew, *loops);
      }
      u.swap(unew);
      if (comm) comm->fill_ghosts(u.data());
    }
  };
  // GPU path over ranks, after a regrid's device part (the new tree's owned ranges already set):
  // the load balance from the device's work per base oct (the migrating octs' state moved between
  // the devices, then the device lists, plan and scan built again over the new ranges), the
  // exchange patterns from the device's request lists, the ghosts. A tree that did not change
  // keeps all of it unless a re-cut moves octs.
  const auto device_partition = [&](bool tree_changed) {
    const bool recut = comm->rebalance(t, dev->base_work(comm->subcycle()), dev->state());
    if (!tree_changed && !recut) return;
    if (recut) {
      copa::Region sub(timer, "regrid.device_lists+plan");
      dev->set_owned(t);
      dev->replan();
    }
    {
      copa::Region sub(timer, "regrid.patterns");
      adopt_patterns();
    }
    comm->fill_ghosts(dev->state());
    count_side_work();
  };
  const auto regrid_due = [&](long s) { return ac.regrid_every > 0 && s > 0 && s % ac.regrid_every == 0; };
  std::int64_t leaves = t.leaf_cells(), octs = t.noct();
  double level_updates = ac.subcycle ? subcycled_leaf_updates(t) : 0.0;  // per coarse step
  double time = 0;
  long step = 0;
  while (time < cfg.tend && step < cfg.max_steps) {
    if (regrid_due(step)) {
      copa::Region reg(timer, "regrid");
      bool tree_changed = true;
      if (dev) {
        // The state and the tree stay on the device: the criterion, the flags, the new tree beside
        // the old one, its links and the state's move are all computed there; only counts and
        // error words cross.
        // The parts' rows only under --phase-timing: the device then waits at the end of each
        // part (GpuAmrStep::end_regrid_part); otherwise a part's row would time its launches alone.
        {
          const PartRegion sub(timer, "regrid.criterion", ac.phase_timing);
          dev->criterion(ac.criterion, cfg.hydro.gamma);
        }
        {
          const PartRegion sub(timer, "regrid.flags", ac.phase_timing);
          dev->refinement_flags();
        }
        // regrid.tree is the tree rebuild whole; its two parts get their own rows.
        {
          const PartRegion sub(timer, "regrid.tree", ac.phase_timing);
          {
            const PartRegion rebuild(timer, "regrid.rebuild", ac.phase_timing);
            tree_changed = dev->rebuild(ac.max_octs);
          }
          if (tree_changed) {
            const PartRegion link(timer, "regrid.link", ac.phase_timing);
            dev->link();
          }
        }
        // The same tree again (a static grid, or flags that did not move): the device state,
        // tables and plan all stay as they are.
        if (tree_changed) {
          // Over ranks the adopt builds the new tree's lists and plan over this rank's octs of it:
          // its owned ranges from its keys (the base-oct cuts stay until a re-cut). The host tree
          // takes the new keys and level_begin (what the partition, the re-cut and the criterion
          // bytes' gather read); its other tables stay stale until current_tree.
          if (comm) {
            host_tree_stale = true;
            dev->new_tree_keys(t.key, t.level_begin);
            comm->partition(t);
            dev->set_owned(t);
          }
          const PartRegion sub(timer, "regrid.move+device_lists+plan", ac.phase_timing);
          dev->adopt();
          host_tree_stale = true;
          const std::vector<std::int64_t> per_level = dev->leaf_cells_per_level();
          std::int64_t n = 0;
          for (const std::int64_t c : per_level) n += c;
          leaves = n;
          octs = dev->level_begin().back();
          // The host tree is stale here: the device's counts give the substeps' updates.
          if (ac.subcycle) level_updates = subcycled_leaf_updates(per_level);
          if (!comm) count_side_work();
        }
        if (comm) device_partition(tree_changed);
      } else {
        {
          copa::Region sub(timer, "regrid.tree");
          regrid(t, u, ac.criterion, cfg.hydro.gamma, ac.max_octs, *loops, comm);
        }
        {
          copa::Region sub(timer, "regrid.step_lists");
          build_step_lists(t, *loops, lists);
          unew = u;
        }
        if (comm) {
          {
            copa::Region sub(timer, "regrid.patterns");
            adopt_patterns();
          }
          comm->fill_ghosts(u.data());
        }
        leaves = t.leaf_cells();
        octs = t.noct();
        if (ac.subcycle) level_updates = subcycled_leaf_updates(t);
        count_side_work();
      }
      ++r.regrids;
    }
    r.max_leaf_cells = std::max(r.max_leaf_cells, leaves);
    r.max_octs_used = std::max(r.max_octs_used, octs);
    {
      copa::Region s(timer, "step");
      double dt;
      if (device_dt) {
        // Step k queued with the device's dt, then the wait for the scan it started from (the end of
        // step k - 1, or the regrid's scan, already waited for): the device has step k to run while
        // the host checks that scan and computes the same dt.
        {
          copa::Region reg(timer, "hydro_update+reflux+restriction");
          dev->queue_step();
        }
        double on_device;
        {
          copa::Region reg(timer, "dt_reduction");
          const LeafScan scan = dev->step_scan(on_device);
          if (scan.bad_cell >= 0) {
            // Step k was halted on the device: u is the state the scan found the cell in.
            current_tree("download_tree");
            dev->download(u);
          }
          check_bad_cell(t, u, cfg.hydro.gamma, step, time, scan.bad_cell);
          dt = clip_dt(time, cfl_dt(t, scan, cfg.courant), cfg.tend);
        }
        check_device_dt(dt, on_device, step);
      } else {
        // On the GPU path the scan ran at the end of the previous advance() (its kernel time is in
        // the update row) unless a regrid changed the tree since: this row is then the host's
        // cfl_dt alone.
        LeafScan scan;
        {
          copa::Region reg(timer, "dt_reduction");
          scan = dev ? dev->scan() : scan_leaves(t, u, cfg.hydro.gamma, *loops);
          if (dev && scan.bad_cell >= 0) {
            current_tree("download_tree");
            dev->download(u);
          }
          if (comm) {
            comm->combine(scan);
            // Another rank's bad cell: owns() reads the oct's level, so the tree comes first.
            if (dev && scan.bad_cell >= 0) current_tree("download_tree");
            if (scan.bad_cell >= 0 && !t.owns(scan.bad_cell / 8)) comm->wait_for_failure(step, time, scan.bad_cell);
          }
          check_bad_cell(t, u, cfg.hydro.gamma, step, time, scan.bad_cell);
          dt = ac.subcycle ? subcycle_dt(t, scan, cfg.courant) : cfl_dt(t, scan, cfg.courant);
        }
        dt = clip_dt(time, dt, cfg.tend);
        host_dt_step(dt);
      }
      time += dt;
      // The device dt: the step before a regrid, and the last, waited for in their own row, so that
      // the regrid's row (its first copy would wait for the step) and the end hold none of a
      // step's device time, and the FOM's step total all of it.
      if (device_dt && !(time < cfg.tend && step + 1 < cfg.max_steps && !regrid_due(step + 1))) dev->wait_queued();
    }
    r.leaf_cell_updates += ac.subcycle ? level_updates : double(leaves);
    r.reflux_face_updates += side.faces;
    r.restricted_oct_updates += side.restricted;
    r.finest_restricted_oct_updates += side.finest;
    if (dev) {
      const PlanCounts& c = dev->counts();
      if (ac.subcycle) {
        // Level l's leaf octs are updated 2^l times per coarse step; those not single are in groups.
        for (std::size_t l = 0; l + 1 < c.levels.leaf_begin.size(); ++l) {
          const double leaves = double(c.levels.leaf_begin[l + 1] - c.levels.leaf_begin[l]);
          const double singles = double(c.levels.single_begin[l + 1] - c.levels.single_begin[l]);
          const double substeps = double(level_substeps(int(l), true));
          r.leaf_oct_updates += substeps * leaves;
          r.grouped_oct_updates += substeps * (leaves - singles);
        }
      } else {
        r.leaf_oct_updates += double(c.leaf_octs);
        r.grouped_oct_updates += double(c.leaf_octs - c.singles);
      }
    }
    ++step;
  }
  if (dev) {
    current_tree("download_tree");
    dev->download(u);
  }
  LeafScan last = scan_leaves(t, u, cfg.hydro.gamma, *loops);
  if (comm) {
    comm->combine(last);
    if (last.bad_cell >= 0 && !t.owns(last.bad_cell / 8)) comm->wait_for_failure(step, time, last.bad_cell);
  }
  check_bad_cell(t, u, cfg.hydro.gamma, step, time, last.bad_cell);
  if (comm) {
    // Every rank gets the whole state: the totals, checksum and verdict are then one rank's.
    comm->gather(t, u);
    r.level_counts = comm->level_counts(t);
    t.owned_begin.clear();
    t.owned_end.clear();
  }
  timer.flush();
  r.final = leaf_totals(t, u);
  r.t = time;
  r.steps = step;
  r.device_dt = device_dt;
  if (dev) r.regrid_fallbacks = dev->regrid_fallbacks();
  return r;
}

}  // namespace ro::amr
