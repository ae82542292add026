// Backend dispatch: variant lists, memory estimates and the engine factory.
#include <algorithm>
#include <cstdio>

#include "copa/errors.hpp"
#include "kernels.hpp"

namespace efie {

std::vector<std::string> formulations_implemented() { return {"efie", "mfie", "cfie", "pmchwt", "muller"}; }

Formulation make_formulation(const std::string& name, double cfie_alpha, std::complex<double> eps_r, std::complex<double> mu_r) {
  const auto known = formulations_implemented();
  if (std::find(known.begin(), known.end(), name) == known.end())
    throw copa::InputError("--formulation '" + name + "': expected efie, mfie, cfie, pmchwt or muller");
  if (!(cfie_alpha > 0 && cfie_alpha < 1))
    throw copa::InputError("--cfie-alpha must lie strictly between 0 (MFIE) and 1 (EFIE)");
  // exp(+j w t): a passive material has eps_r = eps' - j eps'' with eps'' >= 0 (likewise mu_r).
  if (!(eps_r.real() > 0) || eps_r.imag() > 0)
    throw copa::InputError("--eps-r must have a positive real part and an imaginary part <= 0 (eps' - j eps'', a lossy or lossless material)");
  if (!(mu_r.real() > 0) || mu_r.imag() > 0)
    throw copa::InputError("--mu-r must have a positive real part and an imaginary part <= 0 (mu' - j mu'')");
  Formulation f;
  f.name = name;
  f.alpha = name == "efie" ? 1.0 : (name == "mfie" ? 0.0 : cfie_alpha);
  f.eps_r = eps_r;
  f.mu_r = mu_r;
  return f;
}

std::vector<std::string> variants(copa::Backend b) {
  switch (b) {
    case copa::Backend::serial: return {"pairs"};
    case copa::Backend::openmp: return {"triangle-rows"};
    // CUDA: triangle-pair-upper-lanes, the fastest fill measured on the H200 (issue 18: 7.07e9
    // triangle pairs/s at N = 30,720 against triangle-pair's 5.18e9). HIP keeps triangle-pair: no
    // variant has run on AMD, and the upper variants' 54 KB of shared memory per block leaves one
    // block of 2 wavefronts per CU on gfx90a (64 KB LDS).
    case copa::Backend::cuda: return {"triangle-pair-upper-lanes", "triangle-pair", "triangle-pair-upper-merge", "triangle-pair-upper",
                                      "triangle-pair-sym", "basis-pair", "block", "blas"};
    case copa::Backend::hip: return {"triangle-pair", "basis-pair", "block", "blas", "triangle-pair-sym", "triangle-pair-upper",
                                     "triangle-pair-upper-merge", "triangle-pair-upper-lanes"};
  }
  return {};
}

// Host bytes of one problem per triangle, generously: mesh (36 B), Triangle (144), RWG (36),
// near list (about 60 pairs of 8 B near the diagonal of a fine mesh), QuadTriangle and the
// OpenMP source SoA (376 + 288), the RCS source points and moments (7 x 72), the right-hand side.
constexpr double host_bytes_per_triangle = 2048;

double engine_bytes(copa::Backend b, const std::string& variant, long n, long triangles) {
  const double matrix = 16.0 * double(n) * double(n);
  // + per-thread rows (3 N complex) and far-block arrays (18 N_T doubles), up to 64 threads; pivots
  if (!copa::is_gpu(b)) return matrix + (48.0 * double(n) + 144.0 * double(triangles)) * 64 + 4.0 * double(n);
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
  return matrix + gpu_workspace_bytes(variant, n, triangles);
#else
  (void)variant;
  (void)triangles;
  return matrix;
#endif
}

void require_memory(copa::Backend b, const std::string& variant, double n, double triangles) {
  char what[160];
  std::snprintf(what, sizeof what, "the %.4g-unknown EFIE problem (%.4g triangles, matrix %s)", n, triangles,
                copa::format_bytes(16 * n * n).c_str());
  // LAPACKE and cuSOLVER's zgetrf take 32-bit dimensions; a matrix past that is refused too.
  if (n > 2147483647.0)
    throw copa::RuntimeError(std::string(what) + ": N exceeds the 32-bit dimension of the LU routines");
  double host = host_bytes_per_triangle * triangles;
  if (!copa::is_gpu(b)) host += engine_bytes(b, variant, long(n), long(triangles));
  copa::require_host_memory(std::size_t(std::min(host, 1e19)), std::string(what) + " on the host");
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
  if (copa::is_gpu(b)) gpu_require_memory(variant, long(n), long(triangles));
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
