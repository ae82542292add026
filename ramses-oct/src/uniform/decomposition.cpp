#include "uniform/decomposition.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "copa/errors.hpp"

namespace ro {

int Partition::owner(std::int64_t global_oct) const {
  return static_cast<int>(std::upper_bound(split.begin(), split.end(), global_oct) - split.begin()) - 1;
}

std::string Partition::describe() const {
  std::ostringstream os;
  os << ranks << " rank" << (ranks > 1 ? "s" : "") << ", contiguous Morton ranges of ";
  for (int r = 0; r < ranks; ++r) os << (r ? "/" : "") << owned(r);
  os << " octs";
  return os.str();
}

Partition partition_mesh(const OctMesh& global, int ranks) {
  Partition p;
  p.ranks = ranks;
  if (global.noct < ranks)
    throw copa::InputError("MPI ranks: " + std::to_string(ranks) + " ranks for " + std::to_string(global.noct) +
                           " octs: a rank would get no cells; use fewer ranks or a larger --n");
  // Whole groups when every rank can get at least one, else single octs (OpenMP then updates one
  // oct per tile, and the GPU runs subgrid6).
  const std::int64_t unit = global.whole_groups() && global.noct / 8 >= ranks ? 8 : 1;
  const std::int64_t units = global.noct / unit;
  p.split.resize(ranks + 1);
  for (int r = 0; r <= ranks; ++r) p.split[r] = unit * ((units * r) / ranks);
  return p;
}

void neighbourhood(const OctMesh& m, std::int64_t o, std::int64_t out[27]) {
  for (int sz = 0; sz < 3; ++sz)
    for (int sy = 0; sy < 3; ++sy)
      for (int sx = 0; sx < 3; ++sx) {
        const int s[3] = {sx, sy, sz};
        std::int64_t n = o;
        for (int a = 0; a < 3; ++a)
          if (s[a] != 1) n = m.nbor[face_index(a, s[a] == 2)][n];
        out[sx + 3 * (sy + 3 * sz)] = n;
      }
}

LocalDomain build_local_domain(const OctMesh& g, const Partition& p, int rank) {
  LocalDomain d;
  const std::int64_t lo = p.split[rank], hi = p.split[rank + 1];
  auto owned = [&](std::int64_t o) { return o >= lo && o < hi; };
  // Ghosts: neighbours of owned octs owned elsewhere. Per peer, the owned octs it needs (the
  // relation is symmetric: B is in A's neighbourhood iff A is in B's, also across reflecting faces,
  // where the hop stays on the boundary oct).
  std::vector<std::int64_t> ghosts;
  std::map<int, std::vector<std::int64_t>> send_octs;
  std::int64_t nb[27];
  for (std::int64_t o = lo; o < hi; ++o) {
    neighbourhood(g, o, nb);
    for (std::int64_t n : nb)
      if (!owned(n)) {
        ghosts.push_back(n);
        send_octs[p.owner(n)].push_back(o);
      }
  }
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  d.ghost_global = ghosts;
  const std::int64_t nown = hi - lo, nloc = nown + std::int64_t(ghosts.size());
  auto local_of = [&](std::int64_t o) -> std::int64_t {
    if (owned(o)) return o - lo;
    const auto it = std::lower_bound(ghosts.begin(), ghosts.end(), o);
    return (it != ghosts.end() && *it == o) ? nown + (it - ghosts.begin()) : -1;
  };
  OctMesh& m = d.mesh;
  m.cells = g.cells;
  m.octs = g.octs;
  m.bc = g.bc;
  m.dx = g.dx;
  m.level = g.level;
  m.order = g.order;
  m.dense = g.dense;
  m.noct = nloc;
  m.nowned = nown;
  m.first_global = lo;
  m.oct_level.assign(nloc, static_cast<std::int8_t>(g.level));
  for (int a = 0; a < 3; ++a) m.coord[a].resize(nloc);
  for (int f = 0; f < 6; ++f) m.nbor[f].resize(nloc);
  for (std::int64_t l = 0; l < nloc; ++l) {
    const std::int64_t o = l < nown ? lo + l : ghosts[l - nown];
    for (int a = 0; a < 3; ++a) m.coord[a][l] = g.coord[a][o];
    for (int f = 0; f < 6; ++f) m.nbor[f][l] = static_cast<std::int32_t>(local_of(g.nbor[f][o]));
  }
  // Links: receive the ghosts of each peer, send it the owned octs it holds as ghosts; both in
  // ascending global order, 8 cells per oct.
  std::map<int, std::vector<std::int64_t>> recv_octs;
  for (std::int64_t o : ghosts) recv_octs[p.owner(o)].push_back(o);
  for (auto& [peer, octs] : send_octs) {
    std::sort(octs.begin(), octs.end());
    octs.erase(std::unique(octs.begin(), octs.end()), octs.end());
    copa::halo::Link link;
    link.peer = peer;
    for (std::int64_t o : octs)
      for (int c = 0; c < 8; ++c) link.send.push_back((o - lo) * 8 + c);
    for (std::int64_t o : recv_octs[peer])
      for (int c = 0; c < 8; ++c) link.recv.push_back(local_of(o) * 8 + c);
    d.links.push_back(std::move(link));
  }
  return d;
}

}  // namespace ro
