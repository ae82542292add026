#include "node_memory.hpp"

#include "copa/mpi.hpp"

#if defined(COPA_HAVE_MPI)
#include <mpi.h>
#endif

namespace laghos {

NodeShare sum_over_node(double bytes) {
  NodeShare s{bytes, 1};
#if defined(COPA_HAVE_MPI)
  if (copa::mpi::size() == 1) return s;
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Allreduce(&bytes, &s.bytes, 1, MPI_DOUBLE, MPI_SUM, node);
  MPI_Comm_size(node, &s.ranks);
  MPI_Comm_free(&node);
#endif
  return s;
}

}  // namespace laghos
