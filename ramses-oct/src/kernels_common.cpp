#include "kernels.hpp"

#include "copa/errors.hpp"
#include "tile_geometry.hpp"

namespace ro {

MeshView host_view(const OctMesh& m) {
  MeshView v;
  v.noct = m.noct;
  for (int a = 0; a < 3; ++a) {
    v.octs[a] = m.octs[a];
    v.bc[a] = static_cast<int>(m.bc[a]);
    v.coord[a] = m.coord[a].data();
  }
  for (int f = 0; f < 6; ++f) v.nbor[f] = m.nbor[f].data();
  return v;
}

// Per call of this rank: its owned cells (all cells on one rank).
copa::KernelCost update_cost(const OctMesh& m) {
  const double cells = double(m.nowned_cells());
  return {flops_per_cell_update * cells, cells * nvar * 8.0 + m.nowned * 6.0 * 4, cells * nvar * 8.0};
}

copa::KernelCost scan_cost(const OctMesh& m) {
  const double cells = double(m.nowned_cells());
  return {flops_per_cell_scan * cells, cells * nvar * 8.0, 0};
}

copa::KernelCost transfer_cost(const OctMesh& m, bool to_device) {
  const double bytes = double(m.ncell()) * nvar * 8.0;
  return {0, to_device ? bytes : 0, to_device ? 0 : bytes};
}

std::unique_ptr<HydroKernels> make_kernels(copa::Backend b, const SolverSetup& setup) {
  switch (b) {
    case copa::Backend::serial: return make_serial_kernels(setup);
#if defined(COPA_HAVE_OPENMP)
    case copa::Backend::openmp: return make_openmp_kernels(setup);
#endif
#if COPA_GPU
    case copa::Backend::cuda:
    case copa::Backend::hip: return make_gpu_kernels(setup);
#endif
    default: break;
  }
  throw copa::InputError("--backend: " + copa::to_string(b) + " is not built");
}

}  // namespace ro
