// The dielectric formulations (PMCHWT, Mueller; serial oracle) against the dielectric Mie series:
// the eps_r = 4, ka = 1 sphere (the reference case), a magnetic sphere, and no contrast (no scattering).
#include <algorithm>
#include <cmath>
#include <iostream>

#include "copa/testing.hpp"
#include "dielectric.hpp"
#include "kernels.hpp"
#include "variants.hpp"
#include "mfie_pair.hpp"
#include "fixtures.hpp"

using namespace efie;
using efie_test::sphere;

namespace {

RcsCuts solve(const Problem& p, const Dielectric& d, bool muller) {
  const long n2 = 2 * p.unknowns();
  std::vector<complex> a(std::size_t(n2) * n2);
  dielectric_fill(p, d, muller, a.data());
  auto x = dielectric_rhs(p);
  std::vector<int> pivots;
  host_lu_factor(a.data(), n2, pivots);
  host_lu_solve(a.data(), n2, pivots, x);
  return bistatic_rcs_jm(p, x);
}

}  // namespace

// eps_r = 4, ka = 1 (interior ka = 2): <= 0.5 dB at f = 4 (10.5 elements per interior
// wavelength), lower at f = 6, for both formulations.
TEST(Dielectric, eps4_ka1) {
  const Dielectric d{4.0, 1.0};
  for (bool muller : {false, true}) {
    const double coarse = rms_db_error_dielectric(solve(sphere(1.0, 4), d, muller), 1.0, d);
    const double fine = rms_db_error_dielectric(solve(sphere(1.0, 6), d, muller), 1.0, d);
    std::cout << "  " << (muller ? "Mueller" : "PMCHWT") << " eps_r 4, ka 1: RMS " << coarse << " dB (f = 4), " << fine << " dB (f = 6)\n";
    EXPECT_TRUE(coarse <= 0.5);
    EXPECT_TRUE(fine < coarse);
  }
}

// A magnetic body (mu_r = 2, eps_r = 3; not eps_r = mu_r, whose matched impedance gives a backscatter null
// that an RMS in dB cannot measure): the mu_r paths of the operators and of the Mie series.
TEST(Dielectric, magnetic_sphere) {
  const Dielectric d{3.0, 2.0};
  for (bool muller : {false, true}) {
    const double rms = rms_db_error_dielectric(solve(sphere(0.8, 4), d, muller), 0.8, d);
    std::cout << "  " << (muller ? "Mueller" : "PMCHWT") << " eps_r 3, mu_r 2, ka 0.8: RMS " << rms << " dB (f = 4)\n";
    EXPECT_TRUE(rms <= 0.5);
  }
}

// No contrast: the currents radiate nothing outside (largest sigma against the eps_r = 4 sphere's).
TEST(Dielectric, no_contrast) {
  const Problem p = sphere(1.0, 4);
  const RcsCuts none = solve(p, {1.0, 1.0}, false), four = solve(p, {4.0, 1.0}, false);
  const double ratio = *std::max_element(none.e_plane.begin(), none.e_plane.end()) / *std::max_element(four.e_plane.begin(), four.e_plane.end());
  std::cout << "  eps_r = mu_r = 1: max sigma / max sigma(eps_r 4) = " << ratio << "\n";
  EXPECT_TRUE(ratio <= 1e-3);
}

// OpenMP (two-phase rows) against the serial oracle, and bit-identical twice, for both formulations.
TEST(Dielectric, openmp_matches_serial) {
  const Problem p = sphere(1.0, 3);
  for (const char* name : {"pmchwt", "muller"}) {
    const Formulation form = make_formulation(name, 0.5, 3.0, 2.0);
    auto fill = [&](copa::Backend b) { return efie_test::fill_matrix(b, p, form, 2 * p.unknowns()); };
    const auto ser = fill(copa::Backend::serial), omp = fill(copa::Backend::openmp), omp2 = fill(copa::Backend::openmp);
    const double err = efie_test::rel_frobenius(omp, ser);
    std::cout << "  " << name << " openmp vs serial: relative Frobenius " << err << "\n";
    EXPECT_TRUE(err <= 1e-12);
    EXPECT_TRUE(omp == omp2);
  }
}

// The complex-wavenumber kernels (lossy media) with a real k give the real-k blocks (EFIE and K,
// near and far pairs), which checks their series and direct branches against the real formulas.
TEST(Dielectric, complex_k_matches_real) {
  const Problem p = sphere(1.0, 3);
  const double k = 2.3;
  double diff = 0, scale = 0;
  for (long t = 0; t < p.triangle_count(); t += 7)
    for (long s = 0; s < p.triangle_count(); ++s) {
      const Triangle &tt = p.triangles[t], &ss = p.triangles[s];
      Cplx a[3][3], b[3][3], c[3][3], d[3][3];
      if (is_near(tt, ss)) {
        pair_block<true>(tt, ss, k, a);
        pair_block<true>(tt, ss, Cplx{k, 0}, b);
        k_pair_block<true>(tt, ss, s == t, k, c);
        k_pair_block<true>(tt, ss, s == t, Cplx{k, 0}, d);
      } else {
        pair_block<false>(tt, ss, k, a);
        pair_block<false>(tt, ss, Cplx{k, 0}, b);
        k_pair_block<false>(tt, ss, false, k, c);
        k_pair_block<false>(tt, ss, false, Cplx{k, 0}, d);
      }
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          diff = std::max({diff, std::hypot(a[i][j].re - b[i][j].re, a[i][j].im - b[i][j].im),
                           std::hypot(c[i][j].re - d[i][j].re, c[i][j].im - d[i][j].im)});
          scale = std::max({scale, std::hypot(a[i][j].re, a[i][j].im), std::hypot(c[i][j].re, c[i][j].im)});
        }
    }
  std::cout << "  complex k = real k: max block difference / max block " << diff / scale << "\n";
  EXPECT_TRUE(scale > 0 && diff <= 1e-13 * scale);
}

// A lossy sphere, eps_r = 4 - 1j (exp(+j w t)), ka = 1: both formulations <= 0.5 dB against the
// dielectric Mie series, which absorbs (Q_ext > Q_sca: test mom-efie.unit).
TEST(Dielectric, lossy_sphere) {
  const Dielectric d{{4.0, -1.0}, 1.0};
  for (bool muller : {false, true}) {
    const double rms = rms_db_error_dielectric(solve(sphere(1.0, 4), d, muller), 1.0, d);
    std::cout << "  " << (muller ? "Mueller" : "PMCHWT") << " eps_r 4 - 1j, ka 1: RMS " << rms << " dB (f = 4)\n";
    EXPECT_TRUE(rms <= 0.5);
  }
}
