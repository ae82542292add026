// copa's GoogleTest helpers. Tests are plain GoogleTest cases (TEST(Suite, name), EXPECT_TRUE,
// EXPECT_THROW); this header adds the relative-tolerance check the suite's numerics use.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace copa::testing {

// |a - b| <= atol + rtol * max(|a|, |b|): symmetric in a and b, so neither side is "the reference".
inline bool near(double a, double b, double rtol, double atol = 0) {
  return std::fabs(a - b) <= atol + rtol * std::fmax(std::fabs(a), std::fabs(b));
}

// The predicate behind COPA_EXPECT_NEAR_REL: on failure it prints both values to 17 digits.
inline ::testing::AssertionResult near_rel(const char* a_expr, const char* b_expr, const char* rtol_expr, double a,
                                           double b, double rtol) {
  if (near(a, b, rtol)) return ::testing::AssertionSuccess();
  std::ostringstream os;
  os.precision(17);
  os << a_expr << " = " << a << " vs " << b_expr << " = " << b << " (rtol " << rtol_expr << " = " << rtol
     << ", |a - b| = " << std::fabs(a - b) << ")";
  return ::testing::AssertionFailure() << os.str();
}

}  // namespace copa::testing

// Expects |a - b| <= rtol * max(|a|, |b|).
#define COPA_EXPECT_NEAR_REL(a, b, rtol) EXPECT_PRED_FORMAT3(::copa::testing::near_rel, a, b, rtol)
