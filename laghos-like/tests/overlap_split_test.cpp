// --overlap's pieces on one rank, with a shared-dof mask made up here (two faces of the box, as a
// rank with neighbours in +x and -y would have): the boundary/interior split, and the host backends'
// two-pass F 1 against their one-pass force(). The contract (kernels.hpp): after force_boundary the
// shared dofs hold their F 1 sums; force_interior completes the others without touching them.
#include <cmath>
#include <cstdio>
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

// Two-pass F 1 vs one pass on `kernels`: shared dofs bitwise after the boundary pass (their
// elements are all boundary elements, summed in the same ascending order), untouched by the
// interior pass, and every dof within `other_tol` (relative to max |F 1|) at the end.
void check_two_passes(HydroKernels& kernels, const Case& c, double other_tol) {
  const Discretization& d = c.d;
  kernels.setup(d);
  const std::size_t vs = d.h1_vsize();
  const double* x = c.state.data();
  kernels.quadrature_update(x, x + vs, x + 2 * vs, nullptr);
  std::vector<double> one(vs), two(vs, std::nan(""));
  kernels.force(one.data());
  const ElementSplit split = split_elements(d, c.shared);
  kernels.set_split(split);
  kernels.force_boundary(two.data());
  for (int comp = 0; comp < d.dim; ++comp)
    for (int g : split.shared_dofs) {
      const std::size_t i = static_cast<std::size_t>(comp) * d.nh1 + g;
      EXPECT_TRUE(two[i] == one[i]);
      two[i] = 1234.5;  // a sentinel the interior pass must leave alone
    }
  kernels.force_interior(two.data());
  double diff = 0.0;
  for (int comp = 0; comp < d.dim; ++comp) {
    for (int g : split.shared_dofs) EXPECT_TRUE(two[static_cast<std::size_t>(comp) * d.nh1 + g] == 1234.5);
    for (int g : split.other_dofs) {
      const std::size_t i = static_cast<std::size_t>(comp) * d.nh1 + g;
      diff = std::fmax(diff, std::fabs(two[i] - one[i]));
    }
  }
  std::printf("%s: two-pass F 1 vs one pass, max |difference| / max |F 1| at the other dofs = %.3e\n",
              kernels.name().c_str(), diff / max_abs(one));
  EXPECT_TRUE(diff <= other_tol * max_abs(one));
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
  check_two_passes(*k, c, 1e-14);
}

#if defined(COPA_HAVE_OPENMP)
// OpenMP gathers each dof from the E-vector in one fixed order, in either pass: bitwise.
TEST(OverlapSplit, openmp_two_passes_equal_one_pass) {
  const Case c = make_case();
  auto k = make_openmp_kernels();
  check_two_passes(*k, c, 0.0);
}
#endif
