// What the host backends (serial oracle, OpenMP "tiled") share: the state and its update buffer in
// host memory, the mesh view the tiles gather through, the cost rows of a step, and the per-cell
// body of the dt reduction.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "uniform/kernels.hpp"
#include "hydro/tile_host.hpp"

namespace ro {

class HostKernels : public HydroKernels {
 public:
  explicit HostKernels(const SolverSetup& s)
      : setup_(s), mesh_(*s.mesh), view_(host_view(mesh_)), u_(mesh_.ncell() * nvar), unew_(u_.size()) {}

  void store(std::vector<double>& u) override { u = u_; }
  double* state() override { return u_.data(); }

  std::vector<std::pair<std::string, copa::KernelCost>> kernel_costs() const override {
    return {{"hydro_update", update_cost(mesh_)}, {"dt_reduction", scan_cost(mesh_)}};
  }

 protected:
  // The CFL signal speed of stored cell g (cell_signal_speed) of state u (fields strided by stride); ok is false
  // where the cell is not physical.
  static double cell_speed(const double* u, std::int64_t stride, std::int64_t g, double gamma, bool& ok) {
    double uc[nvar];
    for (int f = 0; f < nvar; ++f) uc[f] = u[f * stride + g];
    return cell_signal_speed(uc, gamma, ok);
  }

  SolverSetup setup_;
  const OctMesh& mesh_;
  MeshView view_;
  std::vector<double> u_, unew_;
};

}  // namespace ro
