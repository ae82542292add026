// The Mie series of a PEC sphere under a plane wave (references/mie.md): bistatic RCS in the
// E- and H-planes and monostatic, normalised by pi a^2; the EFIE interior resonances; the RMS dB
// difference of a computed RCS against Mie.
#pragma once
#include <vector>

#include "problem.hpp"

namespace efie {

// sigma / (pi a^2) at bistatic angle theta (radians from the propagation direction).
void mie_bistatic(double ka, double theta, double& e_plane, double& h_plane);
double mie_monostatic(double ka);

// ka of the sphere's cavity modes (zeros of j_n(x) and of [x j_n(x)]') in [ka_min, ka_max], sorted.
std::vector<double> interior_resonances(double ka_max, double ka_min = 0);
// Distance from ka to the nearest interior resonance (at most 1: only that window is searched).
double distance_to_resonance(double ka);

// RMS over both cuts of 10 log10(sigma / sigma_Mie) (dB).
double rms_db_error(const RcsCuts& cuts, double ka);

}  // namespace efie
