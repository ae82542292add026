// The variant table of mom-efie. A variant is a fill strategy; the LU routine (--lu) and the solver
// (--solver) are options of the solve phase, the same for every fill, and are not in this table.
#include "variants.hpp"

#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "kernels.hpp"

namespace efie {

using copa::Backend;
using copa::DefaultFor;
using copa::Ranks;

const copa::VariantRegistry& registry() {
  static const copa::VariantRegistry table(
      "mom-efie",
      {
          {"pairs",
           {Backend::serial},
           "the oracle: every triangle pair by the plain pair formula, near pairs by singularity extraction",
           {},
           {{Backend::serial, Ranks::one}}},
          {"triangle-rows",
           {Backend::openmp},
           "threads own test triangles; one omp simd loop over all sources (centroid-local far formula, cpu_sincos)",
           {},
           {{Backend::openmp, Ranks::one}}},
          // The CUDA default: the fastest fill measured on the H200 (RESULTS.md). Not the HIP
          // default: it has never run on an AMD GPU, and its 54 KB of shared memory per block
          // leaves one block (2 wavefronts) per CU of gfx90a's 64 KB LDS.
          {"triangle-pair-upper",
           {Backend::cuda, Backend::hip},
           "one pass over unordered pairs s >= t: both directions from one set of moments, (P + P^T)/2 written "
           "directly (no symmetrise pass)",
           {{"merge",
             {"lanes", "source"},
             "atomics of shared edges merged: lanes = the source column carried in registers and the next lane's "
             "row handed over by a shuffle; source = the carried column only"}},
           {{Backend::cuda, Ranks::one}}},
          // The HIP default: the seed's strategy, no large shared-memory footprint.
          {"triangle-pair",
           {Backend::cuda, Backend::hip},
           "the seed's fill: a thread per test triangle x 16 sources, each ordered pair's 3x3 block scattered with "
           "FP64 atomics, then a symmetrise pass",
           {},
           {{Backend::hip, Ranks::one}}},
          {"block",
           {Backend::cuda, Backend::hip},
           "gather, no global atomics: 32 x 32 bases per block, the tile's triangles deduplicated in shared "
           "memory, each entry stored once (2.5x the pair evaluations)"},
          {"blas",
           {Backend::cuda},
           "vendor library: kernel values per chunk of test triangles contracted with the source RWG factors by "
           "cuBLAS strided-batched ZGEMM, then scattered"},
          {distributed_variant,
           {Backend::serial, Backend::openmp, Backend::cuda, Backend::hip},
           "more than one MPI rank: each rank fills its block-cyclic block, one thread per owned pair (the GPU "
           "path needs a CUDA + MPI build)",
           {},
           {{Backend::serial, Ranks::many},
            {Backend::openmp, Ranks::many},
            {Backend::cuda, Ranks::many},
            {Backend::hip, Ranks::many}}},
      });
  return table;
}

GpuFill gpu_fill_of(const copa::Selection& s) {
  const std::string& v = s.name();
  if (v == "triangle-pair") return GpuFill::triangle_pair;
  if (v == "triangle-pair-upper") return s.is("merge", "lanes") ? GpuFill::upper_lanes : GpuFill::upper_source;
  if (v == "block") return GpuFill::block;
  if (v == "blas") return GpuFill::blas;
  throw copa::InputError("--variant " + v + " is not a GPU fill of one rank");
}

copa::Selection select_variant(const copa::CommonOptions& o, Backend b, int ranks) {
  const copa::Selection s = registry().select(b, ranks, o.variant, o.tunings);
  if (ranks > 1 && s.name() != distributed_variant)
    throw copa::InputError("--variant " + s.name() + " cannot fill a block-cyclic block (it writes the whole matrix); on " +
                           std::to_string(ranks) + " ranks the fill is '" + distributed_variant + "'");
  if (ranks <= 1 && s.name() == distributed_variant)
    throw copa::InputError("--variant " + distributed_variant + " fills a block-cyclic block: it runs on more than one MPI rank");
  return s;
}

copa::Selection default_selection(Backend b) { return registry().default_selection(b, 1); }

std::vector<copa::Selection> engine_selections(Backend b) {
  std::vector<copa::Selection> out;
  for (auto& s : registry().all_tunings(b))
    if (s.name() != distributed_variant) out.push_back(s);
  return out;
}

}  // namespace efie
