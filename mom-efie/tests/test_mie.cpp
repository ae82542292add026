// The Mie reference against references/mie.md.
#include <cmath>

#include "copa/testing.hpp"
#include "reference.hpp"

using namespace efie;

COPA_TEST(mie_monostatic_ka1) { COPA_CHECK_NEAR(mie_monostatic(1.0), 3.63756654, 2e-9); }

COPA_TEST(mie_bistatic_90deg_ka1) {
  double e, h;
  mie_bistatic(1.0, M_PI / 2, e, h);
  COPA_CHECK_NEAR(e, 0.61788, 1e-5);
  COPA_CHECK_NEAR(h, 2.86277, 1e-5);
}

COPA_TEST(mie_limits) {
  for (double ka : {0.5, 1.0, 3.3, 12.0}) {
    double e, h;
    mie_bistatic(ka, M_PI, e, h);
    COPA_CHECK_NEAR(e, mie_monostatic(ka), 1e-10);
    COPA_CHECK_NEAR(h, mie_monostatic(ka), 1e-10);
  }
  COPA_CHECK_NEAR(mie_monostatic(0.01), 9e-8, 1e-3);  // Rayleigh 9 (ka)^4
  COPA_CHECK(std::fabs(mie_monostatic(60.0) - 1.0) < 0.1);
}

COPA_TEST(interior_resonances_list) {
  const auto r = interior_resonances(6.2);
  const double expected[] = {2.7437, 3.8702, 4.4934, 4.9734, 5.7635, 6.0619, 6.1168};
  COPA_CHECK(r.size() == 7u);
  for (std::size_t i = 0; i < std::min<std::size_t>(7, r.size()); ++i) COPA_CHECK(std::fabs(r[i] - expected[i]) < 1e-4);
  COPA_CHECK(distance_to_resonance(2.0) > 0.7);
}
