#include "variants.hpp"

#include "amr/amr_plan.hpp"
#include "copa/errors.hpp"

namespace ro {

namespace {

using copa::Backend;
using copa::DefaultFor;
using copa::Ranks;

const std::vector<Backend> gpu = {Backend::cuda, Backend::hip};

std::vector<copa::VariantInfo> uniform_rows() {
  return {
      {"oracle", {Backend::serial}, "one 6^3 subgrid (oct + ghost octs) at a time in Morton order: the reference", {},
       {{Backend::serial}}},
      {"tiled", {Backend::openmp},
       "CPU-shaped: each thread owns an 8^3 tile buffer (2x2x2 octs + ghosts, stays in L2) over aligned groups", {},
       {{Backend::openmp}}},
      {"zmarch-col", gpu,
       "z-march, one thread per (x, y) column for the whole march: 2 block syncs per cell plane instead of 3.5",
       {{"reg-cap", {"96", "80"},
         "registers per thread: 96 (__launch_bounds__(128, 5)), or 80 (__launch_bounds__(96, 7): 7 blocks of 96 "
         "threads per SM at the price of spills; blocks above 96 threads run the 96 cap)"}},
       {{Backend::cuda, Ranks::one}}},
      {"zmarch", gpu,
       "z-march, phase-parallel: a block marches a 4x2-oct patch along z, ring buffers of cell planes in shared memory "
       "(HIP default: zmarch-col's 96 threads become two 64-wide wavefronts there, not run on an AMD GPU)",
       {}, {{Backend::hip, Ranks::one}}},
      {"balanced", gpu,
       "the seed's 8^3 tile with the block matched to its phases: 256 threads, registers capped for 4 blocks per SM "
       "(several ranks: the z-march needs the whole brick)",
       {}, {{Backend::cuda, Ranks::many}, {Backend::hip, Ranks::many}}},
      {"subgrid8", gpu, "the seed's strategy: one block per 2x2x2-oct group + ghost octs, 8^3 cells in shared memory"},
      {"subgrid6", gpu, "one block per oct + ghost octs, 6^3 cells (RAMSES's godfine1 subgrid): runs on every mesh"},
      {"fused", gpu, "subgrid8 with the CFL reduction of the new state in the update's epilogue: one kernel per step"},
  };
}

std::vector<copa::VariantInfo> amr_rows() {
  std::vector<std::string> group_min = {std::to_string(amr::default_group_min)};
  for (int g = 1; g <= 8; ++g)
    if (g != amr::default_group_min) group_min.push_back(std::to_string(g));
  return {
      {"amr-oracle", {Backend::serial}, "AMR on the host, one oct at a time: the reference", {}, {{Backend::serial}}},
      {"amr-tiled", {Backend::openmp}, "AMR on the host, OpenMP loops over the step lists", {}, {{Backend::openmp}}},
      {"amr-gpu", gpu,
       "AMR step, regrid and dt on the device; leaf octs updated as 4^3 sibling-group units or single 6^3 octs",
       {{"group-min", group_min,
         "fewest leaf octs of a 2x2x2 sibling block updated as one 4^3 unit (8: complete blocks only)"}},
       {{Backend::cuda}, {Backend::hip}}},
  };
}

}  // namespace

const copa::VariantRegistry& registry() {
  static const copa::VariantRegistry r("ramses-oct", uniform_rows());
  return r;
}

const copa::VariantRegistry& amr_registry() {
  static const copa::VariantRegistry r("ramses-oct AMR (--levels > 0)", amr_rows());
  return r;
}

copa::Selection selection(copa::Backend b, const std::string& name) {
  const copa::VariantRegistry& r = registry().find(name) ? registry() : amr_registry();
  return r.select(b, 1, name);
}

}  // namespace ro
