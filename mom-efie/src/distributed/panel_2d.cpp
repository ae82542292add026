#include "distributed/panel_2d.hpp"

#include <cblas.h>

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
  std::vector<complex> candidate(static_cast<std::size_t>(w) + 1), old_row(static_cast<std::size_t>(w)), u12;
  // Column j: pivot search, swap of the whole panel rows (all w columns), scale, rank-1 update of
  // the columns j + 1 .. end - 1.
  auto factor_column = [&](long j, long end) {
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
    for (long c = j + 1; c < end; ++c) {
      const complex u = candidate[std::size_t(c) + 1];
      for (long i = below; i < rows; ++i) a[i + c * ldp] -= a[i + j * ldp] * u;
    }
  };
  // Blocked as LAPACK's zgetrf over zgetf2: `inner` columns at a time get the rank-1 updates; the
  // panel columns right of them then take one ZTRSM (on the diagonal's process row, U12 sent down
  // the process column: one more broadcast per inner block) and one ZGEMM, so most of the panel's
  // flops are level 3. Row swaps move whole panel rows, so the deferred columns are permuted too.
  constexpr long inner = 32;
  const complex one(1, 0), minus_one(-1, 0);
  for (long jb = 0; jb < w; jb += inner) {
    const long end = std::min(w, jb + inner);
    for (long j = jb; j < end; ++j) factor_column(j, end);
    if (end == w) break;
    const long g0 = k0 + jb, wb = end - jb, right = w - end;
    const int owner = row_owner(g0);  // rows g0 .. g0 + wb - 1 all live on the diagonal block's process row
    u12.assign(std::size_t(wb * right), complex(0));
    if (owner == me) {
      complex* diag = a + local(g0);
      cblas_ztrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, int(wb), int(right), &one, diag + jb * ldp, int(ldp),
                  diag + end * ldp, int(ldp));
      for (long c = 0; c < right; ++c)
        for (long r = 0; r < wb; ++r) u12[std::size_t(r + c * wb)] = diag[r + (end + c) * ldp];
    }
    lines.column_bcast(u12.data(), u12.size() * sizeof(complex), owner);
    const long below = numroc(k0 + end, nb, me, P) - first;
    if (rows > below)
      cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(rows - below), int(right), int(wb), &minus_one, a + below + jb * ldp,
                  int(ldp), u12.data(), int(wb), &one, a + below + end * ldp, int(ldp));
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
