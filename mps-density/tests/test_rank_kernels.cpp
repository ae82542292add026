// The pieces of the distributed simulation that one process can check: the owned-only dot product
// of the host kernels (the CG's dots over ranks), and the rank wrapper on a single rank, which must
// run the dam break as the plain kernels do (its migration, ghost refresh and dots are then no-ops
// up to the summation order inside a bucket, see below).
#include <cmath>

#include "copa/backend.hpp"
#include "copa/testing.hpp"
#include "copa/timing.hpp"
#include "dist/rank_kernels.hpp"
#include "dist/slabs.hpp"
#include "kernels.hpp"
#include "simulation.hpp"

namespace {

std::vector<copa::Backend> host_backends() {
  std::vector<copa::Backend> out;
  for (auto b : copa::built_backends())
    if (!copa::is_gpu(b)) out.push_back(b);
  return out;
}

}  // namespace

// The kernels reorder their storage by bucket: dot_owned must select by load index, not storage.
TEST(RankKernels, rank_dot_owned_sums_the_owned_load_indices) {
  const auto pr = mps::random_cloud_problem(3, 3000, 14.0, 2.1, 7u);
  const std::size_t n = pr.particles.size();
  std::vector<double> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = std::sin(0.37 * static_cast<double>(i)) + 1.5;
    b[i] = std::cos(0.11 * static_cast<double>(i)) - 0.25;
  }
  for (auto be : host_backends()) {
    auto k = mps::make_kernels(be, mps::KernelOptions{});
    k->load(pr, pr.re);
    k->prepare_neighbours(true);
    k->set(mps::Field::rhs, a);
    k->set(mps::Field::res, b);
    for (std::size_t owned : {std::size_t{0}, std::size_t{1}, n / 3, n - 1, n}) {
      double ref = 0;
      for (std::size_t i = 0; i < owned; ++i) ref += a[i] * b[i];
      const double got = k->dot_owned(mps::Field::rhs, mps::Field::res, owned);
      EXPECT_TRUE(std::fabs(got - ref) <= 1e-12 * static_cast<double>(n));
    }
    // All particles owned: the same fixed blocks as dot, so the same bits.
    EXPECT_TRUE(k->dot_owned(mps::Field::rhs, mps::Field::res, n) == k->dot(mps::Field::rhs, mps::Field::res));
  }
}

// One rank through the wrapper: a rebuild (nothing migrates: one slab) reloads the kernels in id
// order, so the order inside a bucket differs from the plain run's (which keeps the previous
// step's bucket order): results agree to round-off, not bitwise. The default margin (1 l0) rebuilds
// only now and then; a thin one (0.02 l0) rebuilds at nearly every check, inside steps too
// (before the second rebucketing and the number density), which must give the same result.
TEST(RankKernels, rank_wrapper_on_one_rank_runs_the_dam_break_as_the_plain_kernels) {
  const auto pr = mps::dambreak_problem(2, 0.1, 0.02, 0);
  mps::SimParams sp;
  sp.cg_tol = 1e-12;
  const int axis = mps::dist::slab_axis(pr.grid);
  const auto& ps = pr.particles;
  const auto slabs = mps::dist::cut_slabs(mps::dist::column_histogram(ps, pr.grid, axis, 0, ps.size()), axis, 1);
  constexpr int steps = 30;
  for (auto be : host_backends()) {
    mps::Particles plain;
    {
      auto k = mps::make_kernels(be, mps::KernelOptions{});
      mps::Simulation sim(*k, pr, sp);
      copa::Profile profile;
      copa::HostTimer timer(profile);
      for (int s = 0; s < steps; ++s) sim.step(timer);
      k->store(plain);
    }
    std::size_t rebuilds_default = 0;
    for (double margin : {1.0, 0.02}) {
      mps::dist::RankOptions ro;
      ro.margin = margin;
      mps::dist::RankKernels rk(mps::make_kernels(be, mps::KernelOptions{}), slabs, ro);
      mps::Simulation sim(rk, pr, sp);
      copa::Profile profile;
      copa::HostTimer timer(profile);
      for (int s = 0; s < steps; ++s) sim.step(timer);
      mps::Particles end;
      rk.store(end);
      EXPECT_TRUE(rk.owned() == ps.size() && rk.ghosts() == 0);
      EXPECT_TRUE(rk.migrations().size() == rk.rebuilds().size());
      for (double m : rk.migrations()) EXPECT_TRUE(m == 0);
      EXPECT_TRUE(rk.census().particles == static_cast<long long>(ps.size()));
      std::size_t mid_step = 0;
      for (const auto& r : rk.rebuilds()) mid_step += r.mid_step;
      if (margin == 1.0) {
        rebuilds_default = rk.rebuilds().size();
        EXPECT_TRUE(rebuilds_default >= 1 && rebuilds_default < steps);
      } else {
        EXPECT_TRUE(rk.rebuilds().size() > rebuilds_default);
        EXPECT_TRUE(mid_step >= 1);
      }
      EXPECT_TRUE(end.size() == plain.size());
      double diff = 0;
      for (std::size_t i = 0; i < end.size(); ++i)
        diff = std::max({diff, std::fabs(end.x[i] - plain.x[i]), std::fabs(end.y[i] - plain.y[i]),
                         std::fabs(end.p[i] - plain.p[i]) * 1e-6});
      EXPECT_TRUE(diff <= 1e-9);
    }
    // The particles did move (the comparison is not between two resting states).
    double moved = 0;
    for (std::size_t i = 0; i < ps.size(); ++i) moved = std::max(moved, std::fabs(plain.x[i] - ps.x[i]));
    EXPECT_TRUE(moved > 0.1 * pr.l0);
  }
}
