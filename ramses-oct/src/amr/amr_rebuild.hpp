// The tree rebuild and link as the device runs them (amr_rebuild_body.hpp): the host parts of the device build (the layout from the counts, the max-octs
// refusal) and its emulation on the host for the tests.
#pragma once
#include <cstdint>
#include <vector>

#include "amr/amr_regrid.hpp"
#include "amr/amr_tree.hpp"

namespace ro::amr {

// The new tree's level_begin from the old tree's octs on level 0 and the exclusive scan of the
// per-old-oct son counts (rebuild_count) at each old level's first oct, son_scan_at[l] for
// l = 0..L: new level l + 1 holds the sons of old level l. Exit 3 (RuntimeError, the message of
// rebuild_tree_unlinked) when the new tree would exceed max_octs: before anything is allocated.
void rebuild_layout(long long level0_octs, const std::vector<long long>& son_scan_at, std::int64_t max_octs,
                    std::vector<std::int64_t>& new_begin);

// The device rebuild (amr_gpu.cu) run on the host: its passes in the kernels' order through the
// same bodies, exclusive scans where the device runs CUB scans, the hash filled in index order.
// out (not old) gets the new tree, linked (keys, levels, coordinates, level_begin, father, son,
// neighbours, hash), m the old->new map: rebuild_tree's tree and map field by field (cpu test).
void emulate_device_rebuild(const Tree& old, const std::vector<char>& flag, std::int64_t max_octs, Tree& out,
                            RegridMap& m);

}  // namespace ro::amr
