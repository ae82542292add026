// The kernel family of ramses-oct: one full hydro step (MUSCL-Hancock update of every oct, then
// the CFL reduction sum_i(|u_i| + c_s) over the new state with the positivity check). One
// abstract class; one factory per backend; variants side by side in kernels_<backend>.*.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "copa/backend.hpp"
#include "copa/gpu_model.hpp"
#include "copa/roofline.hpp"
#include "copa/timing.hpp"
#include "copa/variants.hpp"
#include "hydro/hydro_math.hpp"
#include "hydro/mesh.hpp"
#include "hydro/tile_geometry.hpp"

namespace ro {

// Result of the dt reduction: the largest signal speed and the first cell (global index
// oct*8 + cell) whose density or pressure is not positive and finite, -1 when none.
struct ScanResult {
  double max_speed = 0;
  std::int64_t bad_cell = -1;
};

struct SolverSetup {
  const OctMesh* mesh = nullptr;
  HydroParams hydro;
  copa::Selection variant;    // a row of registry() with its tunings
  int block_size = 0;          // GPU threads per block (0 = the variant's default)
  bool host_resident = false;  // GPU: copy the grid in and out every step (the seed's way)
  copa::RegionTimer* timer = nullptr;
};

// A kernel that ran in place of the one the selection names (run.fallbacks, kind "kernel").
struct KernelFallback {
  std::string from, to, reason;
};

class HydroKernels {
 public:
  virtual ~HydroKernels() = default;
  // Moves a state [field][oct][8] (5 * 8 * noct doubles) onto the backend and back.
  virtual void load(const std::vector<double>& u) = 0;
  virtual void store(std::vector<double>& u) = 0;
  // The current state where the kernels keep it (device memory for GPU backends): the field the
  // halo exchange fills in a distributed run. Valid until the next advance().
  virtual double* state() = 0;
  // Waits for the backend's queued work (GPU stream); nothing on the host backends.
  virtual void synchronize() {}
  // dt reduction of the current state.
  virtual ScanResult scan() = 0;
  // One full step: update with dt, then the reduction of the new state (fused or separate).
  virtual ScanResult advance(double dt) = 0;
  // Names of the timed regions of one step with their analytic cost per call.
  virtual std::vector<std::pair<std::string, copa::KernelCost>> kernel_costs() const = 0;
  // The kernels that ran in place of the selection's (none on the host backends).
  virtual std::vector<KernelFallback> fallbacks() const { return {}; }
};

// zmarch-col's register caps (kernels_gpu.cu): tuning reg-cap=80 is __launch_bounds__(96, 7),
// reg-cap=96 __launch_bounds__(128, 5). A block larger than its cap's bound runs the next cap that
// holds it, above 128 threads the uncapped kernel.
inline constexpr int zmarch_col7_threads = 96;
inline constexpr int zmarch_col_capped_threads = 128;
// The cap (80, 96, or 0 for the uncapped kernel) that a launch of `threads` per block runs under
// tuning reg-cap `reg_cap`.
int zmarch_col_cap_run(int reg_cap, int threads);
// The fallback such a launch makes (selection label `from`), none where the tuning's kernel runs.
std::optional<KernelFallback> zmarch_col_fallback(const std::string& from, int reg_cap, int threads);

// What a uniform GPU variant needs of the mesh, empty when it runs there. The tiles of 2x2x2 octs
// need whole aligned groups in the owned range; the z-march variants a power-of-two brick on one
// rank; subgrid6 runs everywhere. Host variants run on every mesh.
std::string variant_needs(copa::Backend b, const std::string& variant, const OctMesh& m);
inline bool variant_applies(copa::Backend b, const std::string& variant, const OctMesh& m) {
  return variant_needs(b, variant, m).empty();
}

// The variant a uniform run takes without --variant. The fallback rule: the table's default for
// the backend and rank count (variants.cpp); when that does not run on the mesh, the next variant of the chain
// zmarch-col | zmarch -> balanced -> subgrid6 that does (subgrid6 runs on every mesh). `note` (when
// given) receives "<default> needs <what>: <taken>" for each step down the chain, empty when none.
// `tunings` (--tuning AXIS=VALUE) apply to the variant taken.
copa::Selection default_selection(const copa::VariantRegistry& table, copa::Backend b, int nranks, const OctMesh& m,
                                  std::string* note = nullptr, const std::vector<std::string>& tunings = {});

std::unique_ptr<HydroKernels> make_kernels(copa::Backend b, const SolverSetup& setup);

std::unique_ptr<HydroKernels> make_serial_kernels(const SolverSetup& setup);
#if defined(COPA_HAVE_OPENMP)
std::unique_ptr<HydroKernels> make_openmp_kernels(const SolverSetup& setup);
#endif
#if COPA_GPU
std::unique_ptr<HydroKernels> make_gpu_kernels(const SolverSetup& setup);
#endif

// MeshView of the host tables.
MeshView host_view(const OctMesh& m);

// Analytic costs (README, FLOP/byte model): a full update reads and writes each cell's five
// conserved doubles once and the neighbour table once per tile; the reduction reads the state.
copa::KernelCost update_cost(const OctMesh& m);
copa::KernelCost scan_cost(const OctMesh& m);
copa::KernelCost transfer_cost(const OctMesh& m, bool to_device);

}  // namespace ro
