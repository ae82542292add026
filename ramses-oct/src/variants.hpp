// The variant tables of ramses-oct: the uniform grid's step kernels (registry()) and the AMR
// tree's step (amr_registry(), --levels > 0). --list prints both; --variant and --tuning are
// resolved against the table of the run's kind.
#pragma once
#include <string>
#include <vector>

#include "copa/backend.hpp"
#include "copa/variants.hpp"
#include "mesh.hpp"

namespace ro {

// Uniform grid (--levels 0): oracle (serial), tiled (OpenMP), the GPU tile and z-march kernels.
const copa::VariantRegistry& registry();
// AMR (--levels > 0): one row per backend, the GPU leaf update's shape as tunings.
const copa::VariantRegistry& amr_registry();

// What a uniform GPU variant needs of the mesh, empty when it runs there. The tiles of 2x2x2 octs
// need whole aligned groups in the owned range; the z-march variants a power-of-two brick on one
// rank; subgrid6 runs everywhere. Host variants run on every mesh.
std::string variant_needs(copa::Backend b, const std::string& variant, const OctMesh& m);
inline bool variant_applies(copa::Backend b, const std::string& variant, const OctMesh& m) {
  return variant_needs(b, variant, m).empty();
}

// The variant a uniform run takes without --variant. The fallback rule: the table's default for the
// backend and rank count; when that does not run on the mesh, the next variant of the chain
// zmarch-col | zmarch -> balanced -> subgrid6 that does (subgrid6 runs on every mesh). `note` (when
// given) receives "<default> needs <what>: <taken>" for each step down the chain, empty when none.
// `tunings` (--tuning AXIS=VALUE) apply to the variant taken.
copa::Selection default_selection(copa::Backend b, int nranks, const OctMesh& m, std::string* note = nullptr,
                                  const std::vector<std::string>& tunings = {});

// The variant of a table by name with every axis at its default (tests and helpers).
copa::Selection selection(copa::Backend b, const std::string& name);

}  // namespace ro
