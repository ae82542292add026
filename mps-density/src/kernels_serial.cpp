// The serial oracle: the host loops of host_kernels.hpp without threads (brute force included).
#include "host_kernels.hpp"

namespace mps {

std::unique_ptr<MpsKernels> make_serial_kernels(const KernelOptions& o) { return std::make_unique<HostKernels>(o, false); }

}  // namespace mps
