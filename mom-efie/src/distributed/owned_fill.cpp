#include "distributed/owned_fill.hpp"

#include <algorithm>

#include "copa/mpi.hpp"
#include "efie_pair.hpp"

namespace efie::dist {
namespace {

// The 3x3 block of (test t, source s), near pairs by singularity extraction (is_near is the test
// that built the serial engine's near list).
void block_of(const Triangle& t, const Triangle& s, double k, Cplx b[3][3]) {
  if (is_near(t, s))
    pair_block<true>(t, s, k, b);
  else
    pair_block<false>(t, s, k, b);
}

}  // namespace

OwnedTriangles owned_triangles(const Problem& p, const BlockCyclic& layout) {
  OwnedTriangles o;
  for (long t = 0; t < p.triangle_count(); ++t) {
    bool row = false, col = false;
    for (int b : p.triangles[t].basis)
      if (b >= 0) {
        row = row || layout.local_row(b) >= 0;
        col = col || layout.local_col(b) >= 0;
      }
    if (row) o.rows.push_back(int(t));
    if (col) o.cols.push_back(int(t));
  }
  return o;
}

void fill_owned_host(const Problem& p, const BlockCyclic& layout, complex* local, int threads) {
  const long lld = layout.lld(), lc = layout.local_cols;
  std::fill(local, local + lld * lc, complex(0));
  const OwnedTriangles owned = owned_triangles(p, layout);
  const auto& tris = p.triangles;
  const int chunks = int(std::max<long>(1, std::min<long>(threads, lc)));
#pragma omp parallel for num_threads(chunks) schedule(static, 1)
  for (int c = 0; c < chunks; ++c) {
    // This chunk writes local columns [c0, c1) only.
    const long c0 = lc * c / chunks, c1 = lc * (c + 1) / chunks;
    auto my_col = [&](int basis) {
      if (basis < 0) return -1L;
      const long l = layout.local_col(basis);
      return l >= c0 && l < c1 ? l : -1L;
    };
    for (int s : owned.cols) {
      const Triangle& ts = tris[s];
      long col[3];
      bool any = false;
      for (int j = 0; j < 3; ++j) any = (col[j] = my_col(ts.basis[j])) >= 0 || any;
      if (!any) continue;
      for (int t : owned.rows) {
        const Triangle& tt = tris[t];
        long row[3];
        for (int i = 0; i < 3; ++i) row[i] = tt.basis[i] >= 0 ? layout.local_row(tt.basis[i]) : -1;
        // P_mn: test triangle t (row m), source s (column n).
        Cplx b[3][3];
        block_of(tt, ts, p.k, b);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            if (row[i] >= 0 && col[j] >= 0) local[row[i] + col[j] * lld] += complex(b[i][j].re, b[i][j].im);
        // P_nm: test triangle s (row n of P), source t (column m of P), added to A's (m, n).
        block_of(ts, tt, p.k, b);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            if (col[i] >= 0 && row[j] >= 0) local[row[j] + col[i] * lld] += complex(b[i][j].re, b[i][j].im);
      }
    }
    for (long l = c0; l < c1; ++l)
      for (long r = 0; r < layout.local_rows; ++r) local[r + l * lld] *= 0.5;
  }
}

std::vector<complex> owned_vector(const std::vector<complex>& v, const BlockCyclic& layout) {
  if (layout.mycol != 0) return {};
  std::vector<complex> out(layout.local_rows);
  for (long l = 0; l < layout.local_rows; ++l) out[l] = v[layout.global_row(l)];
  return out;
}

std::vector<complex> gather_vector(const std::vector<complex>& owned, const BlockCyclic& layout) {
  std::vector<double> parts(2 * layout.n, 0.0);
  for (std::size_t l = 0; l < owned.size(); ++l) {
    const long g = layout.global_row(long(l));
    parts[2 * g] = owned[l].real();
    parts[2 * g + 1] = owned[l].imag();
  }
  parts = copa::mpi::sum_ordered(parts);
  std::vector<complex> v(layout.n);
  for (long g = 0; g < layout.n; ++g) v[g] = {parts[2 * g], parts[2 * g + 1]};
  return v;
}

}  // namespace efie::dist
