// The variant registry of mps-density: one row per neighbour-search strategy (variants.cpp).
#pragma once
#include <string>

#include "copa/variants.hpp"
#include "kernels.hpp"

namespace mps {

const copa::VariantRegistry& registry();

// The strategy of a resolved --variant.
Strategy strategy_of(const copa::Selection& s);
// Whether a resolved selection asks for --tuning step=graph (KernelOptions::step_graph).
bool step_graph(const copa::Selection& s);

}  // namespace mps
