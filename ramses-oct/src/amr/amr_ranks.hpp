// AMR over MPI ranks on the host backends. Every rank keeps the whole tree's metadata (keys,
// levels, coordinates, links) and derives every regrid itself from the combined criterion bytes;
// the state is computed on the owned octs only: the descendants of a contiguous range of base
// octs in key (Morton) order, so that a coarse cell and its refined descendants share a rank and
// the owned octs of every level are one contiguous index range. Before each (sub)step the ghost
// octs (the one-oct neighbourhood the owned octs' update, criterion and state move read, faces,
// edges, corners and the coarse cells a coarse-fine face prolongs from) come from their owners
// through copa::halo, and the fine-face fluxes of another rank's octs reach the coarse owner
// before its reflux, which then adds them in one rank's order: N ranks = 1 rank bit for bit.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "amr/amr_lists_body.hpp"
#include "amr/amr_tree.hpp"
#include "copa/halo.hpp"

namespace copa {
class RegionTimer;
}

namespace ro::amr {

struct StepLists;
struct LeafScan;

// A cut of the base octs: rank r owns base octs [cut[r], cut[r + 1]) and their descendants.
struct AmrPartition {
  std::vector<std::int64_t> cut;
  int ranks() const { return static_cast<int>(cut.size()) - 1; }
};

// Work of each base oct: the leaf cells of it and its descendants, a leaf of level l weighted by
// the substeps it takes (2^l under --subcycle, 1 otherwise; oct_work, amr_ranks_body.hpp, the
// device's DeviceStep::base_work the same). Integers: the cuts are exact.
std::vector<std::int64_t> base_work(const Tree& t, bool subcycle);
// The cuts that balance the work per base oct (rank r's first base oct: the first whose prefix
// work reaches r / ranks of the total), each rank at least one base oct. A pure function of the
// work, the same on every backend. InputError (exit 2) when there are fewer base octs than ranks.
AmrPartition partition_work(const std::vector<std::int64_t>& work, int ranks);
AmrPartition partition_tree(const Tree& t, int ranks, bool subcycle);  // of base_work(t, subcycle)
// max over ranks / mean of the work per base oct (of t) under the cuts p.
double work_imbalance(const std::vector<std::int64_t>& work, const AmrPartition& p);
double work_imbalance(const Tree& t, const AmrPartition& p, bool subcycle);
// Rank r's owned octs on every level: [begin[l], end[l]). Reads t's keys and level_begin alone.
void owned_ranges(const Tree& t, const AmrPartition& p, int r, std::vector<std::int64_t>& begin,
                  std::vector<std::int64_t>& end);
// The octs of another rank that the state loops of t's owned octs of level l read (sorted, unique):
// the 27 same-level slots of update_oct and, where a slot is missing, the octs of the coarser
// cells prolong_from reads (ghost_mark_slot, amr_ranks_body.hpp, then a compaction in index order).
// The criterion's face neighbours and a regrid's prolongation sources are among them.
std::vector<std::int32_t> ghost_octs(const Tree& t, int l);

// What this rank asks of the others on a partitioned tree, the contents of the exchanges'
// requests: per level l its ghost octs (ghost_octs(t, l)), and per coarse level the reflux faces
// of its owned cells of that level whose fine oct another rank owns (flux_requested), in the step
// lists' order. The host path computes them from its tree and lists (rank_lists), the GPU path on
// the device (DeviceStep::rank_lists): the same bodies, the same lists.
struct RankLists {
  std::vector<std::vector<std::int32_t>> ghosts;
  std::vector<std::vector<RefluxFace>> fluxes;
};
RankLists rank_lists(const Tree& t, const StepLists& lists);
// GpuAmrStep::rank_lists run on the host pass for pass (its kernels' threads in a loop, the scans
// and fills, the split by level): the emulated device step's, which must equal rank_lists (cpu
// test). t must have owned ranges (logic_error otherwise, as the device's).
RankLists emulate_device_rank_lists(const Tree& t, const StepLists& lists);

// What the AMR driver asks of the ranks (null on one rank).
class RankComm {
 public:
  virtual ~RankComm() = default;
  virtual void set_timer(copa::RegionTimer* timer) = 0;
  // After the initial grid (the first call cuts it by base_work) and every tree rebuild: t's
  // owned ranges, from its keys and level_begin alone (the GPU path's host tree holds only those
  // current after a device regrid).
  virtual void partition(Tree& t) = 0;
  // After the partition: the ghost and flux exchange patterns from this rank's request lists, the
  // owner of each requested oct from the owned ranges (no tree is read).
  virtual void adopt(const RankLists& lists) = 0;
  // The ghost octs of every level (l < 0), or those level l's update reads, from their owners.
  // u, flux and rebalance's u are in the comm's memory (make_rank_comm: host, or the device's).
  virtual void fill_ghosts(double* u) = 0;
  virtual void fill_ghosts(int l, double* u) = 0;
  // The fine-face fluxes (array as Stepper::fine_flux) next to this rank's coarse cells of level l
  // (l < 0: every level), from the fine octs' owners.
  virtual void fluxes(int l, double* flux) = 0;
  // The global dt scan: max speeds per level (exact) and the lowest bad cell.
  virtual void combine(LeafScan& s) = 0;
  // Every owner's criterion bytes into crit.
  virtual void combine_criterion(const Tree& t, std::vector<char>& crit) = 0;
  // Every rank gets the whole state (owned octs of every rank).
  virtual void gather(const Tree& t, std::vector<double>& u) = 0;
  // A bad cell another rank owns: that rank's error ends the run (MPI_Abort); never returns.
  [[noreturn]] virtual void wait_for_failure(long step, double t, std::int64_t cell) = 0;
  // After a regrid's state move: when the ranks' max/mean work on the new tree exceeds the
  // threshold, the cuts are made again (partition_work; taken where they lower it) and the octs
  // that change rank move with their state u (the state over t, in the comm's memory) to the new
  // owner; t's owned ranges are then the new cut's. work: t's work per base oct, weighted as
  // subcycle() says (base_work; on the GPU path the device's). t: its keys and level_begin alone.
  // Returns whether it re-cut.
  virtual bool rebalance(Tree& t, const std::vector<std::int64_t>& work, double* u) = 0;
  // Whether the work weights a leaf by its level's substeps (--subcycle).
  virtual bool subcycle() const = 0;
  // The load balance's record (run.decomposition.ranks.load_balance in the JSON).
  struct Balance {
    double threshold = 0;
    long checks = 0, recuts = 0;
    std::int64_t octs_migrated = 0;
    double bytes_moved = 0;  // by all ranks together
    std::vector<double> before, after;
  };
  virtual const Balance& balance() const = 0;
  // The partition in words, the cuts, and this rank's work (leaf cells weighted by substeps).
  virtual std::string describe() const = 0;
  virtual std::vector<std::int64_t> cuts() const = 0;
  virtual double local_work(const Tree& t) const = 0;
  // Per level: owned octs, ghost octs and weighted leaf cells of this rank.
  struct LevelCounts {
    std::vector<std::int64_t> owned, ghosts, work;
  };
  virtual LevelCounts level_counts(const Tree& t) const = 0;
  // Bytes this rank sent per exchange of all levels' ghosts and of all fluxes.
  virtual double ghost_bytes() const = 0;
  virtual double flux_bytes() const = 0;
};

#if defined(COPA_HAVE_MPI)
// imbalance: the max/mean work above which a regrid re-cuts (--amr-imbalance). The ghost, flux and
// migration exchanges move host memory (the host backends), or device memory (the GPU backends'
// device-resident state and fine fluxes) through `transport` (--transport); the criterion bytes,
// the dt scan and the final gather are host messages either way.
std::unique_ptr<RankComm> make_rank_comm(bool subcycle, double imbalance,
                                         copa::halo::Transport transport = copa::halo::Transport::host,
                                         copa::halo::Memory memory = copa::halo::Memory::host);
#endif

}  // namespace ro::amr
