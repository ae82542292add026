// Runs one backend/variant over a problem: the time loop (CFL dt from the device reduction,
// clipped to --tend), the positivity stop (exit 3), and the timing profile of every step.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "copa/backend.hpp"
#include "copa/timing.hpp"
#include "uniform/kernels.hpp"
#include "hydro/mesh.hpp"
#include "hydro/problems.hpp"
#include "hydro/run_config.hpp"

namespace ro {

// The communication of a distributed step (dist.hpp): the ghost layer filled before every update
// and the dt reduction made global. Absent on one rank.
class StepComm {
 public:
  virtual ~StepComm() = default;
  // Fills the ghost octs of the kernels' current state from their owners.
  virtual void fill_ghosts(HydroKernels& k) = 0;
  // Global largest speed, and the lowest global index of a bad cell over all ranks (-1: none);
  // `local.bad_cell` is already a global index. Same bits on every rank.
  virtual ScanResult combine(const ScanResult& local) = 0;
  // A rank without the bad cell waits here for the owner's report (MPI_Abort ends both).
  [[noreturn]] virtual void wait_for_failure(long step, double t, std::int64_t global_cell) = 0;
  // Bytes this rank sends to and receives from other ranks per exchange (the halo row's GB/s).
  virtual copa::KernelCost halo_cost() const = 0;
};


struct RunResult {
  std::vector<double> u;       // final state (the stored octs: owned, then ghosts)
  double t = 0;
  long steps = 0;              // steps of one repetition
  long timed_steps = 0;        // steps of all repetitions (samples of the "step" row)
  copa::Profile profile;
  std::vector<std::pair<std::string, copa::KernelCost>> costs;
  std::vector<KernelFallback> fallbacks;  // kernels that ran in place of the selection's
};

RunResult run_backend(copa::Backend backend, const copa::Selection& variant, const OctMesh& mesh,
                      const std::vector<double>& u0, const RunConfig& cfg);

}  // namespace ro
