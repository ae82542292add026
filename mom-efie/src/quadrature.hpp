// Triangle rules in barycentric form, weights summing to 1 (so  int_T f ~ area * sum w f).
// Test: the 3-point degree-2 rule (2/3, 1/6, 1/6). Source: Dunavant's 7-point degree-5 rule
// (a = (9 -+ 2 sqrt 15)/21, b = (6 +- sqrt 15)/21, w = (155 +- sqrt 15)/1200, centroid 9/40).
#pragma once
#include "math.hpp"

namespace efie {

constexpr int test_points = 3;
constexpr int source_points = 7;

// Quadrature point q of a rule on the triangle (a, b, c), and its weight.
EFIE_HD void test_rule(int q, Vec3 a, Vec3 b, Vec3 c, Vec3& p, double& w) {
  const double big = 2.0 / 3.0, small = 1.0 / 6.0;
  const double l0 = q == 0 ? big : small, l1 = q == 1 ? big : small, l2 = q == 2 ? big : small;
  p = l0 * a + l1 * b + l2 * c;
  w = 1.0 / 3.0;
}

EFIE_HD void source_rule(int q, Vec3 a, Vec3 b, Vec3 c, Vec3& p, double& w) {
  const double a1 = 0.05971587178976981, b1 = 0.4701420641051151, w1 = 0.13239415278850618;
  const double a2 = 0.7974269853530873, b2 = 0.10128650732345634, w2 = 0.12593918054482715;
  double l0, l1, l2;
  if (q == 0) {
    l0 = l1 = l2 = 1.0 / 3.0;
    w = 0.225;
  } else {
    const bool first = q <= 3;
    const double hi = first ? a1 : a2, lo = first ? b1 : b2;
    const int r = (q - 1) % 3;
    l0 = r == 0 ? hi : lo;
    l1 = r == 1 ? hi : lo;
    l2 = r == 2 ? hi : lo;
    w = first ? w1 : w2;
  }
  p = l0 * a + l1 * b + l2 * c;
}

}  // namespace efie
