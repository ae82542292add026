// Simulation mode: the semi-implicit MPS time loop (simulation.cpp) on one rank or over slabs,
// the surge front of the dam break against Martin & Moyce, over ranks the comparison with the
// same run on one rank, and with --compare-serial the comparison with the serial backend.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

#include "app.hpp"
#include "copa/errors.hpp"
#include "copa/halo.hpp"
#include "copa/mpi.hpp"
#include "copa/output.hpp"
#include "copa/progress.hpp"
#include "dist/gather.hpp"
#include "dist/rank_kernels.hpp"
#include "reference.hpp"
#include "simulation.hpp"
#include "verification.hpp"
#include "vtk_output.hpp"

namespace mps::app {
namespace {

// One simulation's time loop on `k` (a dist::RankKernels on several ranks): the surge front of the
// dam break every 0.05 in T (its maximum over ranks when `over_ranks`), CG statistics, wall time.
struct Trajectory {
  int steps = 0;
  double dt = 0;
  std::vector<std::pair<double, double>> TZ;
  int cg_total = 0, cg_max = 0;
  double wall = 0;
  std::vector<std::string> vtk_files;
};

// quiet: no size line and no heartbeat (the other ranks, the one-rank comparison); vtk: the
// ParaView series of this run (empty options: none).
Trajectory simulate(mps::MpsKernels& k, const AppOptions& o, const mps::Problem& pr, const mps::SimParams& sp,
                    bool over_ranks, copa::RegionTimer& timer, std::ostream* front, bool quiet,
                    const copa::vtk::Options& vtk_options) {
  mps::Simulation sim(k, pr, sp);
  const bool dambreak = pr.column_width > 0 && o.case_name == "dambreak";
  const double a = pr.column_width;
  const double tscale = std::sqrt(2.0 * sp.gravity / std::max(a, 1e-30));  // T = t sqrt(2g/a)
  Trajectory t;
  t.dt = sim.dt();
  t.steps = o.steps > 0 ? o.steps : dambreak ? static_cast<int>(std::ceil(o.t_end / tscale / sim.dt())) : 10;
  const int out_every = std::max(1, static_cast<int>(std::lround(0.05 / tscale / sim.dt())));
  mps::Particles snapshot;
  auto record = [&](int step) {
    k.store(snapshot);
    double z = mps::front_position(snapshot, pr.left_wall_face, pr.l0);
    if (over_ranks) z = copa::mpi::max_all(z);
    const double time = step * sim.dt();
    t.TZ.emplace_back(time * tscale, z / a);
    if (front) *front << time << "," << z << "," << time * tscale << "," << z / a << "\n";
  };
  if (dambreak) record(0);
  copa::announce(quiet, std::to_string(pr.particles.size()) + " particles, " + std::to_string(pr.grid.nx) + " x " +
                            std::to_string(pr.grid.ny) + " x " + std::to_string(pr.grid.nz) + " buckets",
                 std::to_string(t.steps) + " time steps of " + std::to_string(sim.dt()) + " s");
  copa::vtk::Series vtk(vtk_options, "mps-density", "vtp");
  auto write_vtk = [&](const std::string& path) {
    k.store(snapshot);
    mps::write_particles_vtk(path, snapshot, k.get(mps::Field::n), true, vtk.encoding());
  };
  vtk.at_step(0, 0.0, write_vtk);
  copa::Progress progress("step", t.steps, quiet);
  const double t0 = copa::host_seconds();
  for (int s = 1; s <= t.steps; ++s) {
    const auto info = sim.step(timer);
    t.cg_total += info.cg_iterations;
    t.cg_max = std::max(t.cg_max, info.cg_iterations);
    if (dambreak && s % out_every == 0) {
      timer.flush();
      record(s);
    }
    if (vtk.due(s)) {
      timer.flush();
      vtk.at_step(s, s * sim.dt(), write_vtk);
    }
    progress.update(s);
  }
  timer.flush();
  t.wall = copa::host_seconds() - t0;
  vtk.at_end(t.steps, t.steps * sim.dt(), write_vtk);
  t.vtk_files = vtk.files();
  return t;
}

// Collective: run.decomposition of a distributed simulation at its end.
nlohmann::json simulation_decomposition_json(const mps::dist::RankKernels& rk, const AppOptions& o, int steps) {
  const auto& s = rk.slabs();
  mps::dist::Slabs end = s;
  end.work = copa::mpi::gather_all(static_cast<double>(rk.owned()));
  const auto ghosts = copa::mpi::gather_all(static_cast<double>(rk.ghosts()));
  // Particles migrated per rebuild over all ranks (every rank rebuilds at the same calls; the
  // set-up at step 0 is cut by slab and migrates nothing).
  const auto per_rebuild = copa::mpi::sum_ordered(rk.migrations());
  double total = 0, most = 0;
  for (double m : per_rebuild) total += m, most = std::max(most, m);
  const auto& rebuilds = rk.rebuilds();
  const double rebuild_seconds = copa::mpi::max_all(rk.rebuild_seconds());
  const double count = static_cast<double>(rebuilds.size());
  std::vector<int> at;
  int mid_step = 0, gap_min = 0, gap_max = 0, previous = 0;
  for (const auto& r : rebuilds) {
    at.push_back(r.step);
    mid_step += r.mid_step;
    const int gap = r.step - previous;  // steps since the previous build (the set-up: step 0)
    gap_min = at.size() == 1 ? gap : std::min(gap_min, gap);
    gap_max = std::max(gap_max, gap);
    previous = r.step;
  }
  nlohmann::json recuts = nlohmann::json::array();
  for (const auto& r : rk.recuts()) recuts.push_back({{"step", r.step}, {"imbalance_before", r.before}, {"imbalance_after", r.after}});
  const auto& c = rk.census();
  return {{"ranks", end.ranks()}, {"axis", end.axis == 2 ? "z" : "x"}, {"cuts", end.cuts}, {"local_work", end.work},
          {"unit", "owned particles at the end"}, {"imbalance", end.imbalance()}, {"ghosts", ghosts},
          {"migrations", {{"steps", steps}, {"rebuilds", rebuilds.size()}, {"total", total},
                          {"mean_per_rebuild", count > 0 ? total / count : 0.0}, {"max_per_rebuild", most}}},
          {"rebuilds", {{"count", rebuilds.size()},
                        {"criterion", "largest displacement since the last rebuild > ghost_margin / 2"},
                        {"ghost_margin_l0", o.ghost_margin}, {"at_steps", at}, {"mid_step", mid_step},
                        {"steps_per_rebuild", count > 0 ? steps / count : static_cast<double>(steps)},
                        {"steps_between_min", gap_min}, {"steps_between_max", gap_max},
                        {"seconds_total_max_over_ranks", rebuild_seconds},
                        {"seconds_per_rebuild", count > 0 ? rebuild_seconds / count : 0.0}}},
          {"rebalance", {{"threshold", o.rebalance}, {"recuts", rk.recuts().size()}, {"events", recuts}}},
          {"conservation", {{"particles", c.particles}, {"id_sum", c.id_sum}, {"id_hash_sum", c.id_hash_sum},
                            {"checked", "after every rebuild"}}}};
}

// The final state in global id order (rank 0; the others get empty vectors).
mps::Particles gather_state(mps::dist::RankKernels& rk, std::size_t global_count) {
  mps::Particles mine, out;
  rk.store(mine);
  const auto ids = rk.owned_ids();
  out.dim = mine.dim;
  out.x = mps::dist::gather_by_id(mine.x, ids, global_count);
  out.y = mps::dist::gather_by_id(mine.y, ids, global_count);
  out.z = mps::dist::gather_by_id(mine.z, ids, global_count);
  out.u = mps::dist::gather_by_id(mine.u, ids, global_count);
  out.v = mps::dist::gather_by_id(mine.v, ids, global_count);
  out.w = mps::dist::gather_by_id(mine.w, ids, global_count);
  out.p = mps::dist::gather_by_id(mine.p, ids, global_count);
  return out;
}

// How far a run (front tr, final state end) is from the same steps run another way (one, end1):
// the largest relative difference of the front over the common samples and the largest position
// difference over all particles, in units of l0.
struct RunDifference {
  double front = 0, position_over_l0 = 0;
  bool same_samples = false;
};
RunDifference difference(const Trajectory& tr, const mps::Particles& end, const Trajectory& one,
                         const mps::Particles& end1, double l0) {
  RunDifference d;
  for (std::size_t s = 0; s < std::min(one.TZ.size(), tr.TZ.size()); ++s)
    d.front = std::max(d.front, std::fabs(tr.TZ[s].second - one.TZ[s].second) / std::fabs(one.TZ[s].second));
  for (std::size_t i = 0; i < end.x.size(); ++i)
    d.position_over_l0 = std::max(d.position_over_l0, std::max({std::fabs(end.x[i] - end1.x[i]), std::fabs(end.y[i] - end1.y[i]),
                                                               std::fabs(end.z[i] - end1.z[i])}) / l0);
  d.same_samples = one.TZ.size() == tr.TZ.size();
  return d;
}

}  // namespace

// On several ranks every rank runs its slab (dist::RankKernels) and rank 0 judges the gathered
// result, then runs the same simulation alone and compares.
int run_simulation(const AppOptions& o, const copa::CommonOptions& common, Strategy s, copa::Backend b,
                   const Problem& pr, const dist::Slabs* slabs, copa::Report& rep) {
  if (s == Strategy::brute && pr.particles.size() > 50000) throw copa::InputError("--variant brute: at most 50000 particles");
  const mps::KernelOptions ko = kernel_options(o, s, false);
  std::unique_ptr<mps::MpsKernels> k = mps::make_kernels(b, ko);
  mps::dist::RankKernels* rk = nullptr;
  if (slabs) {
    mps::dist::RankOptions ro;
    ro.transport = copa::halo::parse_transport(o.transport);
    ro.margin = o.ghost_margin;
    ro.rebalance = o.rebalance;
    auto wrapped = std::make_unique<mps::dist::RankKernels>(std::move(k), *slabs, ro);
    rk = wrapped.get();
    k = std::move(wrapped);
    rep.set_transport(o.transport);
  }
  mps::SimParams sp;
  sp.dt = o.dt;
  sp.cg_tol = o.cg_tol;
  const std::size_t N = pr.particles.size();
  const bool dambreak = pr.column_width > 0 && o.case_name == "dambreak";
  const bool root = copa::mpi::is_root();
  copa::Profile profile;
  auto timer = make_timer(b, profile);
  // The front table is kept in memory and written whole after the run (copa::write_output).
  const bool write_front = !o.front.empty() && dambreak && root;
  std::ostringstream front;
  if (write_front) front << "t,z_front,T,Z\n";
  const Trajectory tr = simulate(*k, o, pr, sp, rk != nullptr, *timer, write_front ? &front : nullptr,
                                 common.quiet || !root, o.vtk);
  if (write_front) copa::write_output(o.front, "--front", [&](std::ostream& out) { out << front.str(); });
  const int steps = tr.steps;
  double step_time = 0;
  for (const auto& name : profile.names()) step_time += profile.total(name);
  step_time = copa::mpi::max_all(step_time);  // the slowest rank sets the pace
  const double Nd = static_cast<double>(N);
  // The rows are per rank (times: the max over ranks): over ranks they count a rank's targets, the
  // mean owned count N / ranks (the owned counts change at every migration).
  const double per_rank = rk ? Nd / copa::mpi::size() : Nd;
  for (const auto& name : profile.names()) {
    copa::KernelCost c;  // neighbour sums dominate; minimum bytes: 7 fields read + written per call
    c.bytes_read = per_rank * 7 * 8;
    c.bytes_written = per_rank * 7 * 8;
    rep.add_kernel(name, profile.stats(name), c);
  }
  nlohmann::json decomposition;
  if (rk) {
    decomposition = simulation_decomposition_json(*rk, o, steps);
    rep.set_decomposition(decomposition);
  }
  rep.reduce_over_ranks();
  const int list_rebuilds = k->list_rebuilds();
  mps::Particles end;
  if (rk) end = gather_state(*rk, N);
  else k->store(end);
  k.reset();  // rank 0's one-rank run below then needs no more memory than a one-rank run
  if (!root) return copa::exit_ok;

  rep.set_fom({"particle-steps per second", Nd * steps / step_time, "particle-steps/s"});
  auto& ex = rep.extra()["mps"];
  ex["particles"] = N;
  ex["steps"] = steps;
  ex["dt"] = tr.dt;
  ex["cg_tolerance"] = sp.cg_tol;
  ex["cg_iterations_mean"] = static_cast<double>(tr.cg_total) / steps;
  ex["cg_iterations_max"] = tr.cg_max;
  ex["list_rebuilds"] = list_rebuilds;
  ex["wall_seconds"] = tr.wall;
  if (!tr.vtk_files.empty()) ex["vtk_files"] = tr.vtk_files;
  if (!common.quiet)
    std::cout << "particles " << N << ", steps " << steps << ", dt " << tr.dt << " s, CG iterations mean "
              << static_cast<double>(tr.cg_total) / steps << " max " << tr.cg_max << ", particle-steps/s " << Nd * steps / step_time
              << "\n";
  ex["checksum"] = checksum({&end.x, &end.y, &end.z, &end.u, &end.v, &end.w, &end.p});
  if (!common.quiet) std::cout << "checksum of x,y,z,u,v,w,p (FNV-1a of the bits, original order): " << ex["checksum"].get<std::string>() << "\n";
  if (rk && !common.quiet) {
    const auto& d = decomposition;
    std::cout << "ranks " << d["ranks"] << ": particles and ids conserved over " << d["rebuilds"]["count"]
              << " rebuilds in " << steps << " steps (" << d["migrations"]["total"].get<long long>()
              << " particles migrated, at most " << d["migrations"]["max_per_rebuild"].get<long long>()
              << " in one rebuild; " << d["rebuilds"]["mid_step"] << " of the rebuilds inside a step); owned at the end "
              << d["local_work"] << ", imbalance " << d["imbalance"]
              << "; re-cuts: " << d["rebalance"]["recuts"] << "\n";
    for (const auto& e : d["rebalance"]["events"])
      std::cout << "  re-cut at step " << e["step"] << ": imbalance " << e["imbalance_before"] << " -> " << e["imbalance_after"] << "\n";
  }
  copa::Verification v;
  constexpr double T0 = 1.0, T1 = 3.0;
  // Surge front Z(T), T = t sqrt(2g/a) (Martin & Moyce's n t sqrt(g/a) for n^2 = 2), against the
  // experiment with no time offset, over 1 <= T <= 3. Tolerance: the scatter of the literature,
  // the largest relative distance between Koshizuka & Oka's published MPS front and the
  // experiment over the same range (computed from the two tables, README).
  auto front_error = [&](const Trajectory& t, double (*reference)(double), int& used) {
    return mps::front_error(t.TZ, reference, T0, T1, used);
  };
  const double scatter = dambreak ? mps::front_reference_scatter(T0, T1) : 0.0;
  if (dambreak) {
    int used = 0, used_ko = 0;
    const double err_mm = front_error(tr, mps::martin_moyce_Z, used);
    const double err_ko = front_error(tr, mps::koshizuka_oka_Z, used_ko);
    nlohmann::json series = nlohmann::json::array();
    for (const auto& [T, Z] : tr.TZ) series.push_back({T, Z});
    ex["front_T_Z"] = series;
    ex["front_error_vs_martin_moyce"] = err_mm;
    ex["front_error_vs_koshizuka_oka_mps"] = err_ko;
    ex["front_reference_scatter"] = scatter;
    ex["front_points_compared"] = used;
    if (!common.quiet)
      std::cout << "dam break front, max relative error for 1 <= T <= 3 (no time offset): " << err_mm
                << " vs Martin & Moyce's experiment, " << err_ko << " vs Koshizuka & Oka's MPS; scatter of the "
                << "literature (Koshizuka & Oka's MPS vs the experiment): " << scatter << "\n";
    if (used == 0) {
      v = copa::not_verified("the run ends at T = " + std::to_string(tr.TZ.back().first) +
                             ", before the compared range 1 <= T <= 3 of the dam-break front (--t-end, --steps)");
    } else {
      v.reference = "Martin & Moyce (1952) surge front, no time offset; tolerance = Koshizuka & Oka's MPS vs the experiment";
      v.metric = "max_rel_front_error_T1_3";
      v.value = err_mm;
      v.tolerance = scatter;
      v.passed = err_mm <= scatter;
    }
  } else {
    v = copa::not_verified("the tank simulation has no reference (no published P-Flow tank result); NaN and "
                           "particles leaving the bucket grid are checked every step (exit 3)");
  }
  if (rk) {
    // The same backend and variant on the whole set-up in this process. Not bitwise: the CG dot
    // products add per-rank partial sums (other association than one process), and a bucket
    // holding particles of two ranks (one crossed since the migration) sums them in another order;
    // both are round-off, which a tight --cg-tol keeps from growing beyond the tolerance.
    auto alone = mps::make_kernels(b, ko);
    copa::Profile p1;
    auto t1 = make_timer(b, p1);
    const Trajectory one = simulate(*alone, o, pr, sp, false, *t1, nullptr, true, copa::vtk::Options{});
    mps::Particles end1;
    alone->store(end1);
    const RunDifference diff = difference(tr, end, one, end1, pr.l0);
    const double front_diff = diff.front, pos_diff = diff.position_over_l0;
    const std::string sum1 = checksum({&end1.x, &end1.y, &end1.z, &end1.u, &end1.v, &end1.w, &end1.p});
    int used1 = 0;
    const bool mm_one = dambreak && front_error(one, mps::martin_moyce_Z, used1) <= scatter;
    const bool same_verdict = !dambreak || (v.verified && used1 > 0 && mm_one == v.passed) || (!v.verified && used1 == 0);
    const double tolerance = 1e-6;
    const bool ok = front_diff <= tolerance && pos_diff <= o.position_tolerance && same_verdict && diff.same_samples;
    ex["one_rank_check"] = {{"max_rel_front_difference", front_diff}, {"front_tolerance", tolerance},
                            {"max_position_difference_over_l0", pos_diff}, {"position_tolerance_over_l0", o.position_tolerance},
                            {"same_martin_moyce_verdict", same_verdict}, {"checksum_one_rank", sum1},
                            {"bitwise_equal", sum1 == ex["checksum"].get<std::string>()},
                            {"cg_iterations_mean_one_rank", static_cast<double>(one.cg_total) / one.steps}};
    if (!common.quiet)
      std::cout << "one-rank check " << (ok ? "passed" : "FAILED") << ": front max relative difference " << front_diff
                << " (tolerance " << tolerance << "), final positions max difference " << pos_diff << " l0 (tolerance "
                << o.position_tolerance << ")" << (sum1 == ex["checksum"].get<std::string>() ? ", bitwise equal" : "")
                << "; Martin & Moyce verdict over ranks: "
                << (!v.verified ? "not verified" : v.passed ? "passed" : "failed") << ", one rank: "
                << (!dambreak || used1 == 0 ? "not verified" : mm_one ? "passed" : "failed")
                << (same_verdict ? " (the same)" : " (DIFFERENT)") << "\n";
    if (!ok) v = {"the same run on one rank", "max_rel_front_difference_vs_one_rank", front_diff, tolerance, false};
  }
  if (o.compare_serial && b != copa::Backend::serial) {
    // The serial backend (its default strategy) runs the same steps in this process. Not bitwise:
    // the neighbour sums and the CG dot products are added in another order; a tight --cg-tol keeps
    // that round-off from growing beyond the tolerances, so a wrong trajectory cannot pass as the
    // dam break's known distance from the experiment.
    auto oracle = mps::make_kernels(copa::Backend::serial, kernel_options(o, Strategy::sorted_particle, false));
    copa::Profile ps;
    auto ts = make_timer(copa::Backend::serial, ps);
    const Trajectory ser = simulate(*oracle, o, pr, sp, false, *ts, nullptr, true, copa::vtk::Options{});
    mps::Particles ends;
    oracle->store(ends);
    const RunDifference diff = difference(tr, end, ser, ends, pr.l0);
    const double tolerance = 1e-6;
    const bool ok = diff.front <= tolerance && diff.position_over_l0 <= o.position_tolerance && diff.same_samples;
    ex["serial_check"] = {{"max_rel_front_difference", diff.front}, {"front_tolerance", tolerance},
                          {"max_position_difference_over_l0", diff.position_over_l0},
                          {"position_tolerance_over_l0", o.position_tolerance}, {"passed", ok},
                          {"cg_iterations_mean_serial", static_cast<double>(ser.cg_total) / ser.steps}};
    if (!common.quiet)
      std::cout << "serial check " << (ok ? "passed" : "FAILED") << ": front max relative difference " << diff.front
                << " (tolerance " << tolerance << "), final positions max difference " << diff.position_over_l0
                << " l0 (tolerance " << o.position_tolerance << ")\n";
    if (!ok)
      v = {"the same steps on the serial backend", "max_position_difference_vs_serial_over_l0", diff.position_over_l0,
           o.position_tolerance, false};
    else if (!v.verified)
      v = {"the same steps on the serial backend", "max_position_difference_vs_serial_over_l0", diff.position_over_l0,
           o.position_tolerance, true};
  }
  rep.set_verification(v);
  return !v.verified || v.passed ? copa::exit_ok : copa::exit_verification_failed;
}

}  // namespace mps::app
