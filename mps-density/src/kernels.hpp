// The kernel-family interface of mps-density: particle state lives in the backend (host vectors
// or device arrays, structure of arrays, reordered by bucket when `reorder`), the neighbour sums
// run through the strategy picked by the variant, and the pointwise/vector operations let the
// backend-agnostic simulation driver (simulation.cpp) run the whole MPS step, CG included, on the
// backend. Fields are exchanged with the caller in the particles' original order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "copa/backend.hpp"
#include "copa/roofline.hpp"
#include "particles.hpp"

namespace copa::halo {
class Exchange;
}

namespace mps {

// Double fields every backend holds, one value per particle.
enum class Field : int { x, y, z, u, v, w, p, n, ax, ay, az, rhs, res, dir, adir, count_ };
constexpr int field_count = static_cast<int>(Field::count_);

// The neighbour-search strategies; their names, backends and defaults are the rows of the
// variant registry (variants.cpp).
enum class Strategy { brute, bucket_block, bucket_thread, sorted_particle, verlet, fine_rows, fine_lean, fine_lean_cellrows };
// fine-rows strategies: buckets of edge r_max / fine_divisions, rows pruned per target.
constexpr int fine_divisions = 2;
inline bool is_fine(Strategy s) {
  return s == Strategy::fine_rows || s == Strategy::fine_lean || s == Strategy::fine_lean_cellrows;
}
const std::string& to_string(Strategy s);     // the registry name
Strategy strategy_named(const std::string& name);  // a registry name; throws std::logic_error otherwise

struct KernelOptions {
  Strategy strategy = Strategy::sorted_particle;
  bool reorder = true;          // permute the particle arrays by bucket at every rebucketing
  double skin = 0.3;            // verlet: list radius = r_max + skin (in units of the problem's l0)
  copa::Precision precision = copa::Precision::fp64;  // fp32: number density from float positions (GPU)
  // GPU: order each bucket by storage index after the atomic counting sort (two more launches), so
  // that results are bitwise the same in every run; the host's counting sort is always stable.
  bool stable_buckets = false;
  // GPU (--rebucket cub): the bucket starts by the vendor library's exclusive scan and the order
  // by its stable radix sort of (bucket, index) pairs, instead of the hand-written scan and
  // scatter ranks: the same order as stable_buckets (radix sort is stable), timed beside it.
  bool cub_rebucket = false;
  // GPU (--rebucket fused): the atomic counting sort in three launches instead of five: the block
  // scan also scans the block totals (in its last block) and the scatter finishes the bucket
  // starts; the order inside a bucket is the atomic one, as with the default.
  bool fused_rebucket = false;
  // GPU (--tuning step=graph of fine-lean-cellrows): the rebucketing's launches, and in
  // rebucket_and_density the rebucketing and the number density together, captured once into a
  // graph per buffer set and replayed as one launch; the same kernels on the same data.
  bool step_graph = false;
};

// The bucket grid a strategy searches and its radii, the same for the host and GPU backends:
// verlet widens the buckets to the list radius r_max + skin, the fine strategies refine them.
struct SearchGeometry {
  Grid grid;
  double skin = 0;         // verlet skin (absolute)
  double list_radius = 0;  // r_max + skin
  double reach = 0;        // r_max
};
// Throws InputError when max_radius exceeds the problem's bucket edge.
SearchGeometry search_geometry(const Problem& problem, double max_radius, const KernelOptions& options);

struct CgResult {
  int iterations = 0;
  double residual = 0;  // final |r| / |b| (0 when b = 0)
};

struct NeighbourStats {
  double candidates = 0;  // candidate pairs the strategy tests per evaluation
  double neighbours = 0;  // pairs within r_e (ordered, i != j)
};

// A rebuild of a distributed simulation on a device backend (dist/rank_kernels.*, README
// "Distributed runs"): what the device needs to migrate the owned particles and select the ghosts.
struct DeviceRebuild {
  const Problem* frame = nullptr;  // grid, l0, radii (no particles)
  double max_radius = 0;
  int rank = 0, ranks = 1, axis = 0;
  std::vector<int> cuts;        // dist::Slabs::cuts: rank r owns columns [cuts[r], cuts[r+1])
  std::vector<double> lo, hi;   // per rank: its slab widened by the ghost width (dist::slab_bounds)
  // Collective exchange of whole records (dist::exchange_records): per destination rank in, all
  // arrivals out in ascending source rank, `from` the source of each arrived record.
  std::function<std::vector<double>(const std::vector<std::vector<double>>&, std::vector<int>*)> exchange;
};
// The local layout after it: owned particles in global id order, then the ghosts in arrival order.
struct RebuiltLayout {
  std::size_t owned = 0;
  double sent = 0;                                     // owned particles that left for another rank
  std::vector<std::int64_t> global_ids;                // of every local particle, load order
  std::vector<std::vector<std::int64_t>> send, recv;   // per rank: the halo pattern (load indices)
};

class MpsKernels {
 public:
  virtual ~MpsKernels() = default;
  virtual copa::Backend backend() const = 0;
  virtual std::string strategy_name() const = 0;

