// Results of a distributed run collected on rank 0 in global particle order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mps::dist {

// Collective: every rank passes its owned particles' values and global ids; rank 0 gets the
// `global_count` values in global id order (every id owned by exactly one rank), the others an
// empty vector. Without MPI the values are only put in id order.
std::vector<double> gather_by_id(const std::vector<double>& values, const std::vector<std::int64_t>& ids,
                                 std::size_t global_count);

}  // namespace mps::dist
