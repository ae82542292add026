// copa's GoogleTest helpers. Tests are plain GoogleTest cases (TEST(Suite, name), EXPECT_TRUE,
// EXPECT_THROW); this header adds the relative-tolerance check the suite's numerics use.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>

#include "copa/mpi.hpp"

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

// True in a case registered with the label "gpu" (copa_add_gtest sets COPA_TEST_REQUIRE_GPU): there
// a missing device is a failure, never a skip or a pass.
inline bool gpu_required() { return std::getenv("COPA_TEST_REQUIRE_GPU") != nullptr; }

// The communicator size a case of copa_add_gtest(... MPI_RANKS n) must run on: the launcher
// (cmake/gtest_mpi_launcher.cmake) sets COPA_TEST_MPI_RANKS=n, so a launcher that started fewer
// ranks fails every case instead of passing cases that hold on any rank count. The MPI tests' mains
// register it (::testing::AddGlobalTestEnvironment(new copa::testing::MpiRanksCheck)).
class MpiRanksCheck : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* want = std::getenv("COPA_TEST_MPI_RANKS");
    if (want && std::atoi(want) != copa::mpi::size())
      ADD_FAILURE() << "COPA_TEST_MPI_RANKS=" << want << " but the communicator has " << copa::mpi::size() << " ranks";
  }
};

}  // namespace copa::testing

// Expects |a - b| <= rtol * max(|a|, |b|).
#define COPA_EXPECT_NEAR_REL(a, b, rtol) EXPECT_PRED_FORMAT3(::copa::testing::near_rel, a, b, rtol)