  // Copies the particles and grid in; `max_radius` is the largest radius any later call uses.
  // The neighbour sums evaluate the particles before the problem's `ghosts` only (all of them on
  // one rank) and leave the ghosts' outputs as they are; every particle is a source.
  virtual void load(const Problem& problem, double max_radius) = 0;
  virtual void store(Particles& out) = 0;
  virtual std::vector<double> get(Field f) = 0;
  virtual void set(Field f, const std::vector<double>& values) = 0;

  // Neighbour structure: counting sort into buckets (count, prefix sum, scatter) and reorder;
  // verlet: also the lists, rebuilt only when a particle moved more than skin / 2 (or `force`).
  virtual void prepare_neighbours(bool force = false) = 0;
  virtual int list_rebuilds() const { return 0; }
  // The density benchmark's step (P-Flow's rebucketing, then the number density): by default
  // prepare_neighbours(true) then number_density(re); the GPU backend with step_graph replays
  // both as one graph launch.
  virtual void rebucket_and_density(double re) {
    prepare_neighbours(true);
    number_density(re);
  }

  // Neighbour sums (neighbour_ops.hpp), each through the strategy of the variant.
  virtual void number_density(double re) = 0;                      // -> n
  virtual void velocity_laplacian(double re, double coef) = 0;     // u,v,w -> ax,ay,az
  virtual void pressure_gradient(double re, double coef) = 0;      // p -> ax,ay,az
  virtual void collision(double rc, double restitution) = 0;       // u,v,w -> ax,ay,az (du)
  virtual void ppe_apply(Field x, Field y, double re, double coef, double diag) = 0;

  // Pointwise operations of the step (fluid particles only where it says so).
  virtual void predictor(double dt, double nu, const double g[3]) = 0;  // u += dt (nu a + g); r += dt u
  virtual void correct(double scale, double dt) = 0;                    // du = scale a; u += du; r += dt du
  // Active set = not dummy and n >= n_surface; rhs = src (n - n0) / n0 there, 0 elsewhere;
  // p = 0 off the active set. Returns the number of active particles.
  virtual std::size_t ppe_setup(double n_surface, double n0, double src) = 0;
  virtual double dot(Field a, Field b) = 0;
  virtual void axpy(double alpha, Field x, Field y) = 0;  // y += alpha x
  virtual void xpay(Field x, double beta, Field y) = 0;   // y = x + beta y
  virtual void copy(Field from, Field to) = 0;
  virtual void clamp_negative_pressure() = 0;
  // PPE conjugate gradients on p (warm start; p = 0 off the active set), the operator ppe_apply
  // with (re, coef, diag), until |r| / |b| <= tol or max_iterations. The default drives the
  // vector operations above from the host (two scalars copied back per iteration); the GPU
  // backend keeps the scalars on the device and checks convergence every few iterations.
  // Throws copa::RuntimeError on a breakdown (d^T A d <= 0).
  virtual CgResult ppe_cg(double re, double coef, double diag, double tol, int max_iterations);
  // Distributed runs on a GPU backend: fills the ghosts (load indices >= owned) from their owners
  // through `exchange`, a device field of x, y, z, type (dist::halo_components) in load order, so
  // that its element indices survive the bucket reordering. Host backends fill their ghosts in the
  // set-up, before load (README, "Distributed runs"): theirs throws copa::RuntimeError.
  virtual void fill_ghosts(copa::halo::Exchange& exchange, std::size_t owned);
  // Throws copa::RuntimeError when a value is NaN or a particle left the bucket grid.
  virtual void check_state() = 0;

