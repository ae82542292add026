// Density mode: one rebucketing and one number density timed per repetition, then both in one
// region (the P-Flow step), on one rank or on each rank's slab with its ghosts; the FLOP/byte model of both rows (README, "FOM and the
// FLOP/byte model"), the statistics of the JSON and the verdict.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>

#include "app.hpp"
#include "copa/errors.hpp"
#include "copa/halo.hpp"
#include "copa/mpi.hpp"
#include "copa/progress.hpp"
#include "dist/gather.hpp"
#include "dist/rank_kernels.hpp"
#include "verification.hpp"
#include "vtk_output.hpp"

namespace mps::app {
namespace {

// This rank's slab with its ghosts (positions NaN until filled). List variants keep neighbours up
// to r_e + skin, so their ghosts reach as far.
mps::dist::LocalDomain slab_domain(const AppOptions& o, const mps::Problem& pr, const mps::dist::Slabs& slabs, bool verlet) {
  return mps::dist::local_domain(pr, slabs, copa::mpi::rank(), pr.re + (verlet ? o.skin * pr.l0 : 0.0));
}

// Host backends: the ghosts are filled in the set-up's host arrays before load, through the halo
// exchange on host memory (timed as "halo_exchange"): positions and types of the owners' particles.
void fill_ghosts_on_host(const AppOptions& o, const copa::CommonOptions& common, mps::dist::LocalDomain& d,
                         copa::Profile& profile, copa::KernelCost& cost) {
  std::vector<double> field;
  mps::dist::pack_halo_field(d.problem.particles, field);
  copa::halo::Exchange exchange(d.links, {mps::dist::halo_components, static_cast<std::int64_t>(d.problem.particles.size())},
                                copa::halo::parse_transport(o.transport), copa::halo::Memory::host);
  copa::HostTimer timer(profile);
  copa::repeat_timed(timer, "halo_exchange", common.warmup, common.reps, [&] { exchange.run(field.data()); });
  mps::dist::unpack_ghosts(field, d.owned, d.problem.particles);
  cost.bytes_read = static_cast<double>(exchange.bytes_sent());
  cost.bytes_written = static_cast<double>(exchange.bytes_received());
}

// Collective: the decomposition of run.decomposition (every rank's owned particles and ghosts).
// Density mode has one set-up cut, already the count-based one a re-cut would give: --rebalance is
// reported (re-cuts 0, whether the set-up passes the threshold), never acted on.
nlohmann::json decomposition_json(const mps::dist::Slabs& s, const mps::dist::LocalDomain& d, double rebalance) {
  const auto ghosts = copa::mpi::gather_all(static_cast<double>(d.problem.particles.size() - d.owned));
  return {{"ranks", s.ranks()}, {"axis", s.axis == 2 ? "z" : "x"}, {"cuts", s.cuts}, {"local_work", s.work},
          {"unit", "owned particles"}, {"imbalance", s.imbalance()}, {"ghosts", ghosts},
          {"rebalance", {{"threshold", rebalance}, {"recuts", 0},
                         {"above_threshold", rebalance > 0 && s.imbalance() > rebalance}}}};
}

// Number density of the whole set-up on this process alone (the one-rank answer of a distributed run).
std::vector<double> density_alone(copa::Backend b, const mps::KernelOptions& ko, const mps::Problem& pr) {
  auto k = mps::make_kernels(b, ko);
  k->load(pr, pr.re);
  k->prepare_neighbours(true);
  k->number_density(pr.re);
  return k->get(mps::Field::n);
}

}  // namespace

// On several ranks the kernels run on this rank's owned particles and ghosts, and rank 0 verifies
// the gathered densities.
int run_density(const AppOptions& o, const copa::CommonOptions& common, Strategy s, copa::Backend b, const Problem& pr,
                const dist::Slabs* slabs, copa::Report& rep) {
  const mps::KernelOptions ko = kernel_options(o, s, true);
  const bool verlet = ko.strategy == mps::Strategy::verlet;
  copa::Profile profile;
  copa::KernelCost halo_cost;
  std::optional<mps::dist::LocalDomain> local;
  if (slabs) {
    local = slab_domain(o, pr, *slabs, verlet);
    if (!copa::is_gpu(b)) fill_ghosts_on_host(o, common, *local, profile, halo_cost);
    rep.set_transport(o.transport);
    rep.set_decomposition(decomposition_json(*slabs, *local, o.rebalance));
  }
  const mps::Problem& mine = local ? local->problem : pr;
  copa::announce(common.quiet || !copa::mpi::is_root(),
                 std::to_string(pr.particles.size()) + " particles, " + std::to_string(pr.grid.nx) + " x " +
                     std::to_string(pr.grid.ny) + " x " + std::to_string(pr.grid.nz) + " buckets",
                 std::to_string(common.warmup) + " warm-up + " + std::to_string(common.reps) +
                     " timed repetitions of each kernel");
  auto k = mps::make_kernels(b, ko);
  const std::size_t N = mine.particles.size();
  k->load(mine, pr.re);
  auto timer = make_timer(b, profile);
  if (local && copa::is_gpu(b)) {
    // GPU backends: the ghosts are filled on the device, from the owners' device arrays, through
    // the transport of --transport (host: staged through pinned host buffers).
    copa::halo::Exchange exchange(local->links,
                                  {mps::dist::halo_components, static_cast<std::int64_t>(local->problem.particles.size())},
                                  copa::halo::parse_transport(o.transport), copa::halo::Memory::device);
    copa::repeat_timed(*timer, "halo_exchange", common.warmup, common.reps, [&] { k->fill_ghosts(exchange, local->owned); });
    halo_cost.bytes_read = static_cast<double>(exchange.bytes_sent());
    halo_cost.bytes_written = static_cast<double>(exchange.bytes_received());
  }
  const std::string build_row = verlet ? "rebucket+verlet-lists" : "rebucket";
  copa::repeat_timed(*timer, build_row, common.warmup, common.reps, [&] { k->prepare_neighbours(true); });
  const std::string row = "number-density";
  copa::repeat_timed(*timer, row, common.warmup, std::max(common.reps, 1), [&] { k->number_density(pr.re); });
  // The P-Flow step in one timed region, rebucketing then density as a time step runs them: the
  // two rows above together, the gaps between their launches included (--tuning step=graph: one
  // graph launch). An end_to_end row contains other rows: the scaling study's sum leaves it out.
  const std::string step_row = "end_to_end(" + build_row + "+" + row + ")";
  copa::repeat_timed(*timer, step_row, common.warmup, std::max(common.reps, 1), [&] { k->rebucket_and_density(pr.re); });
  const auto n_local = k->get(mps::Field::n);

  // The cost model is this rank's work: its owned particles are the targets (mine.ghosts), the
  // owned particles and ghosts the sources (positions read, bucketed).
  const auto st = mps::neighbour_statistics(mine, ko.strategy, pr.re, pr.re + o.skin * pr.l0);
  const double Nd = static_cast<double>(N);
  const double targets = static_cast<double>(N - mine.ghosts);
  const bool fp32 = ko.precision == copa::Precision::fp32;
  const double pos_bytes = fp32 ? 16.0 : 24.0;
  // FLOP/byte model (README): 8 FLOPs per candidate (3 sub, 3 FMA-equivalent, compare), 3 more
  // (sqrt counted as 1, divide, subtract... add) per true neighbour; minimum bytes: positions read
  // once, n written once (+ bucket starts, + lists for verlet).
  const bool fine = mps::is_fine(ko.strategy);
  const int fd = fine ? mps::fine_divisions : 1;
  const double cells = static_cast<double>(pr.grid.cells()) * fd * fd * (pr.grid.dim == 3 ? fd : 1);
  copa::KernelCost dc;
  dc.flops = 8.0 * st.candidates + 4.0 * st.neighbours;
  dc.bytes_read = Nd * pos_bytes + (verlet ? st.candidates * 4.0 + targets * 4 : cells * 4.0);
  dc.bytes_written = targets * 8.0;
  dc.precision = ko.precision;
  // Rebucketing: count (read positions, write cell and rank), scan (read counts, write starts,
  // zero counts), scatter (read cell, rank, start; write order and, with reorder, 7 fields + type + id).
  copa::KernelCost bc;
  bc.flops = Nd * 6;
  bc.bytes_read = Nd * (24 + 12) + (ko.reorder ? Nd * (7 * 8 + 1 + 4) : 0) + cells * 4;
  bc.bytes_written = Nd * (8 + 4) + (ko.reorder ? Nd * (7 * 8 + 1 + 4) : 0) + cells * 8;
  if (verlet) {
    bc.flops += 8.0 * st.candidates;
    bc.bytes_written += st.candidates * 4.0;
  }
  const copa::KernelCost sc = dc + bc;
  rep.add_kernel(build_row, profile.stats(build_row), bc);
  rep.add_kernel(row, profile.stats(row), dc);
  rep.add_kernel(step_row, profile.stats(step_row), sc);
  if (local) rep.add_kernel("halo_exchange", profile.stats("halo_exchange"), halo_cost);
  // The slowest rank sets the pace: rates are global evaluations over the MAX over ranks of the
  // per-rank medians (collective; the same as the medians on one rank).
  const double td = copa::mpi::reduce(profile.stats(row).median).max;
  const double tb = copa::mpi::reduce(profile.stats(build_row).median).max;
  const double ts = copa::mpi::reduce(profile.stats(step_row).median).max;
  rep.reduce_over_ranks();
  k.reset();  // rank 0's one-rank check below then needs no more memory than a one-rank run
  // The owned particles' densities, in global id order on rank 0.
  const std::vector<double> n =
      local ? mps::dist::gather_by_id(std::vector<double>(n_local.begin(), n_local.begin() + local->owned),
                                      std::vector<std::int64_t>(local->global_id.begin(), local->global_id.begin() + local->owned),
                                      pr.particles.size())
            : n_local;
  if (!copa::mpi::is_root()) return copa::exit_ok;

  const double Ng = static_cast<double>(pr.particles.size());
  const auto sg = local ? mps::neighbour_statistics(pr, ko.strategy, pr.re, pr.re + o.skin * pr.l0) : st;
  rep.set_fom({"density evaluations per second", Ng / td, "particles/s"});
  auto& ex = rep.extra()["mps"];
  ex["particles"] = pr.particles.size();
  ex["buckets"] = {pr.grid.nx, pr.grid.ny, pr.grid.nz};
  if (fine) ex["fine_buckets"] = {pr.grid.nx * fd, pr.grid.ny * fd, pr.grid.dim == 3 ? pr.grid.nz * fd : 1};
  ex["density_seconds_median"] = td;
  ex["rebucket_seconds_median"] = tb;
  ex["evaluations_per_second"] = Ng / td;
  ex["evaluations_per_second_with_rebucket"] = Ng / (td + tb);
  ex["step_seconds_median"] = ts;  // the end_to_end row: rebucketing + density in one region
  ex["evaluations_per_second_step"] = Ng / ts;
  ex["candidates_per_evaluation"] = sg.candidates;
  ex["neighbours_per_evaluation"] = sg.neighbours;
  ex["candidate_pairs_per_second"] = sg.candidates / td;
  ex["true_neighbours_per_second"] = sg.neighbours / td;
  ex["precision"] = o.precision;
  ex["reorder"] = ko.reorder;
  ex["checksum"] = checksum({&n});
  if (!common.quiet) {
    std::cout << "particles " << pr.particles.size() << ", buckets " << pr.grid.nx << " x " << pr.grid.ny << " x " << pr.grid.nz
              << (fine ? " (fine: edge r_e/" + std::to_string(fd) + ")" : std::string()) << ", candidates/particle " << sg.candidates / Ng << ", neighbours/particle " << sg.neighbours / Ng << "\n"
              << "density: " << td * 1e6 << " us, with rebucketing " << (td + tb) * 1e6
              << " us (one region: " << ts * 1e6 << " us); evaluations/s " << Ng / td
              << " (amortised with rebucketing " << Ng / (td + tb) << "); candidate pairs/s " << sg.candidates / td << ", true neighbours/s " << sg.neighbours / td
              << "\n"
              << "checksum of n (FNV-1a of the bits, original order): " << ex["checksum"].get<std::string>() << "\n";
  }
  copa::Verification v = verify_density(pr, n, fp32);
  if (o.case_name == "lattice" && v.passed) {
    const auto vl = verify_lattice(pr, n);
    ex["lattice_n0_error"] = vl.value;
    v = vl;
  }
  if (local && v.passed) {
    // The same backend and variant on the whole set-up in this process: every owned particle sees
    // the same neighbours as on one rank (its ghosts included), so only the summation order can
    // differ (round-off; a widened verlet bucket can hold particles of two ranks).
    const auto one = density_alone(b, ko, pr);
    double err = 0;
    for (std::size_t i = 0; i < n.size(); ++i) err = std::max(err, std::fabs(n[i] - one[i]) / std::fabs(one[i]));
    const bool bitwise = one == n;
    const double tolerance = fp32 ? 1e-5 : 1e-12;
    ex["one_rank_check"] = {{"max_rel_difference", err}, {"bitwise_equal", bitwise}, {"tolerance", tolerance},
                            {"checksum_one_rank", checksum({&one})}};
    if (!common.quiet)
      std::cout << "one-rank check: max relative difference " << err << (bitwise ? " (bitwise equal)" : "") << "\n";
    if (!(err <= tolerance)) v = {"the same run on one rank", "max_rel_density_difference_vs_one_rank", err, tolerance, false};
  }
  copa::vtk::Series vtk(o.vtk, "mps-density", "vtp");
  vtk.at_end(0, 0.0, [&](const std::string& path) { mps::write_particles_vtk(path, pr.particles, n, false, vtk.encoding()); });
  if (vtk.enabled()) ex["vtk_files"] = vtk.files();
  rep.set_verification(v);
  return v.passed ? copa::exit_ok : copa::exit_verification_failed;
}

}  // namespace mps::app
