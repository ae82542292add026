// The Mie reference against references/mie.md.
#include <cmath>
#include <complex>
#include <iostream>

#include "copa/testing.hpp"
#include "reference.hpp"

using namespace efie;

TEST(Mie, mie_monostatic_ka1) { COPA_EXPECT_NEAR_REL(mie_monostatic(1.0), 3.63756654, 2e-9); }

TEST(Mie, mie_bistatic_90deg_ka1) {
  double e, h;
  mie_bistatic(1.0, M_PI / 2, e, h);
  COPA_EXPECT_NEAR_REL(e, 0.61788, 1e-5);
  COPA_EXPECT_NEAR_REL(h, 2.86277, 1e-5);
}

TEST(Mie, mie_limits) {
  for (double ka : {0.5, 1.0, 3.3, 12.0}) {
    double e, h;
    mie_bistatic(ka, M_PI, e, h);
    COPA_EXPECT_NEAR_REL(e, mie_monostatic(ka), 1e-10);
    COPA_EXPECT_NEAR_REL(h, mie_monostatic(ka), 1e-10);
  }
  COPA_EXPECT_NEAR_REL(mie_monostatic(0.01), 9e-8, 1e-3);  // Rayleigh 9 (ka)^4
  EXPECT_TRUE(std::fabs(mie_monostatic(60.0) - 1.0) < 0.1);
}

TEST(Mie, interior_resonances_list) {
  const auto r = interior_resonances(6.2);
  const double expected[] = {2.7437, 3.8702, 4.4934, 4.9734, 5.7635, 6.0619, 6.1168};
  EXPECT_TRUE(r.size() == 7u);
  for (std::size_t i = 0; i < std::min<std::size_t>(7, r.size()); ++i) EXPECT_TRUE(std::fabs(r[i] - expected[i]) < 1e-4);
  EXPECT_TRUE(distance_to_resonance(2.0) > 0.7);
}

// ---- The dielectric Mie series (Bohren & Huffman), tested on its own --------------------------
namespace {
using cplx = std::complex<double>;
double dielectric_monostatic(double ka, cplx eps, cplx mu = 1.0) {
  double e, h;
  mie_bistatic_dielectric(ka, eps, mu, M_PI, e, h);
  return e;
}
}  // namespace

// eps_r -> 1 (mu_r = 1): no scattering; near 1 the Rayleigh-Gans law sigma ~ (eps_r - 1)^2.
TEST(Mie, dielectric_mie_no_contrast) {
  double e, h;
  mie_bistatic_dielectric(1.0, 1.0, 1.0, M_PI / 3, e, h);
  EXPECT_TRUE(e < 1e-28 && h < 1e-28);
  const double s1 = dielectric_monostatic(1.0, 1.0 + 1e-3), s2 = dielectric_monostatic(1.0, 1.0 + 2e-3);
  std::cout << "  eps_r = 1 + d: sigma(2d) / sigma(d) = " << s2 / s1 << " (Rayleigh-Gans: 4)\n";
  COPA_EXPECT_NEAR_REL(s2 / s1, 4.0, 1e-2);
}

// Rayleigh limit: backscatter sigma/(pi a^2) = 4 x^4 |(eps - 1)/(eps + 2)|^2 (electric dipole).
TEST(Mie, dielectric_mie_rayleigh) {
  for (cplx eps : {cplx(4.0), cplx(2.5, -0.7)}) {
    const double x = 0.01, want = 4 * std::pow(x, 4) * std::norm((eps - 1.0) / (eps + 2.0));
    const double got = dielectric_monostatic(x, eps);
    std::cout << "  Rayleigh, eps_r = " << eps << ": " << got << " against " << want << "\n";
    EXPECT_TRUE(std::fabs(got / want - 1) <= 1e-3);
  }
}

// Optical theorem: Q_ext from the coefficients equals 4/x^2 Re S(0) from the angular sums; Q_sca
// from the coefficients equals the bistatic sigma integrated over the sphere; a lossless sphere
// scatters all it extinguishes (Q_sca = Q_ext), a lossy one (eps'' > 0 in exp(+j w t)) absorbs
// (Q_ext > Q_sca), which checks the sign convention of the loss.
TEST(Mie, dielectric_mie_optical_theorem) {
  const double x = 1.0;
  for (cplx eps : {cplx(4.0), cplx(4.0, -1.0)}) {
    for (cplx mu : {cplx(1.0), cplx(2.0)}) {
      const MieEfficiencies q = mie_efficiencies(x, eps, mu);
      // sigma/(pi a^2) = 4 |S|^2 / x^2 per cut; Q_sca = (1/(4 pi)) int over the sphere, and the
      // phi average of the two cuts' weights is 1/2 each: Q_sca = 1/2 int_0^pi (sE + sH)/2 sin t dt.
      const int steps = 2000;
      double integral = 0;
      for (int i = 0; i < steps; ++i) {
        const double t = (i + 0.5) * M_PI / steps;
        double e, h;
        mie_bistatic_dielectric(x, eps, mu, t, e, h);
        integral += 0.25 * (e + h) * std::sin(t) * M_PI / steps;
      }
      const double from_forward = 4 / (x * x) * q.forward_amplitude.real();
      std::cout << "  eps_r " << eps << ", mu_r " << mu << ": Q_ext " << q.extinction << " (4/x^2 Re S(0) " << from_forward << "), Q_sca "
                << q.scattering << " (integral of sigma " << integral << ")\n";
      EXPECT_TRUE(std::fabs(from_forward - q.extinction) <= 1e-12 * q.extinction);
      EXPECT_TRUE(std::fabs(integral - q.scattering) <= 1e-5 * q.scattering);
      if (eps.imag() == 0 && mu.imag() == 0)
        EXPECT_TRUE(std::fabs(q.extinction - q.scattering) <= 1e-12 * q.extinction);
      else
        EXPECT_TRUE(q.extinction > 1.01 * q.scattering);
    }
  }
}

// A good conductor (eps_r = 1 - j 1e8) tends to the PEC series.
TEST(Mie, dielectric_mie_pec_limit) {
  const double got = dielectric_monostatic(1.0, cplx(1.0, -1e8)), want = mie_monostatic(1.0);
  std::cout << "  eps_r = 1 - 1e8 j: monostatic " << got << " against PEC " << want << "\n";
  EXPECT_TRUE(std::fabs(got / want - 1) <= 1e-3);
}
