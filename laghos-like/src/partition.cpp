#include "partition.hpp"

#include <algorithm>
#include <sstream>

#include "copa/errors.hpp"

namespace laghos {

std::array<int, 3> balanced_grid(int ranks, int dim) {
  std::vector<int> primes;
  for (int n = ranks, p = 2; n > 1;) {
    if (n % p == 0) {
      primes.push_back(p);
      n /= p;
    } else {
      p += (p * p > n) ? n - p : 1;  // n itself is prime once p^2 > n
    }
  }
  std::array<int, 3> g{1, 1, 1};
  for (auto it = primes.rbegin(); it != primes.rend(); ++it) *std::min_element(g.begin(), g.begin() + dim) *= *it;
  for (int i = 0; i < dim; ++i)
    for (int j = i + 1; j < dim; ++j)
      if (g[j] > g[i]) std::swap(g[i], g[j]);
  return g;
}

std::array<int, 3> choose_grid(int ranks, int dim, const std::vector<int>& requested) {
  if (requested.empty()) return balanced_grid(ranks, dim);
  if (static_cast<int>(requested.size()) != dim)
    throw copa::InputError("--proc-grid: give " + std::to_string(dim) + " values (ranks per axis) for this " +
                           std::to_string(dim) + "D mesh");
  std::array<int, 3> g{1, 1, 1};
  long long product = 1;
  for (int c = 0; c < dim; ++c) {
    if (requested[c] < 1) throw copa::InputError("--proc-grid: every value must be at least 1");
    g[c] = requested[c];
    product *= requested[c];
  }
  if (product != ranks)
    throw copa::InputError("--proc-grid: the grid holds " + std::to_string(product) + " ranks but the run has " +
                           std::to_string(ranks));
  return g;
}

std::array<int, 3> Partition::coords(int rank) const {
  return {rank % grid[0], (rank / grid[0]) % grid[1], rank / (grid[0] * grid[1])};
}

CellBox Partition::box(int rank) const {
  const auto p = coords(rank);
  CellBox b;
  for (int c = 0; c < 3; ++c) {
    b.lo[c] = c < dim ? cut[c][p[c]] : 0;
    b.hi[c] = c < dim ? cut[c][p[c] + 1] : 1;
  }
  return b;
}

std::string Partition::describe() const {
  std::ostringstream os;
  for (int c = 0; c < dim; ++c) os << (c ? "x" : "") << grid[c];
  os << " ranks, ";
  for (int c = 0; c < dim; ++c) os << (c ? "x" : "") << global_cells[c];
  os << " zones";
  return os.str();
}

Partition make_partition(const std::array<int, 3>& global_cells, int dim, const std::array<int, 3>& grid) {
  Partition p;
  p.dim = dim;
  p.grid = grid;
  p.global_cells = global_cells;
  for (int c = 0; c < dim; ++c) {
    const int n = global_cells[c], parts = grid[c];
    if (parts > n)
      throw copa::InputError("--proc-grid: " + std::to_string(parts) + " ranks along axis " + std::to_string(c) +
                             " but the mesh has only " + std::to_string(n) +
                             " zones there (every rank needs at least one zone per axis)");
    p.cut[c].resize(parts + 1);
    p.cut[c][0] = 0;
    for (int i = 0; i < parts; ++i) p.cut[c][i + 1] = p.cut[c][i] + n / parts + (i < n % parts ? 1 : 0);
  }
  return p;
}

CartesianMesh local_mesh(const CartesianMesh& global, const CellBox& box) {
  CartesianMesh m;
  m.dim = global.dim;
  for (int c = 0; c < global.dim; ++c)
    m.nodes[c].assign(global.nodes[c].begin() + box.lo[c], global.nodes[c].begin() + box.hi[c] + 1);
  return m;
}

std::vector<std::int64_t> global_element_ids(const Partition& p, int rank) {
  const CellBox box = p.box(rank);
  const auto& G = p.global_cells;
  std::vector<std::int64_t> ids;
  ids.reserve(static_cast<std::size_t>(box.cells(0)) * box.cells(1) * box.cells(2));
  for (int k = box.lo[2]; k < box.hi[2]; ++k)
    for (int j = box.lo[1]; j < box.hi[1]; ++j)
      for (int i = box.lo[0]; i < box.hi[0]; ++i) ids.push_back(i + std::int64_t(G[0]) * (j + std::int64_t(G[1]) * k));
  return ids;
}

}  // namespace laghos
