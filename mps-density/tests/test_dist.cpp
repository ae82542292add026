// Slab decomposition and ghost particles without MPI: the ranks' local domains are built in one
// process, each ghost is filled from its owner through the links (what the halo exchange does), and
// every owned particle's number density must equal the one-rank value.
#include <algorithm>
#include <cmath>

#include "copa/errors.hpp"
#include "copa/testing.hpp"
#include "dist/gather.hpp"
#include "dist/slabs.hpp"
#include "kernels.hpp"

namespace {

std::vector<double> density(const mps::Problem& pr, mps::Strategy s) {
  mps::KernelOptions ko;
  ko.strategy = s;
  auto k = mps::make_kernels(copa::Backend::serial, ko);
  k->load(pr, pr.re);
  k->prepare_neighbours(true);
  k->number_density(pr.re);
  return k->get(mps::Field::n);
}

mps::dist::Slabs slabs_of(const mps::Problem& pr, int ranks) {
  const int axis = mps::dist::slab_axis(pr.grid);
  const auto& ps = pr.particles;
  return mps::dist::cut_slabs(mps::dist::column_histogram(ps, pr.grid, axis, 0, ps.size()), axis, ranks);
}

// The ghost fill of every rank from its peers' owned particles: recv[k] of rank r's link to q takes
// the particle at send[k] of q's link to r.
void fill_ghosts(std::vector<mps::dist::LocalDomain>& d) {
  for (auto& me : d)
    for (const auto& link : me.links) {
      const auto& peer = d[link.peer];
      const auto back = std::find_if(peer.links.begin(), peer.links.end(),
                                     [&](const copa::halo::Link& l) { return l.peer == static_cast<int>(&me - d.data()); });
      EXPECT_TRUE(back != peer.links.end());
      EXPECT_TRUE(back->send.size() == link.recv.size());
      std::vector<double> from, to;
      mps::dist::pack_halo_field(peer.problem.particles, from);
      mps::dist::pack_halo_field(me.problem.particles, to);
      const std::size_t nf = peer.problem.particles.size(), nt = me.problem.particles.size();
      for (std::size_t k = 0; k < link.recv.size(); ++k)
        for (int c = 0; c < mps::dist::halo_components; ++c) to[c * nt + link.recv[k]] = from[c * nf + back->send[k]];
      mps::dist::unpack_ghosts(to, me.owned, me.problem.particles);
    }
}

// Largest relative difference of the owned densities of `ranks` slabs against one rank.
double distributed_error(const mps::Problem& pr, int ranks, double ghost_width, mps::Strategy s) {
  const auto one = density(pr, s);
  const auto slabs = slabs_of(pr, ranks);
  std::vector<mps::dist::LocalDomain> d;
  for (int r = 0; r < ranks; ++r) d.push_back(mps::dist::local_domain(pr, slabs, r, ghost_width));
  fill_ghosts(d);
  double err = 0;
  std::size_t owned = 0;
  for (const auto& dom : d) {
    const auto n = density(dom.problem, s);
    owned += dom.owned;
    for (std::size_t i = 0; i < dom.owned; ++i) {
      const double ref = one[dom.global_id[i]];
      err = std::max(err, std::fabs(n[i] - ref) / std::fabs(ref));
    }
  }
  EXPECT_TRUE(owned == pr.particles.size());
  return err;
}

}  // namespace

TEST(Dist, dist_cuts_balance_and_keep_a_column_per_rank) {
  const auto pr = mps::pflow_problem(224910);
  const int axis = mps::dist::slab_axis(pr.grid);
  const auto h = mps::dist::column_histogram(pr.particles, pr.grid, axis, 0, pr.particles.size());
  const double N = static_cast<double>(pr.particles.size()), hmax = *std::max_element(h.begin(), h.end());
  for (int ranks : {2, 3, 5}) {
    const auto s = mps::dist::cut_slabs(h, axis, ranks);
    double total = 0;
    for (int r = 0; r < ranks; ++r) {
      EXPECT_TRUE(s.cuts[r + 1] > s.cuts[r]);
      total += s.work[r];
    }
    EXPECT_TRUE(total == static_cast<double>(pr.particles.size()));
    // Rank r starts where the running count first reaches r N / ranks, so it holds less than
    // N / ranks plus one column: imbalance <= 1 + hmax ranks / N.
    EXPECT_TRUE(s.imbalance() <= 1.0 + hmax * ranks / N);
  }
  // All particles in one column: the cuts still give each rank one column (empty ones included).
  std::vector<double> one(4, 0.0);
  one[1] = 100;
  const auto s = mps::dist::cut_slabs(one, 0, 4);
  for (int r = 0; r < 4; ++r) EXPECT_TRUE(s.cuts[r + 1] - s.cuts[r] == 1);
  EXPECT_THROW(mps::dist::cut_slabs(one, 0, 5), copa::InputError);
}

TEST(Dist, dist_density_equals_one_rank) {
  const auto lattice2 = mps::lattice_problem(2, 2.1, 40);
  const auto lattice3 = mps::lattice_problem(3, 4.0, 16);
  const auto cloud = mps::random_cloud_problem(3, 8000, 20.0, 2.1, 12345u);
  for (const auto* pr : {&lattice2, &lattice3, &cloud})
    for (int ranks : {2, 3})
      for (auto s : {mps::Strategy::sorted_particle, mps::Strategy::fine_rows, mps::Strategy::brute})
        EXPECT_TRUE(distributed_error(*pr, ranks, pr->re, s) <= 1e-12);
}

// The test has teeth: ghosts from a layer narrower than r_e leave the densities at the cuts short.
TEST(Dist, dist_narrow_ghost_layer_is_caught) {
  const auto pr = mps::lattice_problem(3, 2.1, 16);
  EXPECT_TRUE(distributed_error(pr, 2, 0.5 * pr.re, mps::Strategy::sorted_particle) > 1e-3);
}

// Rank 0's gather puts values in id order and refuses an id that is missing or repeated (a slab
// bug would otherwise pass unnoticed as zeros).
TEST(Dist, dist_gather_by_id_checks_every_id) {
  const auto g = mps::dist::gather_by_id({30.0, 10.0, 20.0}, {2, 0, 1}, 3);
  EXPECT_TRUE(g == std::vector<double>({10.0, 20.0, 30.0}));
  EXPECT_THROW(mps::dist::gather_by_id({1.0, 2.0, 3.0}, {0, 0, 1}, 3), copa::RuntimeError);
  EXPECT_THROW(mps::dist::gather_by_id({1.0, 2.0}, {0, 1}, 3), copa::RuntimeError);
}
