// The OpenMP backend: the host loops with work sharing (dynamic per bucket for bucket-thread,
// static per sorted particle otherwise) and a SIMD number density over contiguous bucket rows.
#include "host_kernels.hpp"

namespace mps {

std::unique_ptr<MpsKernels> make_openmp_kernels(const KernelOptions& o) { return std::make_unique<HostKernels>(o, true); }

}  // namespace mps
