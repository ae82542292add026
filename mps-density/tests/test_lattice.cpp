// Lattice constants against the table of references/mps.md, and the lattice n0 through every
// host strategy.
#include "copa/testing.hpp"
#include "kernels.hpp"
#include "reference.hpp"

TEST(Lattice, lattice_constants_match_table) {
  struct Row { int dim; double re, n0, lambda0; int nb; };
  const Row rows[] = {{2, 2.1, 6.5397, 1.3884, 12}, {3, 2.1, 14.4186, 1.7017, 32}, {3, 3.1, 54.3212, 3.2434, 122}, {3, 4.0, 123.9916, 5.2120, 250}};
  for (const auto& r : rows) {
    const auto c = mps::lattice_constants(r.dim, r.re);
    EXPECT_TRUE(std::fabs(c.n0 - r.n0) <= 0.5e-4);  // the table has 4 decimals
    EXPECT_TRUE(std::fabs(c.lambda0 - r.lambda0) <= 0.5e-4);
    EXPECT_TRUE(c.neighbours == r.nb);
  }
}

TEST(Lattice, lattice_interior_reproduces_n0) {
  for (int dim : {2, 3})
    for (double re : {2.1, 3.1, 4.0}) {
      const auto pr = mps::lattice_problem(dim, re, dim == 2 ? 20 : 12);
      const auto c = mps::lattice_constants(dim, re);
      for (auto b : {copa::Backend::serial}) {
        mps::KernelOptions ko;
        ko.strategy = mps::Strategy::sorted_particle;
        auto k = mps::make_kernels(b, ko);
        k->load(pr, re);
        k->prepare_neighbours(true);
        k->number_density(re);
        const auto n = k->get(mps::Field::n);
        const int m = dim == 2 ? 20 : 12, lo = static_cast<int>(std::ceil(re)), hi = m - 1 - lo;
        int checked = 0;
        for (std::size_t i = 0; i < n.size(); ++i) {
          const auto& p = pr.particles;
          bool in = p.x[i] >= lo && p.x[i] <= hi && p.y[i] >= lo && p.y[i] <= hi && (dim == 2 || (p.z[i] >= lo && p.z[i] <= hi));
          if (!in) continue;
          ++checked;
          COPA_EXPECT_NEAR_REL(n[i], c.n0, 1e-14);
        }
        EXPECT_TRUE(checked > 0);
      }
    }
}
