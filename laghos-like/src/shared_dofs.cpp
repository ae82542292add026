#include "shared_dofs.hpp"

#include <algorithm>

namespace laghos {

namespace {

// H1 node range [lo, hi] (inclusive) of a box along each axis.
struct NodeBox {
  std::array<int, 3> lo{0, 0, 0}, hi{0, 0, 0};
};

NodeBox node_box(const Partition& p, int rank, int k) {
  const CellBox b = p.box(rank);
  NodeBox n;
  for (int c = 0; c < p.dim; ++c) {
    n.lo[c] = b.lo[c] * k;
    n.hi[c] = b.hi[c] * k;
  }
  return n;
}

}  // namespace

SharedDofs::SharedDofs(const Partition& p, int k, int rank, copa::halo::Transport transport,
                       copa::halo::Memory memory) {
  const int dim = p.dim;
  const NodeBox mine = node_box(p, rank, k);
  std::array<int, 3> n{1, 1, 1};
  for (int c = 0; c < dim; ++c) n[c] = mine.hi[c] - mine.lo[c] + 1;
  const long long nh1 = static_cast<long long>(n[0]) * n[1] * n[2];
  const auto local = [&](const std::array<int, 3>& g) {
    return (g[0] - mine.lo[0]) + static_cast<long long>(n[0]) * ((g[1] - mine.lo[1]) + static_cast<long long>(n[1]) * (g[2] - mine.lo[2]));
  };
  // The owner of a node is the lowest rank whose box holds it: along each axis the lowest part
  // whose cell range reaches the node (rank = px + gx (py + gy pz) grows with every coordinate).
  const auto owner = [&](const std::array<int, 3>& g) {
    std::array<int, 3> part{0, 0, 0};
    for (int c = 0; c < dim; ++c) {
      const auto& cut = p.cut[c];
      part[c] = static_cast<int>(std::lower_bound(cut.begin() + 1, cut.end(), (g[c] + k - 1) / k) - (cut.begin() + 1));
    }
    return part[0] + p.grid[0] * (part[1] + p.grid[1] * part[2]);
  };

  owned_.assign(nh1, 1.0);
  std::vector<copa::halo::Link> links;
  shared_.assign(nh1, 0);
  for (int r = 0; r < p.ranks(); ++r) {
    if (r == rank) continue;
    const NodeBox other = node_box(p, r, k);
    NodeBox both;
    bool touch = true;
    for (int c = 0; c < dim; ++c) {
      both.lo[c] = std::max(mine.lo[c], other.lo[c]);
      both.hi[c] = std::min(mine.hi[c], other.hi[c]);
      touch = touch && both.lo[c] <= both.hi[c];
    }
    if (!touch) continue;
    copa::halo::Link link{r, {}, {}};
    // Both ranks walk the common nodes in the same (global lexicographic) order, so one's send
    // list matches the other's receive list.
    std::array<int, 3> g{0, 0, 0};
    for (g[2] = both.lo[2]; g[2] <= both.hi[2]; ++g[2])
      for (g[1] = both.lo[1]; g[1] <= both.hi[1]; ++g[1])
        for (g[0] = both.lo[0]; g[0] <= both.hi[0]; ++g[0]) {
          const long long i = local(g);
          shared_[i] = 1;
          if (owner(g) < rank) owned_[i] = 0.0;
          link.send.push_back(i);
          link.recv.push_back(i);
        }
    ++peers_;
    links.push_back(link);
  }
  for (long long i = 0; i < nh1; ++i) {
    owned_count_ += owned_[i] > 0 ? 1 : 0;
    shared_nodes_ += shared_[i];
  }
  for (int v = 0; v < 2; ++v) {
    const copa::halo::FieldLayout layout{v == 0 ? 1 : dim, nh1};
    exchange_[v] = std::make_unique<copa::halo::Exchange>(links, layout, transport, memory,
                                                          copa::halo::Combine::add_in_rank_order);
  }
}

void SharedDofs::sum(double* field, int components) {
  start_sum(field, components);
  finish_sum(field, components);
}

void* SharedDofs::fork(int components) { return exchange_[components == 1 ? 0 : 1]->fork(); }

void SharedDofs::start_sum(double* field, int components) { exchange_[components == 1 ? 0 : 1]->start(field); }

void SharedDofs::finish_sum(double* field, int components) { exchange_[components == 1 ? 0 : 1]->finish(field); }

std::size_t SharedDofs::bytes_sent(int components) const { return exchange_[components == 1 ? 0 : 1]->bytes_sent(); }

std::size_t SharedDofs::bytes_received(int components) const {
  return exchange_[components == 1 ? 0 : 1]->bytes_received();
}

}  // namespace laghos
