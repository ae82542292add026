// How a run is judged (README, "Verification"): the density against the brute-force and bucket-sum
// oracles, the lattice against n0, the dam-break front against the experiment, and a checksum of
// the result's bits for the determinism and one-rank comparisons.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "copa/report.hpp"
#include "particles.hpp"

namespace mps {

// FNV-1a over the bytes of the values (original particle order): two runs are bitwise identical
// exactly when their checksums are.
std::string checksum(const std::vector<const std::vector<double>*>& fields);

// max relative density error against the brute-force sum (every particle up to 20000, else a
// strided sample) and the serial bucket sum (up to 200k strided targets); tolerance 1e-12 (fp32: 1e-5).
copa::Verification verify_density(const Problem& pr, const std::vector<double>& n, bool fp32);

// Interior particles of a perfect lattice must reproduce n0 (references/mps.md) to 1e-13.
copa::Verification verify_lattice(const Problem& pr, const std::vector<double>& n);

// max |Z - Z_ref(T)| / Z_ref(T) over the surge-front samples (T, Z) with T0 <= T <= T1; `used`
// counts them.
double front_error(const std::vector<std::pair<double, double>>& TZ, double (*reference)(double), double T0, double T1,
                   int& used);

}  // namespace mps
