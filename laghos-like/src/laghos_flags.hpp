// Laghos's command-line flags as aliases of laghos-like's options, so that a Laghos command line
// (e.g. Laghos README's `-p 1 -m data/square01_quad.mesh -rs 3 -tf 0.8 -pa`) runs as pasted.
// Laghos (MFEM's OptionsParser) takes multi-letter single-dash flags such as -rs, which CLI11 would
// read as the bundle -r -s; they are therefore rewritten to the long options before parsing.
#pragma once
#include <string>
#include <vector>

namespace laghos {

// argv[1..] with every Laghos flag rewritten: mapped ones to their laghos-like option (values
// translated where they differ: -s 4|7, -d cpu|omp|cuda|hip), the ones with nothing to do here
// (-pa, -no-vis, -f, ...) dropped. Throws InputError (exit 2) naming the flag for one laghos-like
// refuses (-vis, -fa, -rp, ...: with the reason), for an unknown single-dash word of two or more
// letters, and for a mapped flag without its value. Numbers (-1) and long options pass unchanged.
std::vector<std::string> translate_laghos_flags(int argc, const char* const* argv);

// The alias table for --help.
std::string laghos_flags_help();

}  // namespace laghos
