#include "dist/rank_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "copa/errors.hpp"
#include "copa/mpi.hpp"
#include "copa/timing.hpp"
#include "dist/migrate.hpp"

namespace mps::dist {

namespace {
int index(Field f) { return static_cast<int>(f); }
// splitmix64's finaliser: neighbouring ids get unrelated hashes, so swapping or renumbering
// particles changes the hash sum even where it keeps the id sum.
long long id_hash(std::int64_t id) {
  std::uint64_t z = static_cast<std::uint64_t>(id) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<long long>((z ^ (z >> 31)) & 0xffffffull);
}
bool is_position(Field f) { return f == Field::x || f == Field::y || f == Field::z; }
}  // namespace

RankKernels::RankKernels(std::unique_ptr<MpsKernels> inner, const Slabs& slabs, const RankOptions& o)
    : inner_(std::move(inner)), slabs_(slabs), opt_(o), stale_(field_count, false) {}

RankKernels::~RankKernels() = default;

void RankKernels::load(const Problem& problem, double max_radius) {
  frame_ = problem;
  frame_.particles = Particles();
  frame_.particles.dim = problem.particles.dim;
  max_radius_ = max_radius;
  width_ = max_radius + opt_.margin * problem.l0;
  // The set-up is the same on every rank: each takes the particles of its own slab (no message).
  const Particles& ps = problem.particles;
  Particles mine;
  mine.dim = ps.dim;
  std::vector<std::int64_t> ids;
  const int me = copa::mpi::rank();
  for (std::size_t i = 0; i < ps.size(); ++i)
    if (slabs_.owner(column_of(problem.grid, slabs_.axis, ps.x[i], ps.z[i])) == me) {
      copy_particle(ps, i, mine);
      ids.push_back(static_cast<std::int64_t>(i));
    }
  migrate_and_rebuild(std::move(mine), std::move(ids));
  migrated_.clear();
  rebuilds_.clear();
  recuts_.clear();
  steps_ = 0;
  census_ = count();
  if (census_.particles != static_cast<long long>(ps.size()))
    throw copa::RuntimeError("distributed simulation: " + std::to_string(census_.particles) +
                             " particles owned over all ranks, " + std::to_string(ps.size()) + " in the set-up");
}

RankKernels::Census RankKernels::count() const {
  Census c;
  for (std::size_t i = 0; i < owned_; ++i) {
    c.id_sum += ids_[i];
    c.id_hash_sum += id_hash(ids_[i]);
  }
  c.particles = copa::mpi::sum_all(static_cast<long long>(owned_));
  c.id_sum = copa::mpi::sum_all(c.id_sum);
  c.id_hash_sum = copa::mpi::sum_all(c.id_hash_sum);
  return c;
}

// The particles moved at the end of the last step (pressure correction): rebuild now if needed,
// so that the rebuild is timed in the step's `migration` row.
void RankKernels::begin_step() {
  ++steps_;
  if (moved_ && needs_rebuild()) rebuild(false);
}

// Collective: every rank gets the same maximum (a max is exact), so all rebuild at the same call.
bool RankKernels::needs_rebuild() {
  moved_ = false;
  const double worst = copa::mpi::max_all(inner_->max_displacement(owned_));
  return worst > 0.5 * opt_.margin * frame_.l0;
}

// The state a rebuild carries (x, y, z, u, v, w, p, type) is the whole live state at every point
// where it can happen (the start of a step, or before an operator that reads positions after they
// moved): the other fields (n, accelerations, CG vectors, active flags) are recomputed before
// they are read again, so a reload that zeroes them is harmless.
void RankKernels::rebuild(bool mid_step) {
  const double t0 = copa::host_seconds();
  if (inner_->migrates_on_device()) {
    // The re-cut needs the columns of the owned particles: x and z only come back (load order,
    // owned first); the migration itself stays on the device.
    if (opt_.rebalance > 0) {
      Particles positions;
      positions.x = inner_->get(Field::x);
      positions.z = inner_->get(Field::z);
      recut(positions);
    }
    rebuild_on_device();
  } else {
    Particles all;
    inner_->store(all);
    for (auto* f : {&all.x, &all.y, &all.z, &all.u, &all.v, &all.w, &all.p}) f->resize(owned_);
    all.type.resize(owned_);
    std::vector<std::int64_t> ids(ids_.begin(), ids_.begin() + owned_);
    if (opt_.rebalance > 0) recut(all);
    migrate_and_rebuild(std::move(all), std::move(ids));
  }
  rebuilds_.push_back({steps_, mid_step});
  rebuild_seconds_ += copa::host_seconds() - t0;
  const Census now = count();
  if (!(now == census_))
    throw copa::RuntimeError("distributed simulation: the rebuild in step " + std::to_string(steps_) + " changed the " +
                             "particles (" + std::to_string(now.particles) + ", id sum " + std::to_string(now.id_sum) +
                             ", id hash sum " + std::to_string(now.id_hash_sum) + ") from (" +
                             std::to_string(census_.particles) + ", " + std::to_string(census_.id_sum) + ", " +
                             std::to_string(census_.id_hash_sum) + ")");
}

// `positions`: x and z of the owned particles (load order, at least owned_ of each).
void RankKernels::recut(const Particles& positions) {
  // The imbalance of the owned counts is the same on every rank (gathered integers); the re-cut
  // uses the particles per column over all ranks, added in rank order (exact integer counts).
  Slabs now = slabs_;
  now.work = copa::mpi::gather_all(static_cast<double>(owned_));
  if (now.imbalance() <= opt_.rebalance) return;
  // Both cuts are judged on where the particles are now (the current cuts' work after this
  // rebuild's migration), and the new one is kept only when it differs and lowers the imbalance:
  // whole columns limit what a cut can reach (a wall column holds many particles), and the
  // count-based cut is not always better than the old one.
  const auto histogram = copa::mpi::sum_ordered(column_histogram(positions, frame_.grid, slabs_.axis, 0, owned_));
  std::fill(now.work.begin(), now.work.end(), 0.0);
  for (int r = 0; r < now.ranks(); ++r)
    for (int c = now.cuts[r]; c < now.cuts[r + 1]; ++c) now.work[r] += histogram[c];
  Slabs cut = cut_slabs(histogram, slabs_.axis, slabs_.ranks());
  if (cut.cuts != now.cuts && cut.imbalance() < now.imbalance()) {
    recuts_.push_back({steps_, now.imbalance(), cut.imbalance()});
    slabs_ = std::move(cut);
  }
}

// The device backend's rebuild (MpsKernels::migrate_on_device): the same layout as
// migrate_and_rebuild, built on the device; the host gets the counts, the global ids and the
// halo pattern.
void RankKernels::rebuild_on_device() {
  DeviceRebuild plan;
  plan.frame = &frame_;
  plan.max_radius = max_radius_;
  plan.rank = copa::mpi::rank();
  plan.ranks = copa::mpi::size();
  plan.axis = slabs_.axis;
  plan.cuts = slabs_.cuts;
  plan.lo.resize(plan.ranks);
  plan.hi.resize(plan.ranks);
  for (int q = 0; q < plan.ranks; ++q) slab_bounds(frame_.grid, slabs_, q, width_, plan.lo[q], plan.hi[q]);
  plan.exchange = [](const std::vector<std::vector<double>>& out, std::vector<int>* from) {
    return exchange_records(out, from);
  };
  RebuiltLayout layout = inner_->migrate_on_device(plan, owned_);
  migrated_.push_back(layout.sent);
  ids_ = std::move(layout.global_ids);
  owned_ = layout.owned;
  std::vector<copa::halo::Link> links;
  for (int q = 0; q < plan.ranks; ++q)
    if (!layout.send[q].empty() || !layout.recv[q].empty())
      links.push_back({q, std::move(layout.send[q]), std::move(layout.recv[q])});
  install_pattern(std::move(links));
}

// Owned particles, global id order, then the ghosts grouped by owner (ascending) in the owner's
// id order: the order local_domain uses for the density mode.
void RankKernels::migrate_and_rebuild(Particles mine, std::vector<std::int64_t> ids) {
  const int ranks = copa::mpi::size(), me = copa::mpi::rank();
  const Grid& g = frame_.grid;
  std::vector<std::vector<double>> out(ranks);
  Particles kept;
  kept.dim = mine.dim;
  std::vector<std::int64_t> kept_ids;
  double sent = 0;
  for (std::size_t i = 0; i < mine.size(); ++i) {
    const int q = slabs_.owner(column_of(g, slabs_.axis, mine.x[i], mine.z[i]));
    if (q != me) {
      append_record(mine, i, ids[i], out[q]);
      ++sent;
      continue;
    }
    copy_particle(mine, i, kept);
    kept_ids.push_back(ids[i]);
  }
  migrated_.push_back(sent);
  const auto arrived = exchange_records(out);
  for (std::size_t k = 0; k < arrived.size() / record_size; ++k) take_record(arrived, k, kept, kept_ids);

  std::vector<std::size_t> order(kept.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return kept_ids[a] < kept_ids[b]; });
  Particles local;
  local.dim = kept.dim;
  ids_.clear();
  for (std::size_t k : order) {
    copy_particle(kept, k, local);
    ids_.push_back(kept_ids[k]);
  }
  owned_ = local.size();

