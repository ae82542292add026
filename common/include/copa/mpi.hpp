// Optional MPI: initialisation, rank and local rank (one GPU per local rank), and reductions of
// timings over ranks. Without COPA_HAVE_MPI every call behaves as a single rank.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace copa::mpi {

// The first line of every app's main: MPI_Init before anything else (option parsing, device
// selection), MPI_Finalize when main returns (guarded_main never lets an exception escape, and a
// failing rank of a multi-rank run calls MPI_Abort instead of returning).
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
int local_rank();  // rank among the processes of this node (GPU = local rank % device count)
bool is_root();    // rank 0: the only rank that prints the human tables
void barrier();
// Ends every rank of MPI_COMM_WORLD with `code` (MPI_Abort), so that no rank waits forever in a
// collective for a rank that failed. Without MPI (or before MPI_Init) it exits the process.
[[noreturn]] void abort_all(int code);

struct Reduced {
  double min = 0, max = 0, mean = 0;
};
Reduced reduce(double value);  // over all ranks
double sum(double value);

// Deterministic reductions for the scalars that steer control flow (dt, CG dots, conservation
// totals): the per-rank partials are gathered and combined in rank order, so every rank gets the
// same bits whatever the reduction tree of the MPI library.
double sum_ordered(double partial);
std::vector<double> sum_ordered(const std::vector<double>& partials);  // element-wise
double min_all(double value);
double max_all(double value);
long long sum_all(long long value);
std::vector<double> max_all(const std::vector<double>& values);  // element-wise, same length on every rank

// Collective: compares every rank's `lines` with rank 0's, line by line. Returns, on every rank, the
// first line that differs on some rank (its index, the lowest rank where it differs, rank 0's line
// and that rank's; an absent line reads as ""), or nothing when every rank holds rank 0's lines.
struct LineDifference {
  std::size_t index = 0;
  int rank = 0;
  std::string root_line, rank_line;
};
std::optional<LineDifference> first_difference_from_root(const std::vector<std::string>& lines);

// Collective: the largest `value` over the ranks, and the smallest (exact; for status codes).
int max_all(int value);
int min_all(int value);

// Every rank's value, in rank order, on every rank (for per-rank tables such as the local work of
// a decomposition).
std::vector<double> gather_all(double value);

}  // namespace copa::mpi
