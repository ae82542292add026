// A Pliris/Adelus-style distributed right-looking LU with the right-hand side appended, over a
// 1 x Q process grid of the block-cyclic layout (every rank holds all N rows of its block columns,
// so a panel's partial pivoting is local to its owner; P > 1 grids: pliris_lu_2d.hpp). One algorithm for two memories: `Ops` does
// the dense kernels and copies where the matrix lives (host: LAPACK/BLAS in host_dist_engine.cpp,
// so the CPU mpi tests check the algorithm against ScaLAPACK and LAPACK; device: cuSOLVER/cuBLAS in
// dist_lu_gpu.cu).
//
// For each block column k (width w, m = N - k0 rows from the diagonal down):
//   1. its owner factors the m x w panel (zgetrf, partial pivoting) and packs it (leading
//      dimension m) with its w pivots into a panel buffer (two, used in turn);
//   2. the panel buffer is broadcast from the owner (Ops::broadcast: the --transport);
//   3. every rank swaps the pivot rows of its trailing block columns (LAPACK's laswp order),
//      U12 = L11^-1 A12 (ZTRSM, unit lower), A22 -= L21 U12 (ZGEMM);
//   4. the right-hand side y, replicated on every rank (Pliris's appended column), gets the same
//      swaps and updates: the forward substitution L y = P b is done with the factorisation.
// Back substitution U x = y, block columns from the last to the first, each on its owner (ZTRSM
// with U_kk, then y[0:k0] -= U[0:k0, k] x_k by ZGEMM); y travels from owner to owner by host MPI
// (N complex numbers, small next to the panels) and ends on process column 0 (rank 0).
// The left block columns (the stored L) are not swapped: nothing reads L after its panel's update.
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "copa/errors.hpp"
#include "copa/timing.hpp"
#include "distributed/block_cyclic.hpp"
#include "distributed/host_messages.hpp"
#include "problem.hpp"

