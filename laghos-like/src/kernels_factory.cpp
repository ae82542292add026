#include "copa/errors.hpp"
#include "copa/mpi.hpp"
#include "kernels.hpp"

namespace laghos {

double HydroKernels::cg_update(std::size_t n, double alpha, const double* d, double* x, double* r, double* z,
                               const double* dinv, const double* w) {
  axpby(n, 1.0, x, alpha, d, x);
  axpby(n, 1.0, r, -alpha, z, r);
  const double* s = r;
  if (dinv) {
    multiply(n, dinv, r, z);
    s = z;
  }
  return w ? dot_weighted(n, r, s, w) : dot(n, r, s);
}

double HydroKernels::ess_dot(int component, std::size_t n, const double* x, double* y, const double* w) {
  zero_essential(component, y);
  return w ? dot_weighted(n, x, y, w) : dot(n, x, y);
}

double HydroKernels::mass_h1_ess_dot(int component, std::size_t n, const double* x, double* y) {
  mass_h1(x, y);
  return ess_dot(component, n, x, y, nullptr);
}

std::unique_ptr<HydroKernels> make_kernels(copa::Backend backend, const copa::Selection& selection) {
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
#if COPA_GPU
    {
      GpuChoice c;
      c.fixed = selection.name() != "generic";
      c.lean = selection.name() == "lean";
      c.xyz = c.fixed && selection.is("layout", "xyz");
      c.atomic = c.lean || (selection.name() == "block" && selection.is("mass", "atomic"));
      c.zcol_mass = c.lean && selection.is("mass", "zcol");
      c.cg_graph = c.lean && selection.is("cg", "graph");
      c.many_ranks = copa::mpi::size() > 1;
      return make_gpu_kernels(c);
    }
#else
      break;
#endif
  }
  (void)selection;
  throw copa::InputError("--backend: " + copa::to_string(backend) + " is not built");
}

}  // namespace laghos
