#include "amr/amr_ranks.hpp"

#include <algorithm>

#include "amr/amr_subcycle.hpp"
#include "copa/errors.hpp"

namespace ro::amr {

std::vector<std::int64_t> base_work(const Tree& t, bool subcycle) {
  std::vector<std::int64_t> base(t.noct()), work(t.octs_at(0), 0);
  for (int l = 0; l <= t.max_level; ++l)
    for (std::int64_t o = t.level_begin[l]; o < t.level_begin[l + 1]; ++o) {
      base[o] = l == 0 ? o : base[t.father[o] / 8];
      std::int64_t leaves = 0;
      for (int c = 0; c < 8; ++c) leaves += t.son[o * 8 + c] < 0;
      work[base[o]] += leaves * level_substeps(l, subcycle);
    }
  return work;
}

AmrPartition partition_tree(const Tree& t, int ranks, bool subcycle) {
  const std::int64_t nbase = t.octs_at(0);
  if (nbase < ranks)
    throw copa::InputError("--levels: " + std::to_string(ranks) + " MPI ranks for " + std::to_string(nbase) +
                           " base octs (each rank needs at least one base oct)");
  const std::vector<std::int64_t> work = base_work(t, subcycle);
  std::vector<std::int64_t> prefix(nbase + 1, 0);
  for (std::int64_t i = 0; i < nbase; ++i) prefix[i + 1] = prefix[i] + work[i];
  const std::int64_t total = prefix[nbase];
  AmrPartition p;
  p.cut.assign(ranks + 1, 0);
  p.cut[ranks] = nbase;
  for (int r = 1; r < ranks; ++r) {
    // First i with prefix[i] * ranks >= r * total (exact integer comparison).
    std::int64_t i = std::lower_bound(prefix.begin(), prefix.end(), 0, [&](std::int64_t v, int) {
                       return static_cast<__int128>(v) * ranks < static_cast<__int128>(r) * total;
                     }) - prefix.begin();
    i = std::max(i, p.cut[r - 1] + 1);
    i = std::min(i, nbase - (ranks - r));
    p.cut[r] = i;
  }
  return p;
}

double work_imbalance(const Tree& t, const AmrPartition& p, bool subcycle) {
  const std::vector<std::int64_t> work = base_work(t, subcycle);
  std::int64_t total = 0, most = 0;
  for (int r = 0; r < p.ranks(); ++r) {
    std::int64_t w = 0;
    for (std::int64_t b = p.cut[r]; b < p.cut[r + 1]; ++b) w += work[b];
    total += w;
    most = std::max(most, w);
  }
  return total > 0 ? double(most) * p.ranks() / double(total) : 1.0;
}

void owned_ranges(const Tree& t, const AmrPartition& p, int r, std::vector<std::int64_t>& begin,
                  std::vector<std::int64_t>& end) {
  begin.assign(t.max_level + 1, 0);
  end.assign(t.max_level + 1, 0);
  const std::int64_t nbase = t.octs_at(0);
  for (int l = 0; l <= t.max_level; ++l) {
    // Level l's keys are its base oct's key followed by 3 bits per level, sorted.
    const auto first = t.key.begin() + t.level_begin[l], last = t.key.begin() + t.level_begin[l + 1];
    const auto bound = [&](std::int64_t b) {
      if (b >= nbase) return t.level_begin[l + 1];
      return static_cast<std::int64_t>(std::lower_bound(first, last, t.key[b] << (3 * l)) - t.key.begin());
    };
    begin[l] = bound(p.cut[r]);
    end[l] = bound(p.cut[r + 1]);
  }
}

std::vector<std::int32_t> ghost_octs(const Tree& t, int l) {
  std::vector<std::int32_t> g;
  const auto add = [&](std::int64_t o) {
    if (!t.owns(o)) g.push_back(static_cast<std::int32_t>(o));
  };
  for (std::int64_t o = t.owned_first(l); o < t.owned_last(l); ++o) {
    const int oc[3] = {t.coord[0][o], t.coord[1][o], t.coord[2][o]};
    // update_oct's slots: the oct itself across a reflecting or outflow face, periodic wraps.
    for (int sz = -1; sz <= 1; ++sz)
      for (int sy = -1; sy <= 1; ++sy)
        for (int sx = -1; sx <= 1; ++sx) {
          const int s[3] = {sx, sy, sz};
          int c[3];
          for (int a = 0; a < 3; ++a) {
            const int n = t.cells_at(l, a) / 2;
            c[a] = oc[a] + s[a];
            if (c[a] < 0 || c[a] >= n) c[a] = t.base->bc[a] == Boundary::periodic ? (c[a] + n) % n : oc[a];
          }
          const std::int32_t so = t.find_oct(l, c[0], c[1], c[2]);
          if (so >= 0) {
            add(so);
            continue;
          }
          // prolong_from(l - 1, c): the level-(l-1) cell c and its six face neighbours.
          for (int k = 0; k < 7; ++k) {
            std::array<int, 3> q = {c[0], c[1], c[2]};
            if (k > 0) q[(k - 1) / 2] += (k - 1) % 2 ? 1 : -1;
            add(locate(t, l - 1, q).cell / 8);
          }
        }
  }
  std::sort(g.begin(), g.end());
  g.erase(std::unique(g.begin(), g.end()), g.end());
  return g;
}

}  // namespace ro::amr
