// The MPS kernels of one rank of a distributed simulation (README, "Distributed runs"): wraps a
// backend's kernels, which run on the rank's owned particles followed by its ghosts (loaded with
// Problem::ghosts, so the neighbour sums evaluate only the owned particles and read the ghosts as
// sources), and adds what the ranks need to take the same steps as one process:
//   * a rebuild only when needed: before an operator that reads positions after they moved (the
//     start of a step included), the largest displacement of any particle since the last rebuild
//     is reduced over ranks (max, exact); when it exceeds margin / 2 the rank rebuilds: migration
//     (owned particles whose bucket column now belongs to another slab move there with every field
//     and their global id; the owned particles are kept in global id order; optional re-cut of
//     the slabs when max/mean owned > --rebalance), new ghosts (the owned particles within
//     ghost_width = r_max + margin of another slab, with their whole state), a new halo pattern
//     and a reload of the kernels. Between rebuilds the particles, ghost slots and halo pattern
//     stay; only the ghost refresh below runs (README, "Distributed runs": why margin / 2 suffices);
//   * a ghost refresh of every field a neighbour operator reads, before it reads it, when a
//     pointwise operation changed it since the last refresh (every CG matrix-vector product too);
//   * dot products over the owned particles, added in rank order (copa::mpi::sum_ordered), so
//     that every rank takes the same CG iterations.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "copa/halo.hpp"
#include "dist/slabs.hpp"
#include "kernels.hpp"

namespace mps::dist {

struct RankOptions {
  copa::halo::Transport transport = copa::halo::Transport::host;
  double margin = 1.0;     // in units of l0: ghost width beyond r_max
  double rebalance = 0;    // re-cut when max/mean owned particles exceeds it; 0 = never
};

struct Recut {
  int step = 0;
  double before = 0, after = 0;  // imbalance (max / mean owned particles)
};

class RankKernels final : public MpsKernels {
 public:
  RankKernels(std::unique_ptr<MpsKernels> inner, const Slabs& slabs, const RankOptions& o);
  ~RankKernels() override;
  copa::Backend backend() const override { return inner_->backend(); }
  std::string strategy_name() const override { return inner_->strategy_name(); }

  // `problem` is the whole set-up (the same on every rank): this rank keeps its slab's particles.
  void load(const Problem& problem, double max_radius) override;
  // The owned particles only, in this rank's load order (owned_ids() gives their global ids).
  void store(Particles& out) override;
  std::vector<double> get(Field f) override { return inner_->get(f); }
  void set(Field f, const std::vector<double>& values) override;
  void prepare_neighbours(bool force = false) override;
  int list_rebuilds() const override { return inner_->list_rebuilds(); }

  void number_density(double re) override;
  void velocity_laplacian(double re, double coef) override;
  void pressure_gradient(double re, double coef) override;
  void collision(double rc, double restitution) override;
  void ppe_apply(Field x, Field y, double re, double coef, double diag) override;

  void predictor(double dt, double nu, const double g[3]) override;
  void correct(double scale, double dt) override;
  std::size_t ppe_setup(double n_surface, double n0, double src) override;  // global active count
  double dot(Field a, Field b) override;  // over the owned particles of every rank, in rank order
  double dot_owned(Field a, Field b, std::size_t owned) override { return inner_->dot_owned(a, b, owned); }
  void remember_positions(std::size_t owned) override { inner_->remember_positions(owned); }
  double max_displacement(std::size_t owned) override { return inner_->max_displacement(owned); }
  std::size_t count_active(std::size_t owned) override { return inner_->count_active(owned); }
  void axpy(double alpha, Field x, Field y) override;
  void xpay(Field x, double beta, Field y) override;
  void copy(Field from, Field to) override;
  void clamp_negative_pressure() override;
  void check_state() override;
  void begin_step() override;
  std::size_t bytes_needed(std::size_t n, long long cells, double neighbours) const override {
    return inner_->bytes_needed(n, cells, neighbours);
  }

  const Slabs& slabs() const { return slabs_; }
  std::size_t owned() const { return owned_; }
  std::size_t ghosts() const { return ids_.size() - owned_; }
  std::vector<std::int64_t> owned_ids() const { return {ids_.begin(), ids_.begin() + owned_}; }
  // Particles this rank sent to other owners, one entry per rebuild (the same count on every rank).
  const std::vector<double>& migrations() const { return migrated_; }
  struct Rebuild {
    int step = 0;           // the time step (1-based) in which it happened
    bool mid_step = false;  // before an operator inside the step, not at its start
  };
  const std::vector<Rebuild>& rebuilds() const { return rebuilds_; }
  // Host wall time of this rank's rebuilds (after the set-up): a rebuild inside a step is timed
  // in the row of the operator it precedes, so the JSON reports their time apart.
  double rebuild_seconds() const { return rebuild_seconds_; }
  const std::vector<Recut>& recuts() const { return recuts_; }
  // Conservation, checked after every rebuild against the values at load (copa::RuntimeError,
  // exit 3, when it fails): particles over all ranks, sum of global ids and sum of a 24-bit hash
  // of each id (integers, exact; a lost, duplicated or renumbered particle changes them).
  struct Census {
    long long particles = 0, id_sum = 0, id_hash_sum = 0;
    bool operator==(const Census& c) const {
      return particles == c.particles && id_sum == c.id_sum && id_hash_sum == c.id_hash_sum;
    }
  };
  const Census& census() const { return census_; }

 private:
  void migrate_and_rebuild(Particles owned, std::vector<std::int64_t> ids);
  void rebuild_on_device();
  void install_pattern(std::vector<copa::halo::Link> links);
  void recut(const Particles& positions);
  void rebuild(bool mid_step);
  bool needs_rebuild();  // collective
  // `bucketed`: the caller's operator needs the buckets, which a rebuild (reload) discards.
  void refresh(std::initializer_list<Field> fields, bool bucketed = true);
  void changed(std::initializer_list<Field> fields);
  Census count() const;  // collective

  std::unique_ptr<MpsKernels> inner_;
  Slabs slabs_;
  RankOptions opt_;
  Problem frame_;              // the set-up without its particles: grid, l0, radii
  double max_radius_ = 0, width_ = 0;
  std::size_t owned_ = 0;
  std::vector<std::int64_t> ids_;   // global id of every local particle (owned, then ghosts)
  std::unique_ptr<copa::halo::Exchange> exchange_;
  std::vector<bool> stale_;    // per field: the ghosts' values are not their owners'
  bool moved_ = false;         // positions changed since the last displacement check
  int steps_ = 0;
  std::vector<double> migrated_;
  std::vector<Rebuild> rebuilds_;
  double rebuild_seconds_ = 0;
  std::vector<Recut> recuts_;
  Census census_;
};

}  // namespace mps::dist