  // Distributed simulation (dist/rank_kernels.*, README "Distributed runs"). begin_step: called by
  // the simulation at the start of every time step (the rank wrapper migrates particles there).
  virtual void begin_step() {}
  // Sum of a_i b_i over the particles of load index < owned (a rank's owned particles; its ghosts
  // follow them), in a fixed order (the same bits in every run).
  virtual double dot_owned(Field a, Field b, std::size_t owned) = 0;
  // Overwrites the ghosts (load index >= owned) of field f with their owners' values through
  // `exchange` (one component, load order). Default: through get/set and an exchange on host
  // memory; a backend that overrides it and returns true from ghosts_on_device() exchanges device
  // memory (the caller then builds the exchange with copa::halo::Memory::device).
  virtual void refresh_ghosts(copa::halo::Exchange& exchange, Field f, std::size_t owned);
  virtual bool ghosts_on_device() const { return false; }
  // The ghost layer of a distributed simulation is rebuilt only when a particle has moved more than
  // half the ghost margin since the last rebuild (dist/rank_kernels.*). remember_positions keeps
  // the positions of the particles of load index < owned (in load order, so that the reordering
  // by bucket does not matter); max_displacement returns the largest distance one of them has
  // moved since (the GPU reduces it on the device and copies one scalar back).
  virtual void remember_positions(std::size_t owned) = 0;
  virtual double max_displacement(std::size_t owned) = 0;
  // Device-side rebuild of a distributed simulation (GPU backend; the host backends migrate on
  // the host): set_global_ids gives the global id of every local particle after a load (load
  // order; a no-op elsewhere); migrate_on_device flags the owned particles whose column now
  // belongs to another slab, packs them into records on the device, exchanges them through
  // plan.exchange, merges the kept and arrived ones in global id order (the host path's order),
  // selects and packs the ghosts the same way and reloads its state from the records, without
  // copying the particle arrays to the host (the default throws copa::RuntimeError).
  virtual bool migrates_on_device() const { return false; }
  virtual void set_global_ids(const std::vector<std::int64_t>& ids) { (void)ids; }
  virtual RebuiltLayout migrate_on_device(const DeviceRebuild& plan, std::size_t owned);
  // Particles of load index < owned that the last ppe_setup made active.
  virtual std::size_t count_active(std::size_t owned) = 0;

  // Device/host bytes the backend needs for n particles and the grid (for the memory estimate).
  virtual std::size_t bytes_needed(std::size_t n, long long cells, double neighbours_per_particle) const = 0;

 protected:
  // store's part that every backend shares: the dimension and x, y, z, u, v, w, p through get().
  void store_fields(Particles& out, int dim);
};

// Candidate pairs a strategy tests and true neighbours within re, counted on the host from the
// bucket structure (list_radius: verlet list radius), over the targets (the particles before the
// problem's ghosts) with every particle as a source.
NeighbourStats neighbour_statistics(const Problem& problem, Strategy s, double re, double list_radius);

std::unique_ptr<MpsKernels> make_serial_kernels(const KernelOptions& o);
std::unique_ptr<MpsKernels> make_openmp_kernels(const KernelOptions& o);
std::unique_ptr<MpsKernels> make_gpu_kernels(const KernelOptions& o);
std::unique_ptr<MpsKernels> make_kernels(copa::Backend b, const KernelOptions& o);

}  // namespace mps