  // Ghosts: this rank's owned particles within width_ of another slab go to that rank.
  std::vector<copa::halo::Link> links;
  for (auto& o : out) o.clear();
  std::vector<std::vector<std::int64_t>> send(ranks);
  for (int q = 0; q < ranks; ++q) {
    if (q == me) continue;
    double lo, hi;
    slab_bounds(g, slabs_, q, width_, lo, hi);
    for (std::size_t i = 0; i < owned_; ++i) {
      const double c = slabs_.axis == 2 ? local.z[i] : local.x[i];
      if (c >= lo && c < hi) {
        append_record(local, i, ids_[i], out[q]);
        send[q].push_back(static_cast<std::int64_t>(i));
      }
    }
  }
  std::vector<int> from;
  const auto ghosts = exchange_records(out, &from);
  std::vector<std::vector<std::int64_t>> recv(ranks);
  for (std::size_t k = 0; k < from.size(); ++k) {
    recv[from[k]].push_back(static_cast<std::int64_t>(local.size()));
    take_record(ghosts, k, local, ids_);
  }
  for (int q = 0; q < ranks; ++q)
    if (!send[q].empty() || !recv[q].empty()) links.push_back({q, std::move(send[q]), std::move(recv[q])});

  Problem pr = frame_;
  pr.particles = std::move(local);
  pr.ghosts = pr.particles.size() - owned_;  // targets of the neighbour sums: the owned particles only
  inner_->load(pr, max_radius_);
  inner_->set_global_ids(ids_);  // a device backend's later rebuilds migrate on the device
  install_pattern(std::move(links));
}

