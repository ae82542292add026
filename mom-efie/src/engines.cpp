// Backend dispatch: formulations, memory estimates and the engine factory (the variants are in
// variants.cpp).
#include <algorithm>
#include <cstdio>

#include "copa/errors.hpp"
#include "copa/gpu_model.hpp"
#include "kernels.hpp"
#include "variants.hpp"

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
  if ((name == "pmchwt" || name == "muller") && eps_r == 1.0 && mu_r == 1.0)
    throw copa::InputError("--formulation " + name + " with --eps-r 1 and --mu-r 1: the body is free space and scatters nothing (give --eps-r or --mu-r)");
  Formulation f;
  f.name = name;
  f.alpha = name == "efie" ? 1.0 : (name == "mfie" ? 0.0 : cfie_alpha);
  f.eps_r = eps_r;
  f.mu_r = mu_r;
  return f;
}

// Host bytes of one problem per triangle, generously: mesh (36 B), Triangle (144), RWG (36),
// near list (about 60 pairs of 8 B near the diagonal of a fine mesh), QuadTriangle and the
// OpenMP source SoA (376 + 288), the RCS source points and moments (7 x 72), the right-hand side.
constexpr double host_bytes_per_triangle = 2048;

double engine_bytes(copa::Backend b, const copa::Selection& variant, long n, long triangles) {
  const double matrix = 16.0 * double(n) * double(n);
  // + per-thread rows (3 N complex) and far-block arrays (18 N_T doubles), up to 64 threads; pivots
  if (!copa::is_gpu(b)) return matrix + (48.0 * double(n) + 144.0 * double(triangles)) * 64 + 4.0 * double(n);
#if COPA_GPU
  return matrix + gpu_workspace_bytes(gpu_fill_of(variant), n, triangles);
#else
  (void)variant;
  (void)triangles;
  return matrix;
#endif
}

void require_memory(copa::Backend b, const copa::Selection& variant, double n, double triangles) {
  char what[160];
  std::snprintf(what, sizeof what, "the %.4g-unknown EFIE problem (%.4g triangles, matrix %s)", n, triangles,
                copa::format_bytes(16 * n * n).c_str());
  // LAPACKE and cuSOLVER's zgetrf take 32-bit dimensions; a matrix past that is refused too.
  if (n > 2147483647.0)
    throw copa::RuntimeError(std::string(what) + ": N exceeds the 32-bit dimension of the LU routines");
  double host = host_bytes_per_triangle * triangles;
  if (!copa::is_gpu(b)) host += engine_bytes(b, variant, long(n), long(triangles));
  copa::require_host_memory(std::size_t(std::min(host, 1e19)), std::string(what) + " on the host");
#if COPA_GPU
  if (copa::is_gpu(b)) gpu_require_memory(gpu_fill_of(variant), variant.label(), long(n), long(triangles));
#endif
}

std::unique_ptr<Engine> make_engine(copa::Backend b, const copa::Selection& variant, long n, long triangles) {
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
#if COPA_GPU
      return make_gpu_engine(gpu_fill_of(variant), variant.label(), n, triangles);
#else
      break;
#endif
  }
  (void)variant;
  (void)triangles;
  throw copa::InputError("--backend " + copa::to_string(b) + " is not built");
}

}  // namespace efie
