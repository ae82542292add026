// A sibling group's member mask: bit m set where oct m of
// the group's aligned 2 x 2 x 2 block (x fastest) is a leaf oct of the group. The group's leaf
// octs are consecutive in the leaf list in member order, so member m's leaf index is the group's
// first plus the number of members below m. And the slot rows' empty entry. Read by the plan
// build (amr_plan_body.hpp) and the leaf update (amr_leaf_block.hpp), on the host and the device.
#pragma once
#include <climits>
#include <cstdint>

#include "amr/amr_lists_body.hpp"
#include "hydro/hydro_math.hpp"

namespace ro::amr {

inline constexpr unsigned complete_group = 0xffu;

// A slot row's entry (StepPlan::slots, group_slots) where the unit has no slot: a corner slot, or
// a partial group's slot next to none of its leaf octs.
inline constexpr std::int32_t no_slot = INT32_MIN;

// Row entry e is a ghost slot (-1 before numbering, -1 - ghost after: both count as ghosts, so
// the count below a slot does not depend on which slots were numbered first).
RO_HD bool plan_slot_is_ghost(std::int32_t e) { return e < 0 && e != no_slot; }

// Member bits below m of mask (m = 8: all of them). The device's one-instruction count in the
// leaf update; the host counts as the step lists do.
RO_HD int member_rank(unsigned mask, int m) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __popc(mask & ((1u << m) - 1u));
#else
  return static_cast<int>(lists_popcount(mask & ((1u << m) - 1u)));
#endif
}

}  // namespace ro::amr