// After a rebuild: displacements from here, the halo pattern of the new layout, fresh ghosts.
void RankKernels::install_pattern(std::vector<copa::halo::Link> links) {
  inner_->remember_positions(owned_);
  const std::int64_t n = static_cast<std::int64_t>(ids_.size());
  exchange_.reset();  // collective (ipc): every rank rebuilds at the same step
  exchange_ = std::make_unique<copa::halo::Exchange>(
      std::move(links), copa::halo::FieldLayout{1, n}, opt_.transport,
      inner_->ghosts_on_device() ? copa::halo::Memory::device : copa::halo::Memory::host);
  std::fill(stale_.begin(), stale_.end(), false);
  moved_ = false;
}

void RankKernels::changed(std::initializer_list<Field> fields) {
  for (Field f : fields) {
    stale_[index(f)] = true;
    moved_ = moved_ || is_position(f);
  }
}

// Before an operator: a rebuild when a particle moved more than margin / 2 since the last one
// (every field of every ghost is then its owner's), else the stale fields the operator reads.
void RankKernels::refresh(std::initializer_list<Field> fields, bool bucketed) {
  bool positions = false;
  for (Field f : fields) positions = positions || is_position(f);
  if (positions && moved_ && needs_rebuild()) {
    rebuild(true);
    if (bucketed) inner_->prepare_neighbours(true);
    return;
  }
  for (Field f : fields)
    if (stale_[index(f)]) {
      inner_->refresh_ghosts(*exchange_, f, owned_);
      stale_[index(f)] = false;
    }
}

