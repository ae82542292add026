#include "variants.hpp"

#include <algorithm>

#include "copa/errors.hpp"

namespace laghos {

namespace {
using copa::Backend;
using copa::DefaultFor;
using copa::Ranks;

const copa::TuningAxis kLayout{
    "layout", {"xy", "xyz"},
    "threads per element of the shared-memory kernels: Q1D^2 (xy, MFEM's 3D layout) or Q1D^3 (xyz, 3D only)"};
const copa::TuningAxis kMass{
    "mass", {"atomic", "gather"},
    "the CG's H1 mass action: FP64 atomics into the assembled vector, or an E-vector and a "
    "dof-parallel gather (bit-reproducible)"};
const copa::TuningAxis kLeanMass{
    "mass", {"zcol", "shared"},
    "the CG's H1 mass action (FP64 atomics either way): a thread per (x, y) point with its z column "
    "in registers (3D, Q_k/Q_{k-1}; elsewhere shared by default), or every contraction through "
    "shared memory (block's kernel)"};
const copa::TuningAxis kCgLoop{
    "cg", {"host", "graph"},
    "the one-rank H1 CG's loop: on the host (two waits per iteration for the dots), or on the device "
    "(a CUDA graph whose while node repeats an iteration; the host waits once per solve)"};
}  // namespace

// Defaults. CUDA on one rank runs `lean`, the fastest measured at every H200 case (RESULTS.md).
// CUDA over ranks and HIP run `block` (layout xy, atomic mass): the distributed GPU tests and
// measurements are of it, the lean kernels have not run over ranks or on an AMD GPU, and the lean
// Q4Q3 3D quadrature update needs 103 KB of shared memory, above AMD's 64 KB.
const copa::VariantRegistry& registry() {
  static const copa::VariantRegistry table(
      "laghos-like",
      {
          {"reference", {Backend::serial},
           "the oracle: element loops, host sum factorization, direct scatter-add",
           {}, {DefaultFor{Backend::serial, Ranks::any}}},
          {"element-parallel", {Backend::openmp},
           "the serial operators in parallel over elements, E-vector and dof-parallel gather",
           {}, {DefaultFor{Backend::openmp, Ranks::any}}},
          {"lean", {Backend::cuda, Backend::hip},
           "block with a register-lean quadrature update (gradients staged in shared memory, 64 "
           "registers) and 3D force kernels with a thread per (x, y) point and its z column in "
           "registers; CG mass by atomics",
           {kLayout, kLeanMass, kCgLoop}, {DefaultFor{Backend::cuda, Ranks::one}}},
          {"block", {Backend::cuda, Backend::hip},
           "kernels specialised at compile time on (dim, D1D, Q1D, L1D), several elements per "
           "block, every contraction through shared memory",
           {kLayout, kMass}, {DefaultFor{Backend::cuda, Ranks::many}, DefaultFor{Backend::hip, Ranks::any}}},
          {"generic", {Backend::cuda, Backend::hip},
           "run-time-size kernels, one element per block: what compile-time specialisation buys",
           {}, {}},
      });
  return table;
}

void apply_to_run(copa::Selection& s, const std::vector<std::string>& tunings, int dim, int order_k, int order_t) {
  if (s.name() != "lean" || !s.is("mass", "zcol")) return;
  // The z-column kernels are compiled for 3D and Laghos's pairs Q_k/Q_{k-1} (kernels_gpu.cu's
  // dispatch table; --order-k is at most 4 in 3D).
  std::string why;
  if (dim != 3)
    why = "the z-column H1 mass is 3D only (this run is " + std::to_string(dim) + "D)";
  else if (order_t != order_k - 1)
    why = "the z-column H1 mass runs Q_k/Q_{k-1} (--order-t = --order-k - 1), not Q" + std::to_string(order_k) +
          "Q" + std::to_string(order_t);
  if (why.empty()) return;
  const bool named = std::any_of(tunings.begin(), tunings.end(),
                                 [](const std::string& a) { return a.rfind("mass=", 0) == 0; });
  if (named) throw copa::InputError("--tuning mass=zcol: " + why);
  s.tunings["mass"] = "shared";  // the default where zcol has no kernel
}

std::string full_label(const copa::Selection& s) {
  std::string out = s.name();
  if (s.tunings.empty()) return out;
  std::string axes;
  for (const auto& a : s.variant->tunings) axes += (axes.empty() ? "" : ",") + a.name + "=" + s.tuning(a.name);
  return out + "[" + axes + "]";
}

}  // namespace laghos
