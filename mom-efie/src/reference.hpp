// The Mie series of a PEC sphere under a plane wave (references/mie.md): bistatic RCS in the
// E- and H-planes and monostatic, normalised by pi a^2; the EFIE interior resonances; the RMS dB
// difference of a computed RCS against Mie.
#pragma once
#include <complex>
#include <vector>

#include "problem.hpp"

namespace efie {

// sigma / (pi a^2) at bistatic angle theta (radians from the propagation direction).
void mie_bistatic(double ka, double theta, double& e_plane, double& h_plane);
double mie_monostatic(double ka);

// Homogeneous sphere of relative permittivity eps_r and permeability mu_r (the dielectric Mie
// series, Bohren & Huffman 4.53). Time convention exp(+j w t): a lossy material has
// eps_r = eps' - j eps'' with eps'' >= 0.
void mie_bistatic_dielectric(double ka, std::complex<double> eps_r, std::complex<double> mu_r, double theta, double& e_plane,
                             double& h_plane);
// Efficiencies (cross-section / pi a^2) from the coefficients: Q_ext = 2/x^2 sum (2n+1) Re(a_n + b_n),
// Q_sca = 2/x^2 sum (2n+1)(|a_n|^2 + |b_n|^2); and the forward amplitude S(0) = S1(0) = S2(0)
// from the angular sums (the optical theorem: Q_ext = 4/x^2 Re S(0)).
struct MieEfficiencies {
  double extinction = 0, scattering = 0;
  std::complex<double> forward_amplitude;
};
MieEfficiencies mie_efficiencies(double ka, std::complex<double> eps_r, std::complex<double> mu_r);

// ka of the sphere's cavity modes (zeros of j_n(x) and of [x j_n(x)]') in [ka_min, ka_max], sorted.
std::vector<double> interior_resonances(double ka_max, double ka_min = 0);
// Distance from ka to the nearest interior resonance (at most 1: only that window is searched).
double distance_to_resonance(double ka);

// RMS over both cuts of 10 log10(sigma / sigma_Mie) (dB).
double rms_db_error(const RcsCuts& cuts, double ka);

}  // namespace efie
