// laghos-like's variant table (variants.cpp): every kernel strategy of every backend, its tuning
// axes and where it is the default. --list, the default, --variant/--tuning, the JSON and the
// tests that iterate variants read it.
#pragma once
#include <string>

#include "copa/variants.hpp"

namespace laghos {

const copa::VariantRegistry& registry();

// Throws the --tuning input error (exit 2) when a tuning value of `s` does not apply to the run:
// lean's mass=zcol outside 3D or on orders other than Q_k/Q_{k-1}.
void require_applicable(const copa::Selection& s, int dim, int order_k, int order_t);

// "name" or "name[axis=value,...]" with every axis spelled out (the console's "[backend / ...]"
// line, which the tests match, and the JSON's run.variant_label).
std::string full_label(const copa::Selection& s);

}  // namespace laghos
