// A homogeneous dielectric body: the PMCHWT and Mueller formulations with RWG electric and magnetic
// currents on its closed surface, the host fill (the serial oracle; the OpenMP engine runs its
// rows in phases; the per-pair blocks are dielectric_pair.hpp's, shared with the GPU), the
// plane-wave excitation and the RCS from both currents. A lossy body has a complex eps_r or mu_r:
// the interior kernels then take a complex wavenumber.
//
// Equivalence (n outward, region 1 outside with k1, eta1 = eta0; region 2 inside with
// k2 = k1 sqrt(eps_r mu_r), eta2 = eta0 sqrt(mu_r / eps_r)); exterior currents J = n x H,
// M = -n x E; the interior field radiated by -J, -M. With the operators of a medium
//   E(J) = -eta L J, E(M) = -K M, H(J) = K J, H(M) = -(1/eta) L M,
//   L X = jk int G X' + (j/k) grad int G div' X',   K X = int grad G x X' dS',
// the null-field conditions inside (exterior representation) minus outside (interior one) cancel
// the +-(n x X)/2 jumps of K (Poggio-Miller-Chang-Harrington-Wu-Tsai):
//   (eta1 L1 + eta2 L2) J + (K1 + K2) M = E_inc,tan
//  -(K1 + K2) J + (L1/eta1 + L2/eta2) M = H_inc,tan
// Galerkin with RWG: <f_m, L f_n> = (j/k) A_mn (A: efie_pair.hpp's EFIE matrix at wavenumber k),
// <f_m, K f_n> = k_pair_block (mfie_pair.hpp). Unknowns x = [eta0 J; M] (both in volts), so
//   [ sum_i (j eta_ri / k_i) A_i     sum_i K_i                  ] [eta0 J]   [<f, E_inc>         ]
//   [ -sum_i K_i                     sum_i (j / (k_i eta_ri)) A_i ] [M     ] = [<f, eta0 H_inc>   ]
// Mueller (the form EFIE+ + alpha EFIE-, MFIE+ + beta MFIE-): the interior conditions enter with
// weights -eps_r and -mu_r instead of 1 (the exterior minus w times the interior one), so the
// hypersingular parts of eta1 L1 - eps_r eta2 L2 cancel (eta_i / k_i = eta0 / (k0 eps_ri)) and the
// jumps no longer do: the electric row gains (1 + eps_r)/2 <f, n x f'> on M, the magnetic row
// -(1 + mu_r)/2 <f, n x f'> on J; tested with RWG like the PMCHWT (K weights 1 and -eps_r / -mu_r).
#pragma once
#include <complex>
#include <vector>

#include "problem.hpp"

namespace efie {

// eps_r = eps' - j eps'' (exp(+j w t), loss eps'' >= 0); likewise mu_r.
struct Dielectric {
  std::complex<double> eps_r = 1, mu_r = 1;
};

// The 2N x 2N matrix, column-major, by the plain pair formulas over every triangle pair (near
// pairs with singularity extraction in both media), raw Galerkin (3 x 7 rule): PMCHWT, or with
// muller the Mueller weights.
void dielectric_fill(const Problem& p, const Dielectric& d, bool muller, complex* a);
// What test triangle t adds to the rows (m and m + N) of its unknowns i with rows[i] (the OpenMP
// fill's phases); dielectric_fill is this for every triangle and every row, after zeroing.
void dielectric_rows(const Problem& p, const Dielectric& d, bool muller, long t, const bool rows[3], complex* a);
// [<f_m, e exp(-jk k_hat.r)>; <f_m, (k_hat x e) exp(-jk k_hat.r)>] (both formulations)
std::vector<complex> dielectric_rhs(const Problem& p);
// sigma / (pi a^2) from both currents: sigma = k^2/(4 pi) |(eta0 J~)_perp + M~ x r_hat|^2.
RcsCuts bistatic_rcs_jm(const Problem& p, const std::vector<complex>& x, int samples = 181);
// RMS dB of the cuts against the dielectric Mie series.
double rms_db_error_dielectric(const RcsCuts& cuts, double ka, const Dielectric& d);

}  // namespace efie
