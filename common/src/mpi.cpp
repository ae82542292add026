#include "copa/mpi.hpp"

#if defined(COPA_HAVE_MPI)
#include <mpi.h>
#endif

namespace copa::mpi {

#if defined(COPA_HAVE_MPI)

namespace {
bool owns_init = false;
int cached_local_rank = -1;
}  // namespace

Session::Session(int& argc, char**& argv) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    MPI_Init(&argc, &argv);
    owns_init = true;
  }
}

Session::~Session() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (owns_init && !finalised) MPI_Finalize();
}

bool enabled() {
  int initialised = 0;
  MPI_Initialized(&initialised);
  return initialised != 0;
}

int rank() {
  if (!enabled()) return 0;
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  if (!enabled()) return 1;
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

int local_rank() {
  if (!enabled()) return 0;
  if (cached_local_rank < 0) {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &cached_local_rank);
    MPI_Comm_free(&node);
  }
  return cached_local_rank;
}

void barrier() {
  if (enabled()) MPI_Barrier(MPI_COMM_WORLD);
}

Reduced reduce(double value) {
  if (!enabled()) return {value, value, value};
  Reduced r;
  MPI_Allreduce(&value, &r.min, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&value, &r.max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double total = 0;
  MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  r.mean = total / size();
  return r;
}

double sum(double value) {
  if (!enabled()) return value;
  double total = 0;
  MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

#else

Session::Session(int&, char**&) {}
Session::~Session() = default;
bool enabled() { return false; }
int rank() { return 0; }
int size() { return 1; }
int local_rank() { return 0; }
void barrier() {}
Reduced reduce(double value) { return {value, value, value}; }
double sum(double value) { return value; }

#endif

}  // namespace copa::mpi
