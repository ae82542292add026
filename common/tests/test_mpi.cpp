#define COPA_TEST_MAIN
#define COPA_TEST_CUSTOM_MAIN
#include "copa/mpi.hpp"
#include "copa/testing.hpp"

// Run with 2 ranks: each rank contributes rank + 1.
COPA_TEST(timings_are_reduced_over_ranks) {
  COPA_CHECK(copa::mpi::enabled());
  COPA_CHECK(copa::mpi::size() == 2);
  const copa::mpi::Reduced r = copa::mpi::reduce(copa::mpi::rank() + 1.0);
  COPA_CHECK_NEAR(r.min, 1.0, 0);
  COPA_CHECK_NEAR(r.max, 2.0, 0);
  COPA_CHECK_NEAR(r.mean, 1.5, 0);
  COPA_CHECK_NEAR(copa::mpi::sum(1.0), 2.0, 0);
  COPA_CHECK(copa::mpi::local_rank() == copa::mpi::rank());  // one node
}

int main(int argc, char** argv) {
  copa::mpi::Session session(argc, argv);
  return copa::testing::run_all(argc, argv);
}
