// mom-efie's variant table (variants.cpp): every fill strategy of every backend, its tunings and
// where it is the default. --list, the default, --variant/--tuning, the JSON and the tests read it.
#pragma once
#include <string>
#include <vector>

#include "copa/backend.hpp"
#include "copa/variants.hpp"

namespace copa {
struct CommonOptions;
}

namespace efie {

const copa::VariantRegistry& registry();

// The fill of more than one MPI rank (src/distributed/): each rank fills its block-cyclic block.
// It is the only variant there and is not offered on one rank.
inline const std::string distributed_variant = "owned-pairs";

// --variant and --tuning of a run on `ranks` MPI ranks (InputError, exit 2, naming the valid ones).
copa::Selection select_variant(const copa::CommonOptions& o, copa::Backend b, int ranks);

// The one-rank default of a backend, every axis at its default (tests, the host oracle).
copa::Selection default_selection(copa::Backend b);

// Every one-rank variant of a backend crossed with every value of its axes (the tests' sweep).
std::vector<copa::Selection> engine_selections(copa::Backend b);

}  // namespace efie
