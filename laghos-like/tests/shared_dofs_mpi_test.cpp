// SharedDofs over MPI ranks (README "Shared H1 dofs"): after sum(), every node holds the partials of
// all the ranks whose box holds it, added in ascending rank order, the same bits on every sharer,
// in one exchange; and each node is owned by exactly one rank (its lowest sharer), so that dots
// over owned nodes count it once. 2D and 3D, one and dim components; run on 3 and 8 ranks (faces,
// edges and corners shared by up to 2^dim ranks).
#include <mpi.h>

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "copa/halo.hpp"
#include "copa/mpi.hpp"
#include "copa/testing.hpp"
#include "partition.hpp"
#include "shared_dofs.hpp"

using namespace laghos;

namespace {

// The partial of rank r at global node g, component c: 1 on rank 1 and 2^-53 (1 + (g + c) % 3)
// elsewhere, so that a sum in another order differs in its last bits (h + h + 1 is not h + 1 + h).
double partial(int r, long long g, int c) { return r == 1 ? 1.0 : std::ldexp(1.0 + double((g + c) % 3), -53); }

struct NodeGrid {
  std::array<int, 3> lo{0, 0, 0}, n{1, 1, 1};  // first global node and nodes per axis of a box
};

NodeGrid node_grid(const Partition& p, int rank, int k) {
  const CellBox b = p.box(rank);
  NodeGrid g;
  for (int c = 0; c < p.dim; ++c) {
    g.lo[c] = b.lo[c] * k;
    g.n[c] = b.cells(c) * k + 1;
  }
  return g;
}

bool holds(const NodeGrid& g, const std::array<int, 3>& x) {
  for (int c = 0; c < 3; ++c)
    if (x[c] < g.lo[c] || x[c] >= g.lo[c] + g.n[c]) return false;
  return true;
}

}  // namespace

TEST(SharedDofsMpi, sum_gives_every_sharer_the_rank_ordered_total) {
  const int ranks = copa::mpi::size(), me = copa::mpi::rank();
  const int k = 2;
  for (int dim : {2, 3}) {
    const std::array<int, 3> cells = dim == 3 ? std::array<int, 3>{5, 4, 3} : std::array<int, 3>{7, 5, 1};
    const Partition p = make_partition(cells, dim, choose_grid(ranks, dim, {}));
    SharedDofs shared(p, k, me, copa::halo::Transport::host, copa::halo::Memory::host);
    std::array<long long, 3> N{1, 1, 1};
    for (int c = 0; c < dim; ++c) N[c] = static_cast<long long>(cells[c]) * k + 1;
    const NodeGrid mine = node_grid(p, me, k);
    const long long nh1 = static_cast<long long>(mine.n[0]) * mine.n[1] * mine.n[2];
    std::vector<std::array<int, 3>> at(nh1);
    std::vector<long long> global(nh1);
    for (int l = 0; l < mine.n[2]; ++l)
      for (int j = 0; j < mine.n[1]; ++j)
        for (int i = 0; i < mine.n[0]; ++i) {
          const long long d = i + static_cast<long long>(mine.n[0]) * (j + static_cast<long long>(mine.n[1]) * l);
          at[d] = {mine.lo[0] + i, mine.lo[1] + j, mine.lo[2] + l};
          global[d] = at[d][0] + N[0] * (at[d][1] + N[1] * at[d][2]);
        }
    for (int components : {1, dim}) {
      std::vector<double> field(nh1 * components), expected(nh1 * components);
      long long shared_by_more = 0;
      for (int c = 0; c < components; ++c)
        for (long long d = 0; d < nh1; ++d) {
          field[c * nh1 + d] = partial(me, global[d], c);
          int sharers = 0;
          double v = 0;
          for (int r = 0; r < ranks; ++r) {
            if (!holds(node_grid(p, r, k), at[d])) continue;
            v = sharers++ == 0 ? partial(r, global[d], c) : v + partial(r, global[d], c);
          }
          expected[c * nh1 + d] = v;
          shared_by_more += sharers > 2;
        }
      shared.sum(field.data(), components);
      EXPECT_EQ(std::memcmp(field.data(), expected.data(), field.size() * sizeof(double)), 0)
          << "dim " << dim << ", " << components << " components, rank " << me;
      if (ranks == 8) {
        EXPECT_GT(shared_by_more, 0) << "no node shared by more than two ranks";
      }
    }
    // Every global node owned once over all ranks.
    std::vector<int> owners(static_cast<std::size_t>(N[0] * N[1] * N[2]), 0);
    for (long long d = 0; d < nh1; ++d) owners[global[d]] += shared.owned_mask()[d] > 0 ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, owners.data(), static_cast<int>(owners.size()), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (std::size_t g = 0; g < owners.size(); ++g) ASSERT_EQ(owners[g], 1) << "global node " << g << ", dim " << dim;
  }
}

int main(int argc, char** argv) {
  copa::mpi::Session session(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new copa::testing::MpiRanksCheck);
  return RUN_ALL_TESTS();
}
