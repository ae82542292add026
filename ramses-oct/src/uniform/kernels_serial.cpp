// The oracle: one 6^3 subgrid (an oct and its ghost layer) at a time, in Morton order, exactly
// as RAMSES's godfine1/umuscl walk the octs of a level; then a plain loop for the dt reduction.
#include <memory>

#include "copa/timing.hpp"
#include "uniform/kernels_host.hpp"

namespace ro {
namespace {

class SerialKernels final : public HostKernels {
 public:
  explicit SerialKernels(const SolverSetup& s) : HostKernels(s), tile_(std::make_unique<HostTile<1>>()) {}

  void load(const std::vector<double>& u) override { u_ = u; }

  ScanResult scan() override {
    copa::Region r(*setup_.timer, "dt_reduction");
    ScanResult s;
    // The owned cells (the first nowned octs); fields are strided by every stored cell.
    const std::int64_t n = mesh_.nowned_cells(), stride = mesh_.ncell();
    for (std::int64_t g = 0; g < n; ++g) {
      bool ok;
      const double speed = cell_speed(u_.data(), stride, g, setup_.hydro.gamma, ok);
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

 private:
  std::unique_ptr<HostTile<1>> tile_;
};

}  // namespace

std::unique_ptr<HydroKernels> make_serial_kernels(const SolverSetup& setup) {
  return std::make_unique<SerialKernels>(setup);
}

}  // namespace ro
