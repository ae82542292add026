// laghos-like's variant table (variants.cpp): every kernel strategy of every backend, its tuning
// axes and where it is the default. --list, the default, --variant/--tuning, the JSON and the
// tests that iterate variants read it.
#pragma once
#include <string>
#include <vector>

#include "copa/variants.hpp"

namespace laghos {

const copa::VariantRegistry& registry();

// Fits `s` to the run. lean's mass=zcol has kernels for 3D Q_k/Q_{k-1} only: elsewhere an
// explicit --tuning mass=zcol (in `tunings`, the --tuning assignments) is an input error (exit 2)
// naming it, and the default value becomes mass=shared, which the label and JSON then report.
void apply_to_run(copa::Selection& s, const std::vector<std::string>& tunings, int dim, int order_k, int order_t);

// "name" or "name[axis=value,...]" with every axis spelled out (the console's "[backend / ...]"
// line, which the tests match, and the JSON's run.variant_label).
std::string full_label(const copa::Selection& s);

}  // namespace laghos
