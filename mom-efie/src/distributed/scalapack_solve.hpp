// The CPU distributed solve: ScaLAPACK's pzgetrf (right-looking blocked LU with partial pivoting
// across the process column) and pzgetrs on a BLACS grid over MPI_COMM_WORLD, the matrix and the
// right-hand side in the block-cyclic layout of block_cyclic.hpp. Only in MPI builds that found
// ScaLAPACK (COPA_HAVE_SCALAPACK); the GPU LU is checked against it.
#pragma once
#include <memory>
#include <vector>

#include "copa/timing.hpp"
#include "distributed/block_cyclic.hpp"
#include "problem.hpp"

namespace efie::dist {

bool scalapack_built();

class ScalapackSolver {
 public:
  // Opens the BLACS grid (row-major, as BlockCyclic); InputError when this build has no ScaLAPACK.
  explicit ScalapackSolver(const BlockCyclic& layout);
  ~ScalapackSolver();
  ScalapackSolver(const ScalapackSolver&) = delete;
  ScalapackSolver& operator=(const ScalapackSolver&) = delete;
  // LU of the local block in place ("lu"), then the solve of the owned right-hand side
  // (owned_vector's layout, overwritten with the solution; "solve").
  void factor(complex* local, copa::RegionTimer& timer);
  void solve(const complex* local, std::vector<complex>& owned_b, copa::RegionTimer& timer);

 private:
  BlockCyclic layout_;
  int context_ = -1;
  int desc_a_[9] = {}, desc_b_[9] = {};
  std::vector<int> pivots_;
};

}  // namespace efie::dist
