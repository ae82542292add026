// The uniform-grid run (--levels 0): every backend and variant of a plan over the oct grid, on
// one rank or over MPI ranks (this rank's Morton range and its ghost layer), with the report,
// the verdict and the cross-backend and one-rank checks.
#pragma once
#include "copa/variants.hpp"
#include "hydro/mesh.hpp"
#include "hydro/run_options.hpp"

namespace ro {

// `mesh` is the whole grid; `table` gives each backend's default with the fallback rule
// (default_selection) where the plan's single backend has no --variant.
int run_uniform(const Options& o, const OctMesh& mesh, const Plan& plan, const copa::VariantRegistry& table, int argc,
                char** argv);

}  // namespace ro
