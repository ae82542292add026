#include "uniform/kernels.hpp"

#include "copa/errors.hpp"
#include "hydro/tile_geometry.hpp"

namespace ro {

namespace {

bool grouped(const OctMesh& m) { return m.whole_groups() && m.first_global % 8 == 0 && m.nowned % 8 == 0; }

// The fallback chain of the rule in variants.hpp.
std::string fallback_of(const std::string& v) {
  if (v == "zmarch-col" || v == "zmarch") return "balanced";
  if (v == "balanced") return "subgrid6";
  return "";
}

}  // namespace


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

std::string variant_needs(copa::Backend b, const std::string& v, const OctMesh& m) {
  if (!copa::is_gpu(b) || v == "subgrid6") return "";
  if (v.rfind("zmarch", 0) == 0)
    return m.dense && m.nowned == m.noct ? "" : "a power-of-two brick on one rank";
  return grouped(m) ? "" : "whole 2x2x2 oct groups (cells per axis a multiple of 4, rank boundaries on groups)";
}

copa::Selection default_selection(const copa::VariantRegistry& table, copa::Backend b, int nranks, const OctMesh& m,
                                  std::string* note, const std::vector<std::string>& tunings) {
  std::string name = table.default_for(b, nranks).name;
  if (note) note->clear();
  for (std::string needs = variant_needs(b, name, m); !needs.empty(); needs = variant_needs(b, name, m)) {
    const std::string next = fallback_of(name);
    if (next.empty()) throw std::logic_error("ramses-oct: no fallback for variant " + name);
    if (note) *note += (note->empty() ? "" : "; ") + name + " needs " + needs + ": " + next;
    name = next;
  }
  return table.select(b, nranks, name, tunings);
}

int zmarch_col_cap_run(int reg_cap, int threads) {
  if (reg_cap == 80 && threads <= zmarch_col7_threads) return 80;
  return threads <= zmarch_col_capped_threads ? 96 : 0;
}

std::optional<KernelFallback> zmarch_col_fallback(const std::string& from, int reg_cap, int threads) {
  const int cap = zmarch_col_cap_run(reg_cap, threads);
  if (cap == reg_cap) return std::nullopt;
  const int bound = reg_cap == 80 ? zmarch_col7_threads : zmarch_col_capped_threads;
  return KernelFallback{from,
                        cap == 96 ? "the reg-cap=96 kernel (__launch_bounds__(128, 5))"
                                  : "the uncapped kernel (no __launch_bounds__)",
                        std::to_string(threads) + " threads per block: reg-cap=" + std::to_string(reg_cap) +
                            "'s kernel holds at most " + std::to_string(bound)};
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
