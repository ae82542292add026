// The worked example of docs/CONTRIBUTING.md, built and run by the tests: a kernel family (a
// weighted sum y = a x + b y) with a serial oracle and an OpenMP backend behind one interface, its
// variant table with one tuning axis, and the check every copa variant passes: each row of the
// table, with every value of its axes, against the oracle. Adding a variant is one row in
// `registry()` plus its kernel in `make_kernels`; the sweep below picks it up with no other edit.
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "copa/errors.hpp"
#include "copa/variants.hpp"

namespace example {

using copa::Backend;

// The kernel-family interface (an app's kernels.hpp).
struct Kernels {
  virtual ~Kernels() = default;
  virtual void axpby(double a, const std::vector<double>& x, double b, std::vector<double>& y) = 0;
};

// The serial oracle (kernels_serial.cpp): the plain loop every other variant is checked against.
struct Serial : Kernels {
  void axpby(double a, const std::vector<double>& x, double b, std::vector<double>& y) override {
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = a * x[i] + b * y[i];
  }
};

// An OpenMP variant with a tuning axis (kernels_openmp.cpp): the loop schedule. The result does
// not depend on it (each element is computed once), only the speed does.
struct Parallel : Kernels {
  bool dynamic;
  explicit Parallel(bool dyn) : dynamic(dyn) {}
  void axpby(double a, const std::vector<double>& x, double b, std::vector<double>& y) override {
    const long n = static_cast<long>(y.size());
    if (dynamic) {
#pragma omp parallel for schedule(dynamic, 256)
      for (long i = 0; i < n; ++i) y[i] = a * x[i] + b * y[i];
    } else {
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; ++i) y[i] = a * x[i] + b * y[i];
    }
  }
};

// The variant table (an app's variants.cpp): one row per variant; tunings beside it, not in its name.
const copa::VariantRegistry& registry() {
  static const copa::VariantRegistry r(
      "example", {
                     {"loop", {Backend::serial}, "the plain loop: the oracle", {}, {{Backend::serial}}},
                     {"parallel-for",
                      {Backend::openmp},
                      "one OpenMP worksharing loop",
                      {{"schedule", {"static", "dynamic"}, "OpenMP loop schedule"}},
                      {{Backend::openmp}}},
                 });
  return r;
}

// The factory (an app's kernels factory): builds what a resolved selection names.
std::unique_ptr<Kernels> make_kernels(const copa::Selection& s) {
  if (s.name() == "loop") return std::make_unique<Serial>();
  if (s.name() == "parallel-for") return std::make_unique<Parallel>(s.is("schedule", "dynamic"));
  throw std::logic_error("no kernels for variant " + s.name());
}

}  // namespace example

TEST(ContributingExample, every_variant_and_tuning_equals_the_oracle) {
  const std::size_t n = 10000;
  std::vector<double> x(n), y0(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = std::sin(0.1 * double(i));
    y0[i] = std::cos(0.3 * double(i));
  }
  std::vector<double> want = y0;
  example::Serial().axpby(1.5, x, -0.25, want);
  int checked = 0;
  for (copa::Backend b : {copa::Backend::serial, copa::Backend::openmp})
    for (const copa::Selection& s : example::registry().all_tunings(b)) {
      std::vector<double> y = y0;
      example::make_kernels(s)->axpby(1.5, x, -0.25, y);
      EXPECT_EQ(y, want) << s.label();  // bit for bit: every element is the same expression
      ++checked;
    }
  EXPECT_EQ(checked, 3);  // loop, parallel-for[schedule=static], parallel-for[schedule=dynamic]
}

TEST(ContributingExample, defaults_and_bad_input) {
  EXPECT_EQ(example::registry().default_selection(copa::Backend::openmp, 1).label(), "parallel-for");
  EXPECT_THROW(example::registry().select(copa::Backend::openmp, 1, "parallel-for", {"schedule=guided"}),
               copa::InputError);
}
