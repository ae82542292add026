// MPI layer on 2 and 3 ranks (ctest runs it both ways): reductions of timings, the deterministic
// rank-ordered sums, and the exact min/max/integer reductions.
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "copa/mpi.hpp"
#include "copa/report.hpp"
#include "copa/stats.hpp"
#include "copa/testing.hpp"

namespace {

std::uint64_t bits_of(double x) {
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// True when every rank passed the same bits.
bool same_bits_on_every_rank(double x) {
  const std::uint64_t mine = bits_of(x);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(copa::mpi::size()));
  MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  for (std::uint64_t b : all)
    if (b != mine) return false;
  return true;
}

// Rank 0 holds 1, every other rank half an ulp of 1 (2^-53). Left to right each small partial is
// rounded away (1 + 2^-53 ties to even, back to 1), while any tree that adds two small partials
// first gets 2^-52 and then 1 + 2^-52: a reduction in another order changes the last bit.
double partial_of(int rank, int element) {
  const double half_ulp = std::ldexp(1.0, -53);
  const double scale = 1.0 + element;  // powers of the same pattern per element
  return rank == 0 ? scale : half_ulp * scale;
}

double rank_ordered_serial_sum(int ranks, int element) {
  double total = partial_of(0, element);
  for (int r = 1; r < ranks; ++r) total += partial_of(r, element);
  return total;
}

}  // namespace

TEST(Mpi, timings_are_reduced_over_ranks) {
  EXPECT_TRUE(copa::mpi::enabled());
  const int n = copa::mpi::size();
  EXPECT_TRUE(n >= 2);
  const copa::mpi::Reduced r = copa::mpi::reduce(copa::mpi::rank() + 1.0);
  COPA_EXPECT_NEAR_REL(r.min, 1.0, 0);
  COPA_EXPECT_NEAR_REL(r.max, n, 0);
  COPA_EXPECT_NEAR_REL(r.mean, (n + 1) / 2.0, 0);
  COPA_EXPECT_NEAR_REL(copa::mpi::sum(1.0), n, 0);
  EXPECT_TRUE(copa::mpi::local_rank() == copa::mpi::rank());  // one node
  EXPECT_TRUE(copa::mpi::is_root() == (copa::mpi::rank() == 0));
}

TEST(Mpi, sum_ordered_gives_the_rank_ordered_bits_on_every_rank) {
  const int n = copa::mpi::size();
  const double s = copa::mpi::sum_ordered(partial_of(copa::mpi::rank(), 0));
  EXPECT_TRUE(same_bits_on_every_rank(s));
  EXPECT_TRUE(bits_of(s) == bits_of(rank_ordered_serial_sum(n, 0)));
  EXPECT_TRUE(s == 1.0);
  if (n >= 3) {
    // The values do tell the orders apart: the small partials added first give another result.
    double small_first = partial_of(1, 0) + partial_of(2, 0);
    for (int r = 3; r < n; ++r) small_first += partial_of(r, 0);
    EXPECT_TRUE(small_first + partial_of(0, 0) != s);
  }
}

TEST(Mpi, sum_ordered_vector_is_element_wise) {
  const int n = copa::mpi::size();
  const int elements = 5;
  std::vector<double> partials(elements);
  for (int i = 0; i < elements; ++i) partials[static_cast<std::size_t>(i)] = partial_of(copa::mpi::rank(), i);
  const std::vector<double> s = copa::mpi::sum_ordered(partials);
  EXPECT_TRUE(s.size() == partials.size());
  for (int i = 0; i < elements && i < static_cast<int>(s.size()); ++i) {
    EXPECT_TRUE(same_bits_on_every_rank(s[static_cast<std::size_t>(i)]));
    EXPECT_TRUE(bits_of(s[static_cast<std::size_t>(i)]) == bits_of(rank_ordered_serial_sum(n, i)));
  }
  EXPECT_TRUE(copa::mpi::sum_ordered(std::vector<double>{}).empty());
}

TEST(Mpi, min_max_and_integer_sums_over_ranks) {
  const int n = copa::mpi::size();
  const int r = copa::mpi::rank();
  EXPECT_TRUE(copa::mpi::min_all(10.0 - r) == 10.0 - (n - 1));
  EXPECT_TRUE(copa::mpi::max_all(10.0 - r) == 10.0);
  // Beyond 2^53, where a double sum would round: integers are summed exactly.
  const long long big = (1LL << 60) + r;
  EXPECT_TRUE(copa::mpi::sum_all(big) == n * (1LL << 60) + static_cast<long long>(n) * (n - 1) / 2);
}

