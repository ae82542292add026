// mom-efie on more than one MPI rank: the EFIE matrix in a 2D block-cyclic layout, filled where it
// is owned, factored by ScaLAPACK (CPU backends) or the GPU LU of dist_lu_gpu.cu; the solution
// gathered to every rank for the RCS. main.cpp calls it when the run has more than one rank.
#pragma once
#include <string>

#include "copa/backend.hpp"
#include "copa/cli.hpp"
#include "setup.hpp"

namespace efie::dist {

struct DistOptions {
  copa::CommonOptions common;
  ProblemOptions problem;
  std::string formulation = "efie";
  std::string rcs_file;
  double tolerance_db = 0.5;
  bool fill_only = false;
  std::string proc_grid;   // "PxQ", "" = default_proc_grid
  long block_size = 0;     // 0 = the backend's default
  std::string transport = "host";
  bool compare_one_rank = false;
  std::string dist_lu;     // "scalapack" | "pliris"; "" = scalapack on the CPU, pliris on the GPU
  bool lookahead = true;   // pliris: factor and send panel k + 1 before panel k's trailing GEMM
};

// Block size when --block-size is not given: 64 on the CPU (ScaLAPACK's usual range), 512 on the
// GPU (panels wide enough for the GEMMs to run near the DGEMM rate).
long default_block_size(copa::Backend b);

// One backend's distributed run; returns the exit code (the same on every rank).
int run_distributed(const DistOptions& o, copa::Backend backend, bool several, int argc, char** argv);

}  // namespace efie::dist
