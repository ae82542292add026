// The index lists a GPU step reads (built on the host from the tree at every regrid and copied to
// the device; the step itself then needs no key search): per leaf oct its 27 slot sources (an oct,
// or a ghost slot prolonged from a coarser cell), boundary kinds, the faces that take no flux
// (refined neighbour) and the faces whose fine fluxes are kept; per ghost slot its coarse cell
// and the six neighbours the slopes use; per level the (covered cell, son oct) restriction pairs.
#pragma once
#include <climits>
#include <cstdint>
#include <vector>

#include "amr_solver.hpp"
#include "amr_tree.hpp"

namespace ro::amr {

// The GPU gather reads no cell of the 8 corner slots of a leaf oct's 27 (block::Q): they get
// no ghost and hold no_slot (38% fewer ghost slots to prolong in the Sedov 8^3 + 2 levels tree
// of amr_gpu_body_emulation_equals_serial, 44% in its Sod tree).
constexpr bool is_corner_slot(int s) { return s % 3 != 1 && (s / 3) % 3 != 1 && s / 9 != 1; }
inline constexpr std::int32_t no_slot = INT32_MIN;

struct StepPlan {
  std::vector<std::int32_t> leaf_octs;
  std::vector<std::int32_t> slots;        // 27 per leaf oct (x fastest): oct >= 0, -1 - ghost index, or no_slot (corners, grouped octs)
  std::vector<std::int8_t> edges;         // 6 per leaf oct: boundary kind lo x,y,z then hi x,y,z
  std::vector<std::uint64_t> skip;        // per leaf oct: bit 6 * cell + face set: the face takes no flux
  std::vector<std::uint8_t> keep;         // per leaf oct: bit face set: keep the face's fine fluxes
  // Sibling groups (block::Unit<4>): 8 leaf octs of one level forming an aligned 2 x 2 x 2 block,
  // consecutive in leaf_octs from groups[k] on (x fastest), updated as one 4^3 block; every other
  // leaf oct is in singles and updated alone.
  std::vector<std::int32_t> singles;      // leaf indices
  std::vector<std::int32_t> groups;       // per group its first leaf index
  std::vector<std::int32_t> group_slots;  // 64 per group (4^3 oct slots, x fastest), as slots
  std::vector<std::int64_t> ghost_src;    // 7 per ghost: the coarse cell, then its -x, +x, -y, +y, -z, +z neighbours
  std::vector<std::uint8_t> ghost_flip;   // 7 per ghost: bits of the axes whose momentum flips
  std::vector<std::int64_t> ghost_begin;  // per unit (singles, then groups), its first ghost (+ end)
  std::vector<std::uint8_t> head;         // workspace: per leaf oct, 1 if a group starts there
  std::vector<std::int64_t> restrict_cell, restrict_son;  // pairs, finest level first
  std::vector<std::int64_t> restrict_begin;               // per level from L-1 down to 0 (+ end)
};

// Rebuilds p in place (vectors keep their capacity across regrids), the loops over the leaf octs
// in parallel; the result does not depend on the loops (the serial plan). groups = false puts
// every leaf oct in singles (the per-oct path alone, for tests).
void build_step_plan(const Tree& t, const StepLists& lists, bool reflux, const Loops& loops, StepPlan& p,
                     bool groups = true);
StepPlan build_step_plan(const Tree& t, const StepLists& lists, bool reflux, bool groups = true);  // serial, fresh

// Group slot s (0..63, 4^3 oct slots x fastest) of a group whose 8 member octs are members[]
// (x fastest): false for the 8 corner slots (never read); otherwise the member next to the slot
// and that member's own slot (0..26) that is the same oct slot, so a group reads exactly the
// octs and ghost cells its members would read alone.
bool group_slot_member(const std::int32_t* members, int s, std::int32_t& member, int& slot27);

// One step of the GPU body (amr_leaf_block.hpp) run on the host, block by block, one thread
// looping over each oct group's lanes: ghost slots, every leaf oct, reflux, restriction;
// u -> unew. For the cpu test that checks the GPU step's plan and index maps against the oracle.
void emulate_plan_step(const Tree& t, const StepPlan& p, const StepLists& lists, const HydroParams& hp, bool reflux,
                       const std::vector<double>& u, std::vector<double>& unew, double dt);

// The GPU dt scan's result words (per level the largest leaf speed's bits, then the lowest bad
// leaf cell as ~index, 0 = none) as a LeafScan.
LeafScan leaf_scan_from_words(const unsigned long long* words, int nlevel);
// The GPU dt scan with its per-cell body (block::leaf_speed) on the host, words maximised
// serially: it must give scan_leaves's result bit for bit.
LeafScan emulate_leaf_scan(const Tree& t, const std::vector<double>& u, double gamma);

}  // namespace ro::amr
