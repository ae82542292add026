// The command line's options and the driver's pieces: the set-up (set_up.cpp), the density
// benchmark (run_density.cpp) and the simulation (run_simulation.cpp); main.cpp parses and loops
// over backends and variants.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "copa/backend.hpp"
#include "copa/cli.hpp"
#include "copa/report.hpp"
#include "copa/timing.hpp"
#include "copa/vtk.hpp"
#include "dist/slabs.hpp"
#include "kernels.hpp"
#include "particles.hpp"

namespace mps::app {

struct AppOptions {
  std::string case_name = "pflow";
  std::string mode;  // density | simulation ("" = density for pflow/lattice/random, simulation for dambreak)
  int dim = 3;
  double re = 2.1;
  int lattice_m = 0;
  std::size_t particles = 0;
  double a = 0.1, l0 = 0;
  int depth_layers = 0;
  double t_end = 3.0;  // dimensionless T = t sqrt(2g/a)
  int steps = 0;
  double dt = 0;
  std::string front;
  std::string reorder = "on";
  double skin = 0.3;
  std::string precision = "fp64";
  std::string rebucket = "atomic";
  std::vector<std::string> variants;  // --variants: several strategies on one set-up
  std::string transport = "host";     // ghost fill between MPI ranks
  copa::vtk::Options vtk;             // ParaView output (the first backend and variant of a run)
  double cg_tol = 1e-8;               // PPE conjugate gradients: relative residual
  double ghost_margin = 1.0;          // simulation over ranks: ghost width beyond r_max, in l0
  double rebalance = 0;               // re-cut the slabs when max/mean owned particles exceeds it (0: never)
  double position_tolerance = 1e-5;   // simulation over ranks: final positions vs one rank, in l0
  bool compare_serial = false;        // simulation on one rank: the same steps on the serial backend
  bool step_graph = false;            // --tuning step=graph of the run's selection (set per run by main)
};

// The parameters of a set-up, resolved from the options (defaults filled in), so that its size can
// be estimated before it is built and then built from the same values.
struct SetUp {
  std::size_t pflow_target = 0;
  int lattice_m = 0;
  std::size_t random_n = 0;
  double random_box = 0;
  double dambreak_l0 = 0;
  int depth_layers = 0;
};

SetUp resolve_set_up(const AppOptions& o, const std::string& size);
ProblemSize problem_size(const AppOptions& o, const SetUp& s);
Problem make_problem(const AppOptions& o, const SetUp& s);

// Refuses a run that does not fit before anything is allocated (exit 3 with the estimate); `runs`
// are the (backend, strategy) pairs the run will make.
void require_memory(const AppOptions& o, const ProblemSize& size, const std::vector<std::pair<copa::Backend, Strategy>>& runs,
                    int device_ordinal, bool simulation);

std::unique_ptr<copa::RegionTimer> make_timer(copa::Backend b, copa::Profile& profile);
// The kernel options of a run; the simulation keeps FP64 (--precision fp32 is the density's).
KernelOptions kernel_options(const AppOptions& o, Strategy s, bool density);

// One run of one backend and strategy. `slabs` is null on one rank; on several, each rank runs its
// slab and rank 0 verifies the gathered result (the other ranks return exit_ok).
int run_density(const AppOptions& o, const copa::CommonOptions& common, Strategy s, copa::Backend b, const Problem& pr,
                const dist::Slabs* slabs, copa::Report& rep);
int run_simulation(const AppOptions& o, const copa::CommonOptions& common, Strategy s, copa::Backend b,
                   const Problem& pr, const dist::Slabs* slabs, copa::Report& rep);

}  // namespace mps::app
