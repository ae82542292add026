// The report every mom-efie run starts from, on one rank (main.cpp) or several (distributed/).
#pragma once
#include <string>

#include "copa/backend.hpp"
#include "copa/cli.hpp"
#include "copa/report.hpp"
#include "kernels.hpp"
#include "setup.hpp"

namespace efie {

// App, backend, variant and tunings, threads, device (-1: none), the ceilings of the run, its command line and
// the variants every built backend offers.
copa::Report start_report(const copa::CommonOptions& common, copa::Backend backend, const copa::Selection& variant,
                          int threads, int device, int argc, char** argv);

// The run.problem section of a one-rank run: geometry, size, unknowns, triangles, k, radius, ka,
// mesh density, near factor, formulation and material.
void describe_problem(copa::Report& report, const ProblemOptions& options, const Problem& problem, const Formulation& form,
                      double mesh_k_factor, bool fill_only);

}  // namespace efie
