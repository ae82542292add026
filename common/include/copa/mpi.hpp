// Optional MPI: initialisation, rank and local rank (one GPU per local rank), and reductions of
// timings over ranks. Without COPA_HAVE_MPI every call behaves as a single rank.
#pragma once

namespace copa::mpi {

class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

bool enabled();
int rank();
int size();
int local_rank();  // rank among the processes of this node
void barrier();

struct Reduced {
  double min = 0, max = 0, mean = 0;
};
Reduced reduce(double value);  // over all ranks
double sum(double value);

}  // namespace copa::mpi
