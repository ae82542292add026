// The PMCHWT / Mueller interaction of one (test T, source S) triangle pair: the four 3x3 blocks
// of the 2N x 2N matrix (rows J-equation / M-equation, columns eta0 J / M; dielectric.hpp for the
// formulation). Shared by the host fills and the GPU kernels.
#pragma once
#include <complex>

#include "mfie_pair.hpp"

namespace efie {

// Wavenumbers and relative impedances of the two media (complex inside a lossy body:
// k2 = k0 sqrt(eps_r mu_r), eta_r2 = sqrt(mu_r / eps_r), principal roots, so k2 = k' - j k'' with
// k'' >= 0 for eps_r = eps' - j eps''), and the weights of the interior equations (PMCHWT 1, 1;
// Mueller -eps_r, -mu_r).
struct DielectricMedia {
  Cplx k[2], eta_r[2], we, wh;
};

inline DielectricMedia dielectric_media(double k0, std::complex<double> eps_r, std::complex<double> mu_r, bool muller) {
  const std::complex<double> k2 = k0 * std::sqrt(eps_r * mu_r), eta2 = std::sqrt(mu_r / eps_r);
  const std::complex<double> we = muller ? -eps_r : 1.0, wh = muller ? -mu_r : 1.0;
  return {{{k0, 0}, {k2.real(), k2.imag()}}, {{1, 0}, {eta2.real(), eta2.imag()}}, {we.real(), we.imag()}, {wh.real(), wh.imag()}};
}

EFIE_HD Cplx divide(Cplx a, Cplx b) {
  const double d = b.re * b.re + b.im * b.im;
  return {(a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d};
}

struct DielectricBlocks {
  Cplx jj[3][3], jm[3][3], mj[3][3], mm[3][3];
};

// <f_i, n x f_j> over one triangle: c_i c_j / (4 A) sum_p w_p (r_p - v_i).(n x (r_p - v_j)), exact
// with the 3-point rule (a quadratic): the identity terms the Mueller weights leave.
struct NormalCross {
  Vec3 n;
  EFIE_HD Vec3 operator()(Vec3 a) const { return cross(n, a); }
};

EFIE_HD void rotated_gram_block(const Triangle& t, double out[3][3]) { rule_gram_block(t, NormalCross{unit_normal(t)}, out); }

template <bool Singular>
EFIE_HD void dielectric_pair(const Triangle& t, const Triangle& s, bool self, const DielectricMedia& md, DielectricBlocks& out) {
  double nx[3][3];
  if (self) {
    rotated_gram_block(t, nx);
  } else {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) nx[i][j] = 0;
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      out.jj[i][j] = out.mm[i][j] = {0, 0};
      out.jm[i][j] = (0.5 * nx[i][j]) * (Cplx{1, 0} - md.we);
      out.mj[i][j] = (-0.5 * nx[i][j]) * (Cplx{1, 0} - md.wh);
    }
  for (int m = 0; m < 2; ++m) {
    Cplx pa[3][3], pk[3][3];
    pair_block<Singular>(t, s, md.k[m], pa);
    k_pair_block<Singular>(t, s, self, md.k[m], pk);
    const Cplx ve = m == 0 ? Cplx{1, 0} : md.we, vh = m == 0 ? Cplx{1, 0} : md.wh;
    // j (ve eta_r / k) and j (vh / (k eta_r)) times the EFIE pair
    const Cplx wj = times_j(divide(ve * md.eta_r[m], md.k[m])), wm = times_j(divide(vh, md.k[m] * md.eta_r[m]));
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        out.jj[i][j] = out.jj[i][j] + wj * pa[i][j];
        out.mm[i][j] = out.mm[i][j] + wm * pa[i][j];
        out.jm[i][j] = out.jm[i][j] + ve * pk[i][j];
        out.mj[i][j] = out.mj[i][j] - vh * pk[i][j];
      }
  }
}

}  // namespace efie
