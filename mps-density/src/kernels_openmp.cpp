// The OpenMP backend: the host loops of kernels_serial.cpp with work sharing (dynamic per bucket
// for bucket-thread, static per sorted particle otherwise) and, for the number density over
// contiguous bucket rows (sorted-particle, fine-rows; reorder on), a branch-free SIMD row loop.
#include <cmath>

#include "host_kernels.hpp"

namespace mps {
namespace {

class OpenmpKernels final : public HostKernels {
 public:
  explicit OpenmpKernels(const KernelOptions& o) : HostKernels(o, true) {}
  void number_density(double re) override;
};

void OpenmpKernels::number_density(double re) {
  double* out = fd(Field::n);
  const bool fine = opt_.strategy == Strategy::fine_rows;
  if (!((opt_.strategy == Strategy::sorted_particle || fine) && opt_.reorder)) {
    HostKernels::number_density(re);
    return;
  }
  // Sorted particles: contiguous row ranges (fine-rows: pruned rows of fine buckets), branch-free
  // SIMD body (the self pair has r2 = 0 and is masked like every pair outside r_e).
  const double* x = fd(Field::x);
  const double* y = fd(Field::y);
  const double* z = fd(Field::z);
  const double re2 = re * re, reach = reach_;
  const int* start = start_.data();
  const Grid g = grid_;
  const View v = view();
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n_; ++i) {
    if (!v.is_target(i)) continue;
    const double xi = x[i], yi = y[i], zi = z[i];
    double sum = 0;
    auto row = [&](int k0, int k1) {
#pragma omp simd reduction(+ : sum)
      for (int k = k0; k < k1; ++k) {
        const double dx = x[k] - xi, dy = y[k] - yi, dz = z[k] - zi;
        const double r2 = dx * dx + dy * dy + dz * dz;
        const bool in = r2 < re2 && r2 > 0;
        sum += in ? re / std::sqrt(in ? r2 : 1.0) - 1.0 : 0.0;
      }
    };
    if (fine) for_each_pruned_row(g, start, xi, yi, zi, reach, [&](int k0, int k1, int, int) { row(k0, k1); });
    else for_each_row_range(g, start, g.cx(xi), g.cy(yi), g.cz(zi), row);
    out[i] = sum;
  }
}

}  // namespace

std::unique_ptr<MpsKernels> make_openmp_kernels(const KernelOptions& o) { return std::make_unique<OpenmpKernels>(o); }

}  // namespace mps
