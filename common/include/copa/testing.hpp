// A minimal test harness (no dependency beyond the standard library, so the same tests build on
// the CI and on the GPU machine). COPA_TEST(name) defines a case; main runs every case and ends
// with the line "N passed, N failed"; any failure gives exit code 1.
#pragma once
#include <cmath>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace copa::testing {

struct Case {
  std::string name;
  std::function<void()> body;
};
inline std::vector<Case>& registry() {
  static std::vector<Case> cases;
  return cases;
}
inline int& failures_in_case() {
  static int n = 0;
  return n;
}
struct Registrar {
  Registrar(const char* name, std::function<void()> body) { registry().push_back({name, std::move(body)}); }
};
inline void report_failure(const char* file, int line, const std::string& what) {
  ++failures_in_case();
  std::cerr << file << ":" << line << ": check failed: " << what << "\n";
}
inline bool near(double a, double b, double rtol, double atol = 0) {
  return std::fabs(a - b) <= atol + rtol * std::fmax(std::fabs(a), std::fabs(b));
}
int run_all(int argc, char** argv);

}  // namespace copa::testing

#define COPA_TEST_CONCAT2(a, b) a##b
#define COPA_TEST_CONCAT(a, b) COPA_TEST_CONCAT2(a, b)
#define COPA_TEST(name)                                                                   \
  static void COPA_TEST_CONCAT(copa_test_, name)();                                       \
  static ::copa::testing::Registrar COPA_TEST_CONCAT(copa_registrar_, name)(#name,        \
                                                        COPA_TEST_CONCAT(copa_test_, name)); \
  static void COPA_TEST_CONCAT(copa_test_, name)()

#define COPA_CHECK(cond) \
  do { if (!(cond)) ::copa::testing::report_failure(__FILE__, __LINE__, #cond); } while (0)

#define COPA_CHECK_NEAR(a, b, rtol)                                                      \
  do {                                                                                   \
    const double copa_a_ = (a), copa_b_ = (b);                                           \
    if (!::copa::testing::near(copa_a_, copa_b_, (rtol))) {                              \
      std::ostringstream copa_os_;                                                       \
      copa_os_.precision(17);                                                            \
      copa_os_ << #a " = " << copa_a_ << " vs " #b " = " << copa_b_ << " (rtol " << (rtol) << ")"; \
      ::copa::testing::report_failure(__FILE__, __LINE__, copa_os_.str());               \
    }                                                                                    \
  } while (0)

#define COPA_CHECK_THROWS(expr, type)                                                    \
  do {                                                                                   \
    bool copa_thrown_ = false;                                                           \
    try { (void)(expr); } catch (const type&) { copa_thrown_ = true; } catch (...) {}    \
    if (!copa_thrown_) ::copa::testing::report_failure(__FILE__, __LINE__, #expr " throws " #type); \
  } while (0)

// Define COPA_TEST_MAIN in exactly one file of a test executable (and COPA_TEST_CUSTOM_MAIN too when
// that file writes its own main, e.g. to initialise MPI, and calls copa::testing::run_all).
#if defined(COPA_TEST_MAIN)
int copa::testing::run_all(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  int passed = 0, failed = 0;
  for (const auto& c : registry()) {
    if (!only.empty() && c.name != only) continue;
    failures_in_case() = 0;
    try {
      c.body();
    } catch (const std::exception& e) {
      report_failure(__FILE__, __LINE__, c.name + " threw: " + e.what());
    }
    if (failures_in_case() == 0) {
      ++passed;
      std::cout << "[ ok ] " << c.name << "\n";
    } else {
      ++failed;
      std::cout << "[FAIL] " << c.name << "\n";
    }
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 && passed > 0 ? 0 : 1;
}
#if !defined(COPA_TEST_CUSTOM_MAIN)
int main(int argc, char** argv) { return copa::testing::run_all(argc, argv); }
#endif
#endif
