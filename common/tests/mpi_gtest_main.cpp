// The main of a GoogleTest executable whose cases use MPI: the session initialises MPI when the
// build has it (one rank when started without mpiexec, as ctest's discovery does) and finalises it
// after the cases.
#include "copa/mpi.hpp"
#include "copa/testing.hpp"

int main(int argc, char** argv) {
  copa::mpi::Session session(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new copa::testing::MpiRanksCheck);
  return RUN_ALL_TESTS();
}
