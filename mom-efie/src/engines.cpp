// Backend dispatch: variant lists, memory estimates and the engine factory.
#include "copa/errors.hpp"
#include "kernels.hpp"

namespace efie {

std::vector<std::string> variants(copa::Backend b) {
  switch (b) {
    case copa::Backend::serial: return {"pairs"};
    case copa::Backend::openmp: return {"triangle-rows"};
    case copa::Backend::cuda:
    case copa::Backend::hip: return {"triangle-pair", "basis-pair", "block", "blas"};
  }
  return {};
}

double engine_bytes(copa::Backend b, const std::string& variant, long n, long triangles) {
  const double matrix = 16.0 * double(n) * double(n);
  if (!copa::is_gpu(b)) return matrix + 48.0 * double(n) * 64;  // + per-thread rows (up to 64 threads)
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
  return matrix + gpu_workspace_bytes(variant, n, triangles);
#else
  (void)variant;
  (void)triangles;
  return matrix;
#endif
}

std::unique_ptr<Engine> make_engine(copa::Backend b, const std::string& variant, long n, long triangles) {
  switch (b) {
    case copa::Backend::serial: return make_serial_engine(n);
    case copa::Backend::openmp:
#if defined(COPA_HAVE_OPENMP)
      return make_openmp_engine(n);
#else
      break;
#endif
    case copa::Backend::cuda:
    case copa::Backend::hip:
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
      return make_gpu_engine(variant, n, triangles);
#else
      break;
#endif
  }
  (void)variant;
  (void)triangles;
  throw copa::InputError("--backend " + copa::to_string(b) + " is not built");
}

}  // namespace efie
