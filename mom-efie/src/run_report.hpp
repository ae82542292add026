// The report every mom-efie run starts from, on one rank (main.cpp) or several (distributed/).
#pragma once
#include <string>

#include "copa/backend.hpp"
#include "copa/cli.hpp"
#include "copa/report.hpp"

namespace efie {

// App, backend, variant, threads, device (-1: none), the ceilings of the run, its command line and
// the variants every built backend offers.
copa::Report start_report(const copa::CommonOptions& common, copa::Backend backend, const std::string& variant,
                          int threads, int device, int argc, char** argv);

}  // namespace efie
