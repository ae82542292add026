// laghos-like's variant table (variants.cpp): every kernel strategy of every backend, its tuning
// axes and where it is the default. --list, the default, --variant/--tuning, the JSON and the
// tests that iterate variants read it.
#pragma once
#include <string>

#include "copa/variants.hpp"

namespace laghos {

const copa::VariantRegistry& registry();

// "name" or "name[axis=value,...]" with every axis spelled out (the console's "[backend / ...]"
// line, which the tests match, and the JSON's run.variant_label).
std::string full_label(const copa::Selection& s);

}  // namespace laghos
