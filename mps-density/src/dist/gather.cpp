#include "dist/gather.hpp"

#include "copa/errors.hpp"
#include "copa/mpi.hpp"
#if defined(COPA_HAVE_MPI)
#include <mpi.h>
#endif

namespace mps::dist {

std::vector<double> gather_by_id(const std::vector<double>& values, const std::vector<std::int64_t>& ids,
                                 std::size_t global_count) {
  std::vector<double> all_values = values;
  std::vector<std::int64_t> all_ids = ids;
#if defined(COPA_HAVE_MPI)
  if (copa::mpi::size() > 1) {
    const int ranks = copa::mpi::size(), root = 0;
    const bool is_root = copa::mpi::rank() == root;
    // Counts fit int: the set-up has fewer than 2^31 particles (require_memory refuses more).
    const int mine = static_cast<int>(values.size());
    std::vector<int> counts(ranks), displs(ranks, 0);
    MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, root, MPI_COMM_WORLD);
    for (int r = 1; r < ranks; ++r) displs[r] = displs[r - 1] + counts[r - 1];
    all_values.assign(is_root ? global_count : 0, 0.0);
    all_ids.assign(is_root ? global_count : 0, -1);
    MPI_Gatherv(values.data(), mine, MPI_DOUBLE, all_values.data(), counts.data(), displs.data(), MPI_DOUBLE, root,
                MPI_COMM_WORLD);
    MPI_Gatherv(ids.data(), mine, MPI_INT64_T, all_ids.data(), counts.data(), displs.data(), MPI_INT64_T, root,
                MPI_COMM_WORLD);
    if (!is_root) return {};
  }
#endif
  if (all_ids.size() != global_count)
    throw copa::RuntimeError("gather_by_id: " + std::to_string(all_ids.size()) + " owned particles over all ranks, " +
                             std::to_string(global_count) + " in the set-up");
  std::vector<double> out(global_count, 0.0);
  std::vector<char> seen(global_count, 0);
  for (std::size_t k = 0; k < all_ids.size(); ++k) {
    const auto id = all_ids[k];
    if (id < 0 || static_cast<std::size_t>(id) >= global_count || seen[id])
      throw copa::RuntimeError("gather_by_id: particle id " + std::to_string(id) + " missing, repeated or out of range");
    seen[id] = 1;
    out[id] = all_values[k];
  }
  return out;
}

}  // namespace mps::dist
