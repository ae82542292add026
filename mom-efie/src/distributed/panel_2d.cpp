#include "distributed/panel_2d.hpp"

#include <cmath>
#include <string>

#include "copa/errors.hpp"

namespace efie::dist {

void factor_panel_2d(const BlockCyclic& l, const GridLines& lines, long k0, long w, complex* a, long ldp, long* pivots) {
  const long nb = l.nb;
  const int P = l.grid.p, me = l.myrow;
  const long first = numroc(k0, nb, me, P), rows = l.local_rows - first;
  auto row_owner = [&](long g) { return int((g / nb) % P); };
  auto local = [&](long g) { return l.local_row(g) - first; };  // panel row of a global row this rank owns
  std::vector<complex> candidate(static_cast<std::size_t>(w) + 1), old_row(static_cast<std::size_t>(w));
  for (long j = 0; j < w; ++j) {
    const long gj = k0 + j, from = numroc(gj, nb, me, P) - first;
    double best = -1;
    long at = -1;
    for (long i = from; i < rows; ++i) {
      const complex v = a[i + j * ldp];
      const double m = std::abs(v.real()) + std::abs(v.imag());
      if (m > best) {  // strictly larger: the first (smallest global row) of equal candidates
        best = m;
        at = i;
      }
    }
    candidate[0] = complex(best, at >= 0 ? double(l.global_row(first + at)) : -1.0);
    for (long c = 0; c < w; ++c) candidate[std::size_t(c) + 1] = at >= 0 ? a[at + c * ldp] : complex(0);
    lines.column_maxloc(candidate.data(), w);
    if (!(candidate[0].real() > 0))
      throw copa::RuntimeError("the Pliris-style LU's panel at column " + std::to_string(gj) + " has no nonzero pivot: singular EFIE matrix");
    const long gp = long(candidate[0].imag());
    pivots[j] = gp;
    const int owner_j = row_owner(gj), owner_p = row_owner(gp);
    if (gp != gj) {
      if (owner_j == me) {
        for (long c = 0; c < w; ++c) old_row[std::size_t(c)] = a[local(gj) + c * ldp];
        for (long c = 0; c < w; ++c) a[local(gj) + c * ldp] = candidate[std::size_t(c) + 1];
      }
      if (owner_p == me && owner_j == me) {
        for (long c = 0; c < w; ++c) a[local(gp) + c * ldp] = old_row[std::size_t(c)];
      } else if (owner_j == me) {
        lines.column_exchange({{owner_p, old_row.data(), std::size_t(w) * sizeof(complex)}}, {});
      } else if (owner_p == me) {
        lines.column_exchange({}, {{owner_j, old_row.data(), std::size_t(w) * sizeof(complex)}});
        for (long c = 0; c < w; ++c) a[local(gp) + c * ldp] = old_row[std::size_t(c)];
      }
    }
    // Row gj now holds the pivot row (candidate[1..w]) on its owner; the rows below it take
    // l = a / pivot and the rank-1 update a -= l u (u: the pivot row right of the diagonal).
    const complex reciprocal = 1.0 / candidate[std::size_t(j) + 1];
    const long below = numroc(gj + 1, nb, me, P) - first;
    for (long i = below; i < rows; ++i) a[i + j * ldp] *= reciprocal;
    for (long c = j + 1; c < w; ++c) {
      const complex u = candidate[std::size_t(c) + 1];
      for (long i = below; i < rows; ++i) a[i + c * ldp] -= a[i + j * ldp] * u;
    }
  }
}

std::map<long, long> interchange_sources(long k0, long w, const long* pivots) {
  std::map<long, long> source;
  auto at = [&](long r) -> long& {
    auto it = source.try_emplace(r, r).first;
    return it->second;
  };
  for (long j = 0; j < w; ++j)
    if (pivots[j] != k0 + j) std::swap(at(k0 + j), at(pivots[j]));
  for (auto it = source.begin(); it != source.end();) it = it->second == it->first ? source.erase(it) : std::next(it);
  return source;
}

}  // namespace efie::dist
