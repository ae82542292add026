// The AMR run (--levels > 0): every backend of a plan over the oct tree grown on the base grid,
// with the report, the verdict on the finest level's uniform sampling and the cross-backend check.
#pragma once
#include "hydro/mesh.hpp"
#include "hydro/run_options.hpp"

namespace ro::amr {

int run_amr_problem(const Options& o, const OctMesh& base, const Plan& plan, int argc, char** argv);

}  // namespace ro::amr
