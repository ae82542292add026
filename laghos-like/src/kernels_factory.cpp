#include "copa/errors.hpp"
#include "kernels.hpp"

namespace laghos {

std::vector<std::string> variants_of(copa::Backend backend) {
  switch (backend) {
    case copa::Backend::serial:
      return {"reference"};
    case copa::Backend::openmp:
      return {"element-parallel"};
    case copa::Backend::cuda:
    case copa::Backend::hip:
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
      return gpu_variants();
#else
      return {};
#endif
  }
  return {};
}

std::unique_ptr<HydroKernels> make_kernels(copa::Backend backend, const std::string& variant) {
  switch (backend) {
    case copa::Backend::serial:
      return make_serial_kernels();
    case copa::Backend::openmp:
#if defined(COPA_HAVE_OPENMP)
      return make_openmp_kernels();
#else
      break;
#endif
    case copa::Backend::cuda:
    case copa::Backend::hip:
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
      return make_gpu_kernels(variant);
#else
      break;
#endif
  }
  (void)variant;
  throw copa::InputError("--backend: " + copa::to_string(backend) + " is not built");
}

}  // namespace laghos
