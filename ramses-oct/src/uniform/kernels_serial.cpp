// The oracle: one 6^3 subgrid (an oct and its ghost layer) at a time, in Morton order, exactly
// as RAMSES's godfine1/umuscl walk the octs of a level; then a plain loop for the dt reduction.
#include <memory>

#include "copa/timing.hpp"
#include "uniform/kernels.hpp"
#include "hydro/tile_host.hpp"

namespace ro {
namespace {

class SerialKernels final : public HydroKernels {
 public:
  explicit SerialKernels(const SolverSetup& s)
      : setup_(s), mesh_(*s.mesh), view_(host_view(mesh_)), u_(mesh_.ncell() * nvar), unew_(u_.size()),
        tile_(std::make_unique<HostTile<1>>()) {}

  void load(const std::vector<double>& u) override { u_ = u; }
  void store(std::vector<double>& u) override { u = u_; }
  double* state() override { return u_.data(); }

  ScanResult scan() override {
    copa::Region r(*setup_.timer, "dt_reduction");
    ScanResult s;
    // The owned cells (the first nowned octs); fields are strided by every stored cell.
    const std::int64_t n = mesh_.nowned_cells(), stride = mesh_.ncell();
    for (std::int64_t g = 0; g < n; ++g) {
      double uc[nvar];
      for (int f = 0; f < nvar; ++f) uc[f] = u_[f * stride + g];
      bool ok;
      const double speed = cell_signal_speed(uc, setup_.hydro.gamma, ok);
      if (!ok && s.bad_cell < 0) s.bad_cell = g;
      if (speed > s.max_speed) s.max_speed = speed;
    }
    return s;
  }

  ScanResult advance(double dt) override {
    {
      copa::Region r(*setup_.timer, "hydro_update");
      const double dtdx = dt / mesh_.dx;
      for (std::int64_t o = 0; o < mesh_.nowned; ++o)
        tile_->advance(view_, setup_.hydro, u_.data(), unew_.data(), o, dtdx);
      u_.swap(unew_);
    }
    return scan();
  }

  std::vector<std::pair<std::string, copa::KernelCost>> kernel_costs() const override {
    return {{"hydro_update", update_cost(mesh_)}, {"dt_reduction", scan_cost(mesh_)}};
  }

 private:
  SolverSetup setup_;
  const OctMesh& mesh_;
  MeshView view_;
  std::vector<double> u_, unew_;
  std::unique_ptr<HostTile<1>> tile_;
};

}  // namespace

std::unique_ptr<HydroKernels> make_serial_kernels(const SolverSetup& setup) {
  return std::make_unique<SerialKernels>(setup);
}

}  // namespace ro
