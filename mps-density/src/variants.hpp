// The variant registry of mps-density: one row per neighbour-search strategy (variants.cpp).
#pragma once
#include <map>
#include <string>

#include "copa/variants.hpp"
#include "kernels.hpp"

namespace mps {

const copa::VariantRegistry& registry();

// The strategy of a resolved --variant.
Strategy strategy_of(const copa::Selection& s);
// Sets the kernel options of the tuning axes (Selection::tunings: step, blocks-per-sm); axes a
// variant does not have keep their defaults.
void apply_tunings(const std::map<std::string, std::string>& tunings, KernelOptions& ko);

}  // namespace mps