namespace efie::dist {

struct PanelTimes {
  std::vector<double> broadcast_seconds;  // per panel, host clock after a synchronise
  double bytes = 0;
  // P > 1 only (pliris_lu_2d.hpp), totals over the panels: the panel factorisation across the
  // process rows (with its copies to and from the host), the row interchanges, U12's broadcast
  // down the process columns.
  double pivot_seconds = 0, interchange_seconds = 0, ublock_seconds = 0;
  // P > 1: pivots that moved a row (pivot row != diagonal row), and those whose pivot row lived on
  // another process row than the diagonal row (the interchanges that cross process rows).
  long interchanges = 0, cross_row_interchanges = 0;
};

// Bytes of the panel buffer: the widest panel (N x nb) and its pivots.
inline std::size_t pliris_panel_bytes(const BlockCyclic& l) {
  return std::size_t(l.n) * std::size_t(l.nb) * sizeof(complex) + std::size_t(l.nb) * sizeof(int);
}

// a: the local block (N x local_cols, leading dimension N); y: the right-hand side (N), replaced
// by the forward-substituted y; panels: two buffers of pliris_panel_bytes() in Ops memory (panel k
// in panels[k % 2], so panel k + 1 can arrive while panel k's update runs).
// lookahead: the owner of panel k + 1 updates only that block column with panel k, factors it and
// stages it for sending (Ops::stage) before it updates the rest of its trailing matrix, so the
// broadcast of panel k + 1 can travel while the big GEMM of panel k runs (Ops kernels are
// asynchronous on the device; Ops::broadcast of the host transport waits only for the staging
// copy). Without it, panel k + 1 is factored after the whole update.
template <class Ops>
void pliris_factor_forward(const BlockCyclic& layout, Ops& ops, complex* a, complex* y, char* const panels[2], bool lookahead,
                           PanelTimes& times) {
  const long n = layout.n, nb = layout.nb, blocks = (n + nb - 1) / nb, q = layout.grid.q;
  auto cols_before = [&](long g) { return numroc(g, nb, layout.mycol, int(q)); };
  auto owner = [&](long kb) { return int(kb % q); };
  auto width = [&](long kb) { return std::min(nb, n - kb * nb); };
  auto packed = [&](long kb) { return reinterpret_cast<complex*>(panels[kb % 2]); };
  auto pivots = [&](long kb) {
    return reinterpret_cast<int*>(panels[kb % 2] + std::size_t(n - kb * nb) * width(kb) * sizeof(complex));
  };
  auto bytes = [&](long kb) { return std::size_t(n - kb * nb) * width(kb) * sizeof(complex) + std::size_t(width(kb)) * sizeof(int); };
  auto own_panel = [&](long kb) { return a + kb * nb + cols_before(kb * nb) * n; };
  // The owner factors panel kb in place and packs it (leading dimension m) with its pivots.
  auto factor = [&](long kb) {
    const long m = n - kb * nb, w = width(kb);
    ops.getrf(m, w, own_panel(kb), n, pivots(kb), kb);
    ops.copy2d(packed(kb), m, own_panel(kb), n, m, w);
    ops.stage(panels[kb % 2], bytes(kb), int(kb % 2));
  };
  auto send = [&](long kb) {
    const double t0 = copa::host_seconds();
    ops.broadcast(panels[kb % 2], bytes(kb), owner(kb), int(kb % 2));
    times.broadcast_seconds.push_back(copa::host_seconds() - t0);
    times.bytes += double(bytes(kb));
  };
  times = {};
  if (blocks == 0) return;
  if (layout.mycol == owner(0)) factor(0);
  send(0);
  for (long kb = 0; kb < blocks; ++kb) {
    const long k0 = kb * nb, w = width(kb), m = n - k0;
    const bool mine = layout.mycol == owner(kb);
    const complex* l = mine ? own_panel(kb) : packed(kb);  // the panel the updates read
    const long ldl = mine ? n : m;
    const int* piv = pivots(kb);
    auto update = [&](complex* c, long ncols) {
      ops.swap_rows(c, n, ncols, k0, piv, w);
      ops.trsm_lower_unit(w, ncols, l, ldl, c + k0, n);
      if (m > w) ops.gemm_minus(m - w, ncols, w, l + w, ldl, c + k0, n, c + k0 + w, n);
    };
    const bool next_mine = kb + 1 < blocks && layout.mycol == owner(kb + 1);
    long first = cols_before(k0 + w), trailing = layout.local_cols - first;
    if (lookahead && next_mine) {
      // block column kb + 1 is this rank's first trailing block column
      update(a + first * n, width(kb + 1));
      factor(kb + 1);
      first += width(kb + 1);
      trailing -= width(kb + 1);
    }
    if (trailing > 0) update(a + first * n, trailing);
    update(y, 1);
    if (!lookahead && next_mine) factor(kb + 1);
    if (kb + 1 < blocks) send(kb + 1);
  }
  ops.synchronize();
}

// U x = y on the factored block; x (N) ends in y on process column 0 (rank 0 of a 1 x Q grid).
template <class Ops>
void pliris_back_substitute(const BlockCyclic& layout, Ops& ops, const complex* a, complex* y) {
  const long n = layout.n, nb = layout.nb, blocks = (n + nb - 1) / nb, q = layout.grid.q;
  const std::size_t bytes = std::size_t(n) * sizeof(complex);
  std::vector<complex> staging;
  for (long kb = blocks - 1; kb >= 0; --kb) {
    if (layout.mycol != int(kb % q)) continue;
    const long k0 = kb * nb, w = std::min(nb, n - k0);
    const int owner = int(kb % q), previous = int((kb + 1) % q), next = int((kb + q - 1) % q);
    if (kb + 1 < blocks && previous != owner) {
      staging.resize(n);
      host_recv(staging.data(), bytes, previous, 7);
      ops.to_engine(y, staging.data(), bytes);
    }
    const complex* u = a + numroc(k0, nb, layout.mycol, int(q)) * n;  // block column k, row 0
    ops.trsm_upper(w, 1, u + k0, n, y + k0, n);
    if (k0 > 0) ops.gemm_minus(k0, 1, w, u, n, y + k0, n, y, n);
    if (kb > 0 && next != owner) {
      staging.resize(n);
      ops.to_host(staging.data(), y, bytes);
      host_send(staging.data(), bytes, next, 7);
    }
  }
  ops.synchronize();
}

}  // namespace efie::dist
