#include "copa/errors.hpp"
#include "kernels.hpp"

namespace laghos {

double HydroKernels::cg_update(std::size_t n, double alpha, const double* d, double* x, double* r, double* z,
                               const double* dinv) {
  axpby(n, 1.0, x, alpha, d, x);
  axpby(n, 1.0, r, -alpha, z, r);
  if (!dinv) return dot(n, r, r);
  multiply(n, dinv, r, z);
  return dot(n, r, z);
}

double HydroKernels::mass_h1_ess_dot(int component, std::size_t n, const double* x, double* y) {
  mass_h1(x, y);
  zero_essential(component, y);
  return dot(n, x, y);
}

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
