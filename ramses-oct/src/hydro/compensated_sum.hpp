// Neumaier's compensated sum, for the conservation totals: a naive running sum of 2M small ambient
// energies into a total of order 1 rounds the same way at every addition and drifts by ~1e-11
// relative at 128^3, larger than the scheme's own round-off that the 1e-12 conservation checks
// are meant to see. The order of the additions is the caller's (fixed, so totals are reproducible).
#pragma once
#include <cmath>

namespace ro {

struct CompensatedSum {
  double sum = 0, carry = 0;
  void add(double x) {
    const double t = sum + x;
    carry += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  double value() const { return sum + carry; }
};

}  // namespace ro
