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

std::vector<std::string> variants_of(copa::Backend b) {
  switch (b) {
    case copa::Backend::serial: return {"oracle"};
    case copa::Backend::openmp: return {"tiled"};
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

// CUDA: zmarch-col, the fastest measured at 256^3 and 512^3 on the H200 (results/h200/20261124-4:
// full step 1.31x and 1.34x zmarch's). HIP keeps zmarch: zmarch-col's 96 threads become 128 there
// (two 64-wide wavefronts, 56 of them column owners) and neither ran on an AMD GPU.
std::string default_variant(copa::Backend b) {
  if (b == copa::Backend::cuda) return "zmarch-col";
  if (copa::is_gpu(b)) return "zmarch";
  return variants_of(b).front();
}

bool split_applies(const OctMesh& m) {
  return m.nowned == m.noct && m.bc[0] == Boundary::periodic && m.bc[1] == Boundary::periodic &&
         m.bc[2] == Boundary::periodic;
}

bool variant_applies(copa::Backend b, const std::string& variant, const OctMesh& m) {
  if (!copa::is_gpu(b)) return true;
  if (variant.rfind("zmarch", 0) == 0) return m.dense && m.nowned == m.noct;
  if (variant.rfind("split", 0) == 0) return split_applies(m);
  if (variant == "subgrid6") return true;
  return m.whole_groups() && m.first_global % 8 == 0 && m.nowned % 8 == 0;
}

std::string default_variant(copa::Backend b, const OctMesh& m) {
  for (const std::string& v : {default_variant(b), std::string("balanced")})
    if (variant_applies(b, v, m)) return v;
  return copa::is_gpu(b) ? "subgrid6" : default_variant(b);
}

std::unique_ptr<HydroKernels> make_kernels(copa::Backend b, const SolverSetup& setup) {
  switch (b) {
    case copa::Backend::serial: return make_serial_kernels(setup);
#if defined(COPA_HAVE_OPENMP)
    case copa::Backend::openmp: return make_openmp_kernels(setup);
#endif
#if defined(COPA_HAVE_CUDA) || defined(COPA_HAVE_HIP)
    case copa::Backend::cuda:
    case copa::Backend::hip: return make_gpu_kernels(setup);
#endif
    default: break;
  }
  throw copa::InputError("--backend: " + copa::to_string(b) + " is not built");
}

}  // namespace ro
