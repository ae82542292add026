// The variant tables of ramses-oct: the uniform grid's step kernels (registry()) and the AMR
// tree's step (amr_registry(), --levels > 0). --list prints both; --variant and --tuning are
// resolved against the table of the run's kind.
#pragma once
#include <string>
#include <vector>

#include "copa/backend.hpp"
#include "copa/variants.hpp"

namespace ro {

// Uniform grid (--levels 0): oracle (serial), tiled (OpenMP), the GPU tile and z-march kernels.
const copa::VariantRegistry& registry();
// AMR (--levels > 0): one row per backend, the GPU leaf update's shape as tunings.
const copa::VariantRegistry& amr_registry();

// The variant of a table by name with every axis at its default (tests and helpers).
copa::Selection selection(copa::Backend b, const std::string& name);

}  // namespace ro
