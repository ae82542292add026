// OpenMP variant "tiled", written for CPUs: each thread owns an 8^3 tile buffer (2x2x2 octs + a
// one-oct ghost layer, 160 KB: it stays in the core's L2) and walks aligned 8-oct groups, which
// are 8 consecutive Morton ranks, so a thread's reads and writes are contiguous runs of 64 cells
// per field. The tile phases are SIMD loops over the contiguous x direction. The ghost overhead
// is (8/4)^3 = 8 gathered cells per updated cell against 27 for the oracle's 6^3 subgrids.
#include <omp.h>

#include <memory>
#include <vector>

#include "copa/timing.hpp"
#include "uniform/kernels_host.hpp"

namespace ro {
namespace {

class OpenmpKernels final : public HostKernels {
 public:
  explicit OpenmpKernels(const SolverSetup& s) : HostKernels(s) {
    tiles_.resize(omp_get_max_threads());
    for (auto& t : tiles_) t = std::make_unique<HostTile<2>>();
    // 8^3 tiles need whole aligned 2x2x2 groups in the owned range; otherwise (odd oct extents,
    // a rank boundary inside a group) every oct is its own 6^3 tile, as in the oracle.
    grouped_ = mesh_.whole_groups() && mesh_.first_global % 8 == 0 && mesh_.nowned % 8 == 0;
    if (!grouped_) {
      single_.resize(omp_get_max_threads());
      for (auto& t : single_) t = std::make_unique<HostTile<1>>();
    }
  }

  // First touch by the threads that will update the octs (static schedule, same partition).
  void load(const std::vector<double>& u) override {
    const std::int64_t n = static_cast<std::int64_t>(u.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      u_[i] = u[i];
      unew_[i] = 0;
    }
  }

  ScanResult scan() override {
    copa::Region r(*setup_.timer, "dt_reduction");
    const std::int64_t n = mesh_.nowned_cells(), stride = mesh_.ncell();
    double vmax = 0;
    std::int64_t bad = n;
    const double gamma = setup_.hydro.gamma;
    const double* u = u_.data();
#pragma omp parallel for simd schedule(static) reduction(max : vmax) reduction(min : bad)
    for (std::int64_t g = 0; g < n; ++g) {
      bool ok;
      const double speed = cell_speed(u, stride, g, gamma, ok);
      if (!ok) bad = g < bad ? g : bad;
      vmax = speed > vmax ? speed : vmax;
    }
    return {vmax, bad == n ? -1 : bad};
  }

  ScanResult advance(double dt) override {
    {
      copa::Region r(*setup_.timer, "hydro_update");
      const double dtdx = dt / mesh_.dx;
      if (grouped_) {
        const std::int64_t groups = mesh_.nowned / 8;
#pragma omp parallel
        {
          HostTile<2>& tile = *tiles_[omp_get_thread_num()];
#pragma omp for schedule(static)
          for (std::int64_t g = 0; g < groups; ++g)
            tile.advance(view_, setup_.hydro, u_.data(), unew_.data(), g * 8, dtdx);
        }
      } else {
#pragma omp parallel
        {
          HostTile<1>& tile = *single_[omp_get_thread_num()];
#pragma omp for schedule(static)
          for (std::int64_t o = 0; o < mesh_.nowned; ++o)
            tile.advance(view_, setup_.hydro, u_.data(), unew_.data(), o, dtdx);
        }
      }
      u_.swap(unew_);
    }
    return scan();
  }

 private:
  std::vector<std::unique_ptr<HostTile<2>>> tiles_;
  std::vector<std::unique_ptr<HostTile<1>>> single_;
  bool grouped_ = true;
};

}  // namespace

std::unique_ptr<HydroKernels> make_openmp_kernels(const SolverSetup& setup) {
  return std::make_unique<OpenmpKernels>(setup);
}

}  // namespace ro
