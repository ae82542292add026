// What the engine tests share: the test sphere, one fill of an engine, one solve, the relative
// Frobenius distance of two matrices, and the GPU backend of the build.
#pragma once
#include <cmath>
#include <complex>
#include <vector>

#include "copa/backend.hpp"
#include "kernels.hpp"
#include "variants.hpp"

namespace efie_test {

using efie::complex;

// The geodesic sphere of radius 1 and frequency f (20 f^2 triangles) at ka.
inline efie::Problem sphere(double ka, int frequency) {
  return efie::make_problem(efie::make_sphere(1.0, frequency), ka, 1.0, efie::PlaneWave{});
}

// The matrix one fill of `variant` on backend b builds (n_matrix: 2N for the dielectric formulations).
inline std::vector<complex> fill_matrix(copa::Backend b, const copa::Selection& variant, const efie::Problem& p,
                                        const efie::Formulation& f = {}, long n_matrix = 0) {
  auto e = efie::make_engine(b, variant, n_matrix > 0 ? n_matrix : p.unknowns(), p.triangle_count());
  e->set_formulation(f);
  e->upload(p);
  copa::Profile prof;
  auto t = e->make_timer(prof);
  e->fill(*t);
  t->flush();
  return e->matrix();
}

// The backend's default variant.
inline std::vector<complex> fill_matrix(copa::Backend b, const efie::Problem& p, const efie::Formulation& f = {}, long n_matrix = 0) {
  return fill_matrix(b, efie::default_selection(b), p, f, n_matrix);
}

// x of A x = rhs after one fill, LU and solve of the backend's default variant; setup(engine) sets
// its options (formulation, LU routine) before the upload.
template <class Setup>
std::vector<complex> solve_default(copa::Backend b, const efie::Problem& p, std::vector<complex> rhs, Setup setup) {
  auto e = efie::make_engine(b, efie::default_selection(b), p.unknowns(), p.triangle_count());
  setup(*e);
  e->upload(p);
  copa::Profile prof;
  auto t = e->make_timer(prof);
  e->fill(*t);
  e->factor(*t);
  e->solve(rhs, *t);
  t->flush();
  return rhs;
}

// ||a - b||_F / ||b||_F.
inline double rel_frobenius(const std::vector<complex>& a, const std::vector<complex>& b) {
  double d = 0, s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d += std::norm(a[i] - b[i]);
    s += std::norm(b[i]);
  }
  return std::sqrt(d / s);
}

inline copa::Backend gpu_backend() {
#if defined(COPA_HAVE_CUDA)
  return copa::Backend::cuda;
#else
  return copa::Backend::hip;
#endif
}

}  // namespace efie_test
