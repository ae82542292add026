// The device-resident AMR step (CUDA and HIP from one source, amr_gpu.cu): the state and the
// step plan (amr_plan.hpp) live on the device between regrids; a step is the leaf scan, then one
// kernel for the ghost slots, ONE launch that updates every leaf oct of every level, the reflux
// gather, and one restriction launch per level. The regrid runs on the host: the state is copied
// down before and up after it (README "AMR": regrid on host, not yet GPU-resident).
#pragma once
#include <memory>
#include <vector>

#include "amr_plan.hpp"
#include "amr_solver.hpp"
#include "amr_tree.hpp"

namespace ro::amr {

class DeviceStep {
 public:
  virtual ~DeviceStep() = default;
  // Copies the tree's tables, the plan and the state to the device (after every regrid); exit 3
  // (RuntimeError) with the estimate when device memory does not hold them.
  virtual void upload(const Tree& t, const StepPlan& plan, const StepLists& lists, const std::vector<double>& u) = 0;
  virtual void download(std::vector<double>& u) = 0;
  virtual LeafScan scan() = 0;
  virtual void advance(double dt) = 0;  // returns after the device finished the step
};

#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
std::unique_ptr<DeviceStep> make_gpu_amr_step(const HydroParams& hp, bool reflux);
#endif

}  // namespace ro::amr
