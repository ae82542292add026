// Checks of a filled matrix against the serial formula without the whole serial matrix: entries
// recomputed on the host from their 4 triangle pairs (the sampled oracle of large runs).
#pragma once
#include "kernels.hpp"

namespace efie {

// A_mn = (P_mn + P_nm) / 2 by the pair formula, near pairs from the problem's near list.
complex reference_entry(const Problem& p, long m, long n);

// max |A_e - reference| / max |reference| over `samples` pseudo-random entries plus the diagonal's
// first entries (which hold the singular self terms).
double sampled_entry_error(const Problem& p, Engine& engine, int samples, unsigned seed = 12345);

}  // namespace efie
