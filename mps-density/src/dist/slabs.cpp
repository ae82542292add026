#include "dist/slabs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "copa/errors.hpp"

namespace mps::dist {

int slab_axis(const Grid& g) { return g.dim == 3 && g.nz > g.nx ? 2 : 0; }

int column_count(const Grid& g, int axis) { return axis == 2 ? g.nz : g.nx; }

int column_of(const Grid& g, int axis, double x, double z) { return axis == 2 ? g.cz(z) : g.cx(x); }

std::vector<double> column_histogram(const Particles& ps, const Grid& g, int axis, std::size_t first, std::size_t last) {
  std::vector<double> h(column_count(g, axis), 0.0);
  for (std::size_t i = first; i < last; ++i) h[column_of(g, axis, ps.x[i], ps.z[i])] += 1.0;
  return h;
}

int Slabs::owner(int column) const {
  // cuts is ascending: the owner is the last rank whose first column is <= column.
  return static_cast<int>(std::upper_bound(cuts.begin() + 1, cuts.end() - 1, column) - (cuts.begin() + 1));
}

double Slabs::imbalance() const {
  double most = 0, total = 0;
  for (double w : work) most = std::max(most, w), total += w;
  return total > 0 ? most / (total / static_cast<double>(work.size())) : 1.0;
}

Slabs cut_slabs(const std::vector<double>& histogram, int axis, int ranks) {
  const int columns = static_cast<int>(histogram.size());
  if (ranks > columns)
    throw copa::InputError("MPI ranks: " + std::to_string(ranks) + " ranks but only " + std::to_string(columns) +
                           " bucket columns along the slab axis " + (axis == 2 ? "z" : "x") +
                           " (every rank needs at least one column; use fewer ranks or a larger set-up)");
  double total = 0;
  for (double c : histogram) total += c;
  Slabs s;
  s.axis = axis;
  s.cuts.assign(ranks + 1, 0);
  s.cuts[ranks] = columns;
  // Rank r starts at the first column whose preceding columns hold at least r N / ranks particles
  // (counts are integers in doubles: the comparison r N <= ranks * prefix is exact).
  double prefix = 0;
  int c = 0;
  for (int r = 1; r < ranks; ++r) {
    while (c < columns && prefix * ranks < r * total) prefix += histogram[c++];
    s.cuts[r] = c;
  }
  // At least one column per rank: push cuts up from the left, then down from the right.
  for (int r = 1; r < ranks; ++r) s.cuts[r] = std::max(s.cuts[r], s.cuts[r - 1] + 1);
  for (int r = ranks - 1; r >= 1; --r) s.cuts[r] = std::min(s.cuts[r], s.cuts[r + 1] - 1);
  s.work.assign(ranks, 0.0);
  for (int r = 0; r < ranks; ++r)
    for (int k = s.cuts[r]; k < s.cuts[r + 1]; ++k) s.work[r] += histogram[k];
  return s;
}

void slab_bounds(const Grid& g, const Slabs& s, int r, double width, double& lo, double& hi) {
  const double origin = s.axis == 2 ? g.z0 : g.x0;
  const double margin = width + 1e-9 * g.edge;
  lo = origin + s.cuts[r] * g.edge - margin;
  hi = origin + s.cuts[r + 1] * g.edge + margin;
}

LocalDomain local_domain(const Problem& global, const Slabs& s, int rank, double ghost_width) {
  const Grid& g = global.grid;
  const Particles& ps = global.particles;
  const std::size_t n = ps.size();
  auto reach = [&](int r, double& lo, double& hi) { slab_bounds(g, s, r, ghost_width, lo, hi); };
  std::vector<int> owner(n);
  for (std::size_t i = 0; i < n; ++i) owner[i] = s.owner(column_of(g, s.axis, ps.x[i], ps.z[i]));
  auto coordinate = [&](std::size_t i) { return s.axis == 2 ? ps.z[i] : ps.x[i]; };

  LocalDomain d;
  d.problem = global;
  d.problem.particles = Particles();
  d.problem.particles.dim = ps.dim;
  Particles& out = d.problem.particles;
  const int ranks = s.ranks();
  // Owned particles, global id order; their local index is their position in that order.
  std::vector<std::int64_t> local_of(n, -1);
  for (std::size_t i = 0; i < n; ++i)
    if (owner[i] == rank) {
      local_of[i] = static_cast<std::int64_t>(out.size());
      out.add(ps.x[i], ps.y[i], ps.z[i], static_cast<ParticleType>(ps.type[i]));
      d.global_id.push_back(static_cast<std::int64_t>(i));
    }
  d.owned = out.size();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int q = 0; q < ranks; ++q) {
    if (q == rank) continue;
    copa::halo::Link link;
    link.peer = q;
    double lo_me, hi_me, lo_q, hi_q;
    reach(rank, lo_me, hi_me);
    reach(q, lo_q, hi_q);
    for (std::size_t i = 0; i < n; ++i) {
      const double c = coordinate(i);
      // My particles that are q's ghosts, in global id order (q lists them in the same order).
      if (owner[i] == rank && c >= lo_q && c < hi_q) link.send.push_back(local_of[i]);
      if (owner[i] == q && c >= lo_me && c < hi_me) {
        link.recv.push_back(static_cast<std::int64_t>(out.size()));
        out.add(nan, nan, nan, fluid);
        d.global_id.push_back(static_cast<std::int64_t>(i));
      }
    }
    if (!link.send.empty() || !link.recv.empty()) d.links.push_back(std::move(link));
  }
  d.problem.ghosts = out.size() - d.owned;
  return d;
}

void pack_halo_field(const Particles& ps, std::vector<double>& field) {
  const std::size_t n = ps.size();
  field.resize(halo_components * n);
  for (std::size_t i = 0; i < n; ++i) {
    field[i] = ps.x[i];
    field[n + i] = ps.y[i];
    field[2 * n + i] = ps.z[i];
    field[3 * n + i] = ps.type[i];
  }
}

void unpack_ghosts(const std::vector<double>& field, std::size_t owned, Particles& ps) {
  const std::size_t n = ps.size();
  for (std::size_t i = owned; i < n; ++i) {
    ps.x[i] = field[i];
    ps.y[i] = field[n + i];
    ps.z[i] = field[2 * n + i];
    ps.type[i] = static_cast<std::uint8_t>(field[3 * n + i]);
  }
}

}  // namespace mps::dist
