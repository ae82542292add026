#include "copa/mpi.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>

#include "copa/errors.hpp"

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
  // local_rank() needs a collective the first time: take it here, where every rank is, so that
  // later calls (device selection, a report written by rank 0 alone) need none.
  local_rank();
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

bool is_root() { return rank() == 0; }

void barrier() {
  if (enabled()) MPI_Barrier(MPI_COMM_WORLD);
}

void abort_all(int code) {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (enabled() && !finalised) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
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

// Floating-point addition is not associative: an MPI_Allreduce may add the partials in any tree
// (and a different one for another rank count or message size), so the last bits of the sum can
// differ between runs or even between ranks. Gathering every partial and adding them left to
// right in rank order gives ((p0 + p1) + p2) + ... on every rank.
double sum_ordered(double partial) {
  if (!enabled() || size() == 1) return partial;
  std::vector<double> all(static_cast<std::size_t>(size()));
  MPI_Allgather(&partial, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
  double total = all[0];
  for (std::size_t r = 1; r < all.size(); ++r) total += all[r];
  return total;
}

std::vector<double> sum_ordered(const std::vector<double>& partials) {
  if (!enabled() || size() == 1) return partials;
  const long long n = static_cast<long long>(partials.size());
  long long n_min = 0, n_max = 0;
  MPI_Allreduce(&n, &n_min, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&n, &n_max, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (n_min != n_max)
    throw RuntimeError("mpi::sum_ordered: ranks passed vectors of different lengths (" + std::to_string(n_min) +
                       " to " + std::to_string(n_max) + ")");
  const std::size_t ranks = static_cast<std::size_t>(size());
  std::vector<double> all(partials.size() * ranks);
  MPI_Allgather(partials.data(), static_cast<int>(n), MPI_DOUBLE, all.data(), static_cast<int>(n), MPI_DOUBLE,
                MPI_COMM_WORLD);
  std::vector<double> total(partials.size());
  for (std::size_t i = 0; i < partials.size(); ++i) {
    double t = all[i];
    for (std::size_t r = 1; r < ranks; ++r) t += all[r * partials.size() + i];
    total[i] = t;
  }
  return total;
}

// Minimum, maximum and integer sums are exact whatever the order: MPI_Allreduce is deterministic.
namespace {
template <class T>
T allreduce(T value, MPI_Datatype type, MPI_Op op) {
  if (!enabled()) return value;
  T out = value;
  MPI_Allreduce(&value, &out, 1, type, op, MPI_COMM_WORLD);
  return out;
}
}  // namespace

double min_all(double value) { return allreduce(value, MPI_DOUBLE, MPI_MIN); }
double max_all(double value) { return allreduce(value, MPI_DOUBLE, MPI_MAX); }
int min_all(int value) { return allreduce(value, MPI_INT, MPI_MIN); }
int max_all(int value) { return allreduce(value, MPI_INT, MPI_MAX); }
long long sum_all(long long value) { return allreduce(value, MPI_LONG_LONG, MPI_SUM); }

std::vector<double> max_all(const std::vector<double>& values) {
  if (!enabled()) return values;
  const long long n = static_cast<long long>(values.size());
  if (min_all(static_cast<double>(n)) != max_all(static_cast<double>(n)))
    throw RuntimeError("mpi::max_all: ranks passed vectors of different lengths");
  std::vector<double> out(values.size());
  MPI_Allreduce(values.data(), out.data(), static_cast<int>(n), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

std::vector<double> gather_all(double value) {
  if (!enabled()) return {value};
  std::vector<double> all(static_cast<std::size_t>(size()));
  MPI_Allgather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
  return all;
}


namespace {
// `text` of rank `root` on every rank (its length first, then its bytes).
std::string broadcast(std::string text, int root) {
  unsigned long long n = text.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD);
  text.resize(static_cast<std::size_t>(n));
  if (n > 0) MPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, root, MPI_COMM_WORLD);
  return text;
}
}  // namespace

std::optional<LineDifference> first_difference_from_root(const std::vector<std::string>& lines) {
  if (!enabled() || size() < 2) return std::nullopt;
  std::string joined;
  for (const auto& l : lines) joined += l + "\n";
  const std::string root_joined = broadcast(joined, 0);
  std::vector<std::string> root_lines;
  for (std::size_t a = 0; a < root_joined.size();) {
    const std::size_t b = root_joined.find('\n', a);
    root_lines.push_back(root_joined.substr(a, b - a));
    a = b + 1;
  }
  // This rank's first line that differs from rank 0's (a line one side lacks counts), or none.
  const std::size_t common = std::min(lines.size(), root_lines.size());
  std::size_t i = 0;
  while (i < common && lines[i] == root_lines[i]) ++i;
  constexpr int none = std::numeric_limits<int>::max();
  struct {
    int index, rank;
  } in{i == common && lines.size() == root_lines.size() ? none : static_cast<int>(i), rank()}, out{};
  MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
  if (out.index == none) return std::nullopt;
  LineDifference d;
  d.index = static_cast<std::size_t>(out.index);
  d.rank = out.rank;
  d.root_line = d.index < root_lines.size() ? root_lines[d.index] : "";
  d.rank_line = broadcast(rank() == out.rank && d.index < lines.size() ? lines[d.index] : "", out.rank);
  return d;
}

#else

Session::Session(int&, char**&) {}
Session::~Session() = default;
bool enabled() { return false; }
int rank() { return 0; }
int size() { return 1; }
int local_rank() { return 0; }
bool is_root() { return true; }
void barrier() {}
void abort_all(int code) { std::exit(code); }
Reduced reduce(double value) { return {value, value, value}; }
double sum(double value) { return value; }
double sum_ordered(double partial) { return partial; }
std::vector<double> sum_ordered(const std::vector<double>& partials) { return partials; }
double min_all(double value) { return value; }
double max_all(double value) { return value; }
long long sum_all(long long value) { return value; }
std::vector<double> max_all(const std::vector<double>& values) { return values; }
std::vector<double> gather_all(double value) { return {value}; }
int max_all(int value) { return value; }
int min_all(int value) { return value; }
std::optional<LineDifference> first_difference_from_root(const std::vector<std::string>&) { return std::nullopt; }

#endif

}  // namespace copa::mpi