// Why margin / 2: the ghosts cover width_ = r_max + margin beyond the slab as it was at the last
// rebuild, and a pair within r_max now was within r_max + margin then if neither particle moved
// more than margin / 2 since (the owners check their particles: the maximum is over all ranks).

void RankKernels::store(Particles& out) {
  inner_->store(out);
  for (auto* f : {&out.x, &out.y, &out.z, &out.u, &out.v, &out.w, &out.p}) f->resize(owned_);
  out.type.resize(owned_);
}

void RankKernels::set(Field f, const std::vector<double>& values) {
  inner_->set(f, values);
  changed({f});
}

void RankKernels::prepare_neighbours(bool force) {
  refresh({Field::x, Field::y, Field::z}, false);
  inner_->prepare_neighbours(force);
}

void RankKernels::number_density(double re) {
  refresh({Field::x, Field::y, Field::z});
  inner_->number_density(re);
  changed({Field::n});
}

void RankKernels::velocity_laplacian(double re, double coef) {
  refresh({Field::x, Field::y, Field::z, Field::u, Field::v, Field::w});
  inner_->velocity_laplacian(re, coef);
  changed({Field::ax, Field::ay, Field::az});
}

void RankKernels::pressure_gradient(double re, double coef) {
  refresh({Field::x, Field::y, Field::z, Field::p});
  inner_->pressure_gradient(re, coef);
  changed({Field::ax, Field::ay, Field::az});
}

void RankKernels::collision(double rc, double restitution) {
  refresh({Field::x, Field::y, Field::z, Field::u, Field::v, Field::w});
  inner_->collision(rc, restitution);
  changed({Field::ax, Field::ay, Field::az});
}

void RankKernels::ppe_apply(Field x, Field y, double re, double coef, double diag) {
  refresh({Field::x, Field::y, Field::z, x});
  inner_->ppe_apply(x, y, re, coef, diag);
  changed({y});
}

void RankKernels::predictor(double dt, double nu, const double g[3]) {
  inner_->predictor(dt, nu, g);
  changed({Field::x, Field::y, Field::z, Field::u, Field::v, Field::w});
}

void RankKernels::correct(double scale, double dt) {
  inner_->correct(scale, dt);
  changed({Field::x, Field::y, Field::z, Field::u, Field::v, Field::w});
}

// The inner count includes the ghosts (no neighbour sum computed their n: they are not targets):
// the backend counts the active owned particles (one integer back from a GPU), added over ranks.
std::size_t RankKernels::ppe_setup(double n_surface, double n0, double src) {
  inner_->ppe_setup(n_surface, n0, src);
  changed({Field::rhs, Field::p});
  return static_cast<std::size_t>(copa::mpi::sum_all(static_cast<long long>(inner_->count_active(owned_))));
}

double RankKernels::dot(Field a, Field b) { return copa::mpi::sum_ordered(inner_->dot_owned(a, b, owned_)); }

void RankKernels::axpy(double alpha, Field x, Field y) {
  inner_->axpy(alpha, x, y);
  changed({y});
}

void RankKernels::xpay(Field x, double beta, Field y) {
  inner_->xpay(x, beta, y);
  changed({y});
}

void RankKernels::copy(Field from, Field to) {
  inner_->copy(from, to);
  changed({to});
}

void RankKernels::clamp_negative_pressure() {
  inner_->clamp_negative_pressure();
  changed({Field::p});
}

// Every local particle is checked, ghosts included: between refreshes the pointwise operations
// move them with accelerations no neighbour sum wrote (not targets: zero since the load); their
// owners hold the true state, refreshed before it is read.
void RankKernels::check_state() { inner_->check_state(); }

}  // namespace mps::dist
