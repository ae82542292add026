// The AMR run (--levels > 0): every backend of a plan over the oct tree grown on the base grid,
// with the report, the verdict on the finest level's uniform sampling and the cross-backend check.
#pragma once
#include "hydro/mesh.hpp"
#include "hydro/run_options.hpp"

namespace copa {
class Report;
}

namespace ro::amr {

// run.fallbacks of an AMR run: one "regrid" entry naming how many of its regrids the GPU step's
// queued build (guessed capacities) gave up for the exact rebuild; none when no regrid did.
void add_regrid_fallbacks(copa::Report& rep, long long fallbacks, long regrids);

int run_amr_problem(const Options& o, const OctMesh& base, const Plan& plan, int argc, char** argv);

}  // namespace ro::amr
