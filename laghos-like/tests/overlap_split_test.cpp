// --overlap's pieces on one rank, with a shared-dof mask made up here (two faces of the box, as a
// rank with neighbours in +x and -y would have): the boundary/interior split, and the host backends'
// two-pass F 1 and H1 mass action against their one-pass force() and mass_h1(). The contract
// (kernels.hpp): after the boundary pass the shared dofs hold their sums; the interior pass
// completes the others without touching them.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "copa/errors.hpp"
#include "copa/testing.hpp"
#include "discretization.hpp"
#include "element_split.hpp"
#include "kernels.hpp"
#include "mesh.hpp"

using namespace laghos;

namespace {

struct Case {
  Discretization d;
  std::vector<double> state;
  std::vector<char> shared;
};

// Q2Q1 Sedov on the 4^3 cube with a non-trivial velocity; dofs on the x = 1 and y = 0 faces shared.
Case make_case() {
  CartesianMesh mesh = named_mesh("cube01_hex");
  mesh.refine();
  ProblemSpec spec;
  spec.problem = 1;
  Case c;
  c.d = build_discretization(mesh, spec, c.state);
  const Discretization& d = c.d;
  const std::size_t vs = d.h1_vsize();
  for (std::size_t i = 0; i < vs; ++i) c.state[vs + i] = std::sin(0.37 * static_cast<double>(i));
  c.shared.assign(d.nh1, 0);
  for (int g = 0; g < d.nh1; ++g) {
    const int ix = g % d.h1n[0], iy = (g / d.h1n[0]) % d.h1n[1];
    c.shared[g] = (ix == d.h1n[0] - 1 || iy == 0) ? 1 : 0;
  }
  return c;
}

double max_abs(const std::vector<double>& a) {
  double m = 0.0;
  for (double x : a) m = std::fmax(m, std::fabs(x));
  return m;
}

// Two passes vs one pass of an H1 operator of `components` components (F 1 or the mass action):
// the shared dofs bitwise after the boundary pass (their elements are all boundary elements, taken
// in the same ascending order), untouched by the interior pass, and every dof within `other_tol`
// (relative to max |one pass|) at the end.
template <class OnePass, class Boundary, class Interior>
void check_two_passes(const char* what, const Case& c, int components, double other_tol, OnePass one_pass,
                      Boundary boundary, Interior interior) {
  const Discretization& d = c.d;
  const ElementSplit split = split_elements(d, c.shared);
  const std::size_t n = static_cast<std::size_t>(components) * d.nh1;
  std::vector<double> one(n), two(n, std::nan(""));
  one_pass(one.data());
  boundary(two.data());
  for (int comp = 0; comp < components; ++comp)
    for (int g : split.shared_dofs) {
      const std::size_t i = static_cast<std::size_t>(comp) * d.nh1 + g;
      EXPECT_TRUE(two[i] == one[i]);
      two[i] = 1234.5;  // a sentinel the interior pass must leave alone
    }
  interior(two.data());
  double diff = 0.0;
  for (int comp = 0; comp < components; ++comp) {
    for (int g : split.shared_dofs) EXPECT_TRUE(two[static_cast<std::size_t>(comp) * d.nh1 + g] == 1234.5);
    for (int g : split.other_dofs) {
      const std::size_t i = static_cast<std::size_t>(comp) * d.nh1 + g;
      diff = std::fmax(diff, std::fabs(two[i] - one[i]));
    }
  }
  std::printf("%s: two passes vs one, max |difference| / max |value| at the other dofs = %.3e\n", what,
              diff / max_abs(one));
  EXPECT_TRUE(diff <= other_tol * max_abs(one));
}

// F 1 and the H1 mass action (of the x velocity component) on `kernels`.
void check_backend(HydroKernels& kernels, const std::string& name, const Case& c, double other_tol) {
  const Discretization& d = c.d;
  kernels.setup(d);
  const std::size_t vs = d.h1_vsize();
  const double* x = c.state.data();
  const double* v = x + vs;
  kernels.quadrature_update(x, v, x + 2 * vs, nullptr);
  kernels.set_split(split_elements(d, c.shared));
  check_two_passes((name + " F 1").c_str(), c, d.dim, other_tol, [&](double* y) { kernels.force(y); },
                   [&](double* y) { kernels.force_boundary(y); }, [&](double* y) { kernels.force_interior(y); });
  check_two_passes((name + " mass").c_str(), c, 1, other_tol, [&](double* y) { kernels.mass_h1(v, y); },
                   [&](double* y) { kernels.mass_h1_boundary(v, y, nullptr); },
                   [&](double* y) { kernels.mass_h1_interior(v, y); });
}

}  // namespace

// 4^3 elements: the x = 1 layer (16) and the y = 0 layer (16) share 4, so 28 boundary elements.
TEST(OverlapSplit, boundary_elements_are_those_touching_shared_dofs) {
  const Case c = make_case();
  const ElementSplit s = split_elements(c.d, c.shared);
  EXPECT_EQ(s.boundary.size(), 28u);
  EXPECT_EQ(s.interior.size(), 36u);
  // 9 x 9 nodes per face, a line of 9 shared by both.
  EXPECT_EQ(s.shared_dofs.size(), 9u * 9u * 2u - 9u);
  EXPECT_EQ(s.shared_dofs.size() + s.other_dofs.size(), static_cast<std::size_t>(c.d.nh1));
  for (int e : s.interior)
    for (int i = 0; i < c.d.nd; ++i) EXPECT_EQ(c.shared[c.d.h1_map[static_cast<std::size_t>(e) * c.d.nd + i]], 0);
}

TEST(OverlapSplit, wrong_mask_size_is_refused) {
  const Case c = make_case();
  EXPECT_THROW(split_elements(c.d, std::vector<char>(3, 0)), copa::RuntimeError);
}

// Serial scatters in element order: a dof with boundary and interior elements gets the boundary
// terms first, so it may differ by round-off (a few ulps of the largest term).
TEST(OverlapSplit, serial_two_passes_match_one_pass) {
  const Case c = make_case();
  auto k = make_serial_kernels();
  check_backend(*k, "serial", c, 1e-14);
}

#if defined(COPA_HAVE_OPENMP)
// OpenMP gathers each dof from the E-vector in one fixed order, in either pass: bitwise.
TEST(OverlapSplit, openmp_two_passes_equal_one_pass) {
  const Case c = make_case();
  auto k = make_openmp_kernels();
  check_backend(*k, "openmp", c, 0.0);
}
#endif
