// What a run is asked to do, shared by the uniform and the AMR drivers: the problem, the scheme's
// parameters, the time span and the timing (warm-up, repetitions); the uniform run adds its block
// size, host residence, halo exchange and per-step hook.
#pragma once
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "copa/stats.hpp"
#include "copa/timing.hpp"
#include "hydro/hydro_math.hpp"
#include "hydro/problems.hpp"

namespace ro {

class HydroKernels;  // uniform/kernels.hpp
class StepComm;      // uniform/driver.hpp

// Appended to the positivity stop's message. MUSCL-Hancock with limited slopes is not
// positivity-preserving: measured, Sedov 64^3 with --slope mc goes negative at Courant 0.7 and 0.8
// and stays physical at 0.5 and 0.6.
inline constexpr char non_physical_hint[] =
    "; the scheme does not preserve positivity: a smaller --courant (e.g. 0.5) or --slope minmod may keep "
    "the state physical";

struct RunConfig {
  ProblemParams problem;
  HydroParams hydro;
  double courant = 0.8;
  double tend = 0;
  long max_steps = 1000000;
  int warmup = 1;              // steps left out of the timing statistics (of the first repetition)
  int reps = 1;                // --reps: repetitions of the whole timed run from the initial state
  int block_size = 0;
  bool host_resident = false;
  StepComm* comm = nullptr;    // distributed run: halo and global reductions (rows halo_exchange, allreduce)
  // Called after the initial state is loaded (step 0) and after every step, outside the timed
  // regions, with the repetition, step and time (output and progress; may be empty).
  std::function<void(int rep, long step, double t, HydroKernels& k)> after_step;
};

// Statistics of a region leaving out the first `skip` samples (warm-up), keeping at least one.
inline copa::Stats region_stats(const copa::Profile& p, const std::string& name, int skip) {
  std::vector<double> s = p.samples(name);
  const int drop = std::min<int>(skip, static_cast<int>(s.size()) - 1);
  if (drop > 0) s.erase(s.begin(), s.begin() + drop);
  return copa::summarize(s);
}

}  // namespace ro