TEST(Mpi, report_kernel_times_are_the_max_over_ranks) {
  const int n = copa::mpi::size();
  const double r = copa::mpi::rank();
  copa::Report report("test-app", "0.1");
  report.add_kernel({"k", 3, copa::summarize({r + 1, 2 * (r + 1), 3.0}), {}, {r + 1, 2 * (r + 1), 3.0}, {}, {}});
  report.add_kernel("stats-only", copa::summarize({r + 1}), {});
  report.set_decomposition(copa::Report::make_decomposition({{"grid", {n, 1, 1}}}, 100.0 + r, "cells"));
  report.set_transport("host");
  report.reduce_over_ranks();
  const auto& k = report.kernels()[0];
  EXPECT_TRUE(k.samples == (std::vector<double>{1.0 * n, 2.0 * n, 3.0}));  // per-sample max
  EXPECT_TRUE(k.time.median == copa::summarize({1.0 * n, 2.0 * n, 3.0}).median);
  double mean = 0, slowest = 0;
  for (int q = 0; q < n; ++q) {
    const double m = copa::summarize({q + 1.0, 2.0 * (q + 1), 3.0}).median;
    mean += m / n;
    slowest = std::max(slowest, m);
  }
  COPA_EXPECT_NEAR_REL(*k.time_mean_over_ranks, mean, 1e-15);
  COPA_EXPECT_NEAR_REL(*k.imbalance, slowest / mean, 1e-15);
  EXPECT_TRUE(*k.imbalance > 1.0);
  EXPECT_TRUE(report.kernels()[1].time.median == n);
  const auto doc = report.to_json();
  EXPECT_TRUE(doc["run"]["mpi_ranks"] == n);
  EXPECT_TRUE(doc["run"]["transport"] == "host");
  EXPECT_TRUE(doc["run"]["local_rank"] == copa::mpi::rank());  // one node
  EXPECT_TRUE(doc["run"]["decomposition"]["local_work"].size() == static_cast<std::size_t>(n));
  EXPECT_TRUE(doc["run"]["decomposition"]["local_work"][n - 1] == 100.0 + n - 1);
  EXPECT_TRUE(doc["kernels"][0]["imbalance"] == *k.imbalance);
  EXPECT_TRUE(doc["kernels"][0].contains("time_mean_over_ranks"));
}


namespace {
struct RankRun {
  int rc = 0;
  std::string err;
};
// Every rank parses its own arguments (an MPMD launch in one process per rank).
RankRun parse_on_this_rank(std::vector<std::string> args) {
  copa::CommonOptions common;
  double tend = 1;
  CLI::App app("test", "test-app");
  copa::add_common_options(app, common);
  app.add_option("--tend", tend, "end time");
  args.insert(args.begin(), "test-app");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  testing::internal::CaptureStderr();
  RankRun r;
  r.rc = copa::parse_command_line(app, static_cast<int>(argv.size()), argv.data());
  r.err = testing::internal::GetCapturedStderr();
  return r;
}
}  // namespace

TEST(Mpi, ranks_given_different_options_never_run) {
  ASSERT_GE(copa::mpi::size(), 2);
  const int last = copa::mpi::size() - 1;
  // The same options on every rank (the GPU ordinal may differ): every rank goes on.
  EXPECT_EQ(parse_on_this_rank({"--tend", "0.5", "--device", std::to_string(copa::mpi::rank())}).rc, -1);
  // The last rank runs to another end time: every rank stops with 2, rank 0 names the option and both values.
  RankRun r = parse_on_this_rank({"--tend", copa::mpi::rank() == last ? "0.25" : "0.5"});
  EXPECT_EQ(r.rc, copa::exit_bad_input);
  if (copa::mpi::is_root())
    EXPECT_NE(r.err.find("--tend is 0.5 on rank 0 and 0.25 on rank " + std::to_string(last)), std::string::npos)
        << r.err;
  else
    EXPECT_EQ(r.err, "");
  // Bad input on one rank alone ends every rank with 2, without a hang.
  r = parse_on_this_rank({"--reps", copa::mpi::rank() == last ? "0" : "3"});
  EXPECT_EQ(r.rc, copa::exit_bad_input);
}
