// The index lists a GPU step reads (rebuilt at every regrid: on the device by the GPU path from the
// uploaded tree, on the host for the tests and emulation, through the same bodies of
// amr_plan_body.hpp; the step itself then needs no key search): per leaf oct its 27 slot sources (an oct,
// or a ghost slot prolonged from a coarser cell), boundary kinds, the faces that take no flux
// (refined neighbour) and the faces whose fine fluxes are kept; per ghost slot its coarse cell
// and the six neighbours the slopes use; per level the (covered cell, son oct) restriction pairs.
#pragma once
#include <climits>
#include <cstdint>
#include <functional>
#include <vector>

#include "amr/amr_plan_body.hpp"
#include "amr/amr_solver.hpp"
#include "amr/amr_tree.hpp"

namespace ro::amr {

struct StepPlan {
  std::vector<std::int32_t> leaf_octs;
  std::vector<std::int32_t> slots;        // 27 per leaf oct (x fastest): oct >= 0, -1 - ghost index, or no_slot (corners, grouped octs)
  std::vector<std::int8_t> edges;         // 6 per leaf oct: boundary kind lo x,y,z then hi x,y,z
  std::vector<std::uint64_t> skip;        // per leaf oct: bit 6 * cell + face set: the face takes no flux
  std::vector<std::uint8_t> keep;         // per leaf oct: bit face set: keep the face's fine fluxes
  // Sibling groups (block::Unit<4>): the aligned 2 x 2 x 2 block of octs of one level (above
  // level 0 the sons of one father oct) with at least group_min of its octs leaf octs, consecutive
  // in leaf_octs from groups[k] on (member order, x fastest), updated as one 4^3 block; its other
  // octs (covered, absent or updated elsewhere) are only read. Every other leaf oct is in singles
  // and updated alone.
  std::vector<std::int32_t> singles;      // leaf indices
  std::vector<std::int32_t> groups;       // per group its first leaf index
  std::vector<std::uint8_t> group_members;  // per group its member mask (amr_members.hpp; complete: 0xff)
  std::vector<std::int8_t> group_edges;     // 6 per group: the block's boundary kinds, as edges
  std::vector<std::int32_t> group_slots;  // 64 per group (4^3 oct slots, x fastest), as slots
  std::vector<std::int64_t> ghost_src;    // 7 per ghost: the coarse cell, then its -x, +x, -y, +y, -z, +z neighbours
  std::vector<std::uint8_t> ghost_flip;   // 7 per ghost: bits of the axes whose momentum flips
  std::vector<std::int64_t> ghost_begin;  // per unit (singles, then groups), its first ghost (+ end)
  std::vector<std::uint8_t> head;         // workspace: per leaf oct, the member mask of the group starting there, or 0
  std::vector<std::int64_t> restrict_cell, restrict_son;  // pairs, finest level first
  std::vector<std::int64_t> restrict_begin;               // per level from L-1 down to 0 (+ end)
};

// --subcycle: the plan's ranges per level, so that the device's amr_step launches its kernels
// over one level (plan_level_ranges, amr_plan_body.hpp). Per level l = 0..L and the end (L + 2
// entries): its leaf octs [leaf_begin[l], leaf_begin[l + 1]) in leaf_octs, singles and groups in
// singles and groups, its singles' ghosts and its groups' ghosts (the ghosts of the singles of all
// levels come first, then those of the groups, so a level's ghosts are two ranges); per level
// l = 0..L its reflux faces [face_begin[l], face_begin[l + 1]) in the step lists' faces (L + 1
// entries: the finest level has none). Its restriction pairs are StepPlan::restrict_begin's.
struct PlanLevels {
  std::vector<long long> leaf_begin, single_begin, group_begin, single_ghost_begin, group_ghost_begin;
  std::vector<long long> face_begin;
  long long ghosts = 0;
};
PlanLevels plan_levels_from_words(const long long* words, int max_level);

// The device's pass on the host: the scans the device lists and plan hold (leaf flags per oct,
// reflux faces per coarse oct, single and head flags per leaf, ghost_begin) rebuilt from the tree
// and the plan, then plan_level_ranges.
PlanLevels emulate_plan_levels(const Tree& t, const StepPlan& p);

// Tuning group-min: the fewest leaf octs of a block updated as one sibling group (1..8; 8: complete
// blocks only). 3: the fastest step measured on the H200 (2, 3, 4
// within 1% on Sedov 32^3 + 2, 3 best by 2-3% on 64^3 + 2).
inline constexpr int default_group_min = 3;

// Rebuilds p in place (vectors keep their capacity across regrids), the loops over the leaf octs
// in parallel; the result does not depend on the loops (the serial plan). group_min: as
// tuning group-min; 0 puts every leaf oct in singles (the per-oct path alone, for tests).
void build_step_plan(const Tree& t, const StepLists& lists, bool reflux, const Loops& loops, StepPlan& p,
                     int group_min = default_group_min);
StepPlan build_step_plan(const Tree& t, const StepLists& lists, bool reflux,
                         int group_min = default_group_min);  // serial, fresh

// The plan's view of a host tree (amr_plan_body.hpp).
PlanView plan_view(const Tree& t);

// In place: v[k] = sum of v[0..k-1], the host twin of the device's CUB ExclusiveSum that the
// emulations of the device builds (plan, lists, rebuild) run where the kernels scan.
void exclusive_scan(std::vector<long long>& v);
// The device plan build (amr_gpu.cu) run on the host: its passes in the kernels' order, each
// through the same body, with the parallel singles/groups split and exclusive scans of the
// counts where the device runs CUB scans. It must give build_step_plan's plan field by field
// (cpu test), and it is the emulated device's plan in the GPU-path tests.
// The finest-first layout of the restriction pairs from scan_at[l] (l = 0..L), the exclusive scan
// of the per-oct covered-cell counts at level l's first oct: restrict_begin (per level from L-1
// down to 0, + end) and the per-level offsets of plan_restrict_fill.
void restrict_layout(const std::vector<long long>& scan_at, std::vector<std::int64_t>& restrict_begin,
                     long long offset[max_levels + 1]);

void emulate_device_plan(const Tree& t, const StepLists& lists, bool reflux, StepPlan& p,
                         int group_min = default_group_min);

// The device lists build (amr_gpu.cu) run on the host: per oct the leaf flag and the reflux
// face mask (amr_lists_body.hpp), exclusive scans, the fill. It must give build_step_lists's
// leaf_octs, leaf_octs_begin and faces (cpu test); reflux_octs and reflux_begin, which only the
// host's per-oct reflux loop reads (the device refluxes per face), are left empty.
// Over MPI ranks (t with owned ranges) both cover t's owned octs only, as the device's (lists_owns).
void emulate_device_lists(const Tree& t, StepLists& s);
// The lists_owns table of t's owned ranges (amr_lists_body.hpp): empty on one rank (every oct owned).
std::vector<long long> owned_table(const Tree& t);

// One step of the GPU body (amr_leaf_block.hpp) run on the host, block by block, one thread
// looping over each oct group's lanes: ghost slots, every leaf oct, reflux, restriction;
// u -> unew. For the cpu test that checks the GPU step's plan and index maps against the oracle.
// fine_flux_out: where given, the step's fine-flux buffer (the kept fluxes) copied there.
// fluxes: where given, called on the fine-flux buffer between the leaf update and the reflux (over
// MPI ranks: the other ranks' fine fluxes arrive there, as on the device, DeviceStep::set_ranks).
void emulate_plan_step(const Tree& t, const StepPlan& p, const StepLists& lists, const HydroParams& hp, bool reflux,
                       const std::vector<double>& u, std::vector<double>& unew, double dt,
                       std::vector<double>* fine_flux_out = nullptr,
                       const std::function<void(double*)>& fluxes = {});

// One coarse step of dt0 with level subcycling (amr_subcycle.hpp) as the device runs it
// (GpuAmrStep::advance_subcycled): the recursion of amr_step, per level the ghosts of its two
// ranges, its units through the GPU body (for l >= 1 adding the substep's fine-flux sums as they
// store the kept fluxes, the first of a level's two substeps starting them; flux_sum:
// fine_flux_per_oct per oct, scratch like fine_flux, none of it read before it is written), the
// reflux from the level below's sums, the commit of its leaf cells and the restriction; in place
// on u (unew, fine_flux: scratch of the state's and the flux buffer's sizes).
// ghosts, fluxes: where given, called as the device calls DeviceRanks's (over MPI ranks): ghosts(l,
// state) before each substep of level l on the state it reads, fluxes(l, flux_sum) before level l's
// reflux.
void emulate_plan_subcycled_step(const Tree& t, const StepPlan& p, const StepLists& lists, const PlanLevels& lv,
                                 const HydroParams& hp, bool reflux, std::vector<double>& u, std::vector<double>& unew,
                                 std::vector<double>& fine_flux, std::vector<double>& flux_sum, double dt0,
                                 const std::function<void(int, double*)>& ghosts = {},
                                 const std::function<void(int, double*)>& fluxes = {});

// The GPU dt scan's result words (per level the largest leaf speed's bits, then the lowest bad
// leaf cell as ~index, 0 = none) as a LeafScan.
LeafScan leaf_scan_from_words(const unsigned long long* words, int nlevel);
// The GPU dt scan with its per-cell body (block::leaf_speed) on the host, words maximised
// serially: it must give scan_leaves's result bit for bit (over ranks: the owned leaf cells).
LeafScan emulate_leaf_scan(const Tree& t, const std::vector<double>& u, double gamma);

}  // namespace ro::amr
