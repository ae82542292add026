// The Pliris-style LU of pliris_lu.hpp on a P x Q process grid with P > 1: a block column's rows
// are spread over the P process rows, so the panel's partial pivoting crosses them. (1 x Q grids
// keep pliris_lu.hpp: zgetrf on the whole panel, bit-compatible with the runs before P > 1.)
//
// For each block column k (width w; process column qk = k mod Q holds it, process row pk = k mod P
// its diagonal block):
//   1. the ranks of process column qk copy their rows of the panel to the host and factor it
//      together (factor_panel_2d: per column an MAXLOC allreduce over the process column and at
//      most one row message), write it back and pack their rows (leading dimension = their row
//      count);
//   2. the pivots (w global rows) go along every process row by host MPI, then the packed panel
//      (each process row its own rows) through Ops::broadcast (the --transport, along the row);
//   3. every rank applies the interchanges to its trailing block columns and its rows of y
//      (interchange_rows_2d: the net permutation; the rows that leave packed in one gather, one
//      message per pair of process rows that trade rows through a staging buffer per peer, one
//      scatter);
//   4. process row pk computes U12 = L11^-1 A12 and y1 = L11^-1 y1 (ZTRSM) and broadcasts them
//      down its process column (host-staged MPI);
//   5. every rank updates its own blocks: A22 -= L21 U12, y2 -= L21 y1 (ZGEMM).
// y is Pliris's appended column: every process column holds a copy of its process row's entries
// and applies the same updates, so the copies stay equal. Lookahead: see pliris_factor_forward_2d.
// Back substitution: block columns from the last to the first on their process column: process
// row pk solves x_k = U_kk^-1 y_k (ZTRSM) and broadcasts it down the column; every rank of the
// column updates its rows above k0 (ZGEMM); each process row's y then moves to the same process
// row of the next process column (host MPI). x ends on process column 0 and is gathered by an
// allreduce (sum of exact zeros and one owner per entry: exact).
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

#include "copa/timing.hpp"
#include "distributed/block_cyclic.hpp"
#include "distributed/host_messages.hpp"
#include "distributed/panel_2d.hpp"
#include "distributed/pliris_lu.hpp"
#include "problem.hpp"

namespace efie::dist {

// Engine memory the 2D algorithm needs besides the block, y and the panel buffers: U12 and y1 as
// received (w x (local_cols + 1)), and x_k in the back substitution (nb) fits in it.
inline std::size_t pliris_2d_ublock_elements(const BlockCyclic& l) { return std::size_t(l.nb) * std::size_t(l.local_cols + 1); }

// Rows k0 + j <-> pivots[j] of the local columns [first_col, local_cols) and of y (a row and its y
// entry: width = ncols + 1 numbers). Ops::gather_rows packs the old rows this rank owns that move
// into engine scratch (one kernel on the GPU), grouped by the process row that receives them, each
// group in the order of interchange_sources; each group for another process row goes to a staging
// buffer of that peer (Ops::staging: pinned on the GPU, grow-only) and travels as one message
// (GridLines::column_exchange); the received groups go back to the scratch behind the packed rows,
// and Ops::scatter_rows writes every new row from its slot there (one kernel on the GPU). Both
// sides walk the same map, so a receiver knows the order its rows arrive in.
template <class Ops>
void interchange_rows_2d(const BlockCyclic& l, const GridLines& lines, Ops& ops, complex* a, complex* y, long first_col, long k0,
                         long w, const long* pivots) {
  const long lld = l.lld(), ncols = l.local_cols - first_col, width = ncols + 1;
  const int P = l.grid.p, me = l.myrow;
  const auto row_owner = [&](long g) { return int((g / l.nb) % P); };
  const std::map<long, long> source = interchange_sources(k0, w, pivots);
  std::vector<std::vector<long>> leaving(static_cast<std::size_t>(P));  // local rows that move, by receiving process row
  std::vector<long> arriving(static_cast<std::size_t>(P), 0);          // rows coming from each other process row
  for (const auto& [r, s] : source) {
    if (row_owner(s) == me) leaving[std::size_t(row_owner(r))].push_back(l.local_row(s));
    if (row_owner(r) == me && row_owner(s) != me) ++arriving[std::size_t(row_owner(s))];
  }
  // scratch slots: the packed groups p = 0..P-1, then the received groups p = 0..P-1
  std::vector<long> packed_rows, packed_at(static_cast<std::size_t>(P)), received_at(static_cast<std::size_t>(P));
  for (int p = 0; p < P; ++p) {
    packed_at[std::size_t(p)] = long(packed_rows.size());
    packed_rows.insert(packed_rows.end(), leaving[std::size_t(p)].begin(), leaving[std::size_t(p)].end());
  }
  long slots = long(packed_rows.size());
  for (int p = 0; p < P; ++p) {
    received_at[std::size_t(p)] = slots;
    slots += arriving[std::size_t(p)];
  }
  if (slots == 0) return;
  complex* scratch = ops.row_scratch(std::size_t(slots * width));
  if (!packed_rows.empty()) ops.gather_rows(a, lld, first_col, ncols, y, packed_rows.data(), long(packed_rows.size()), scratch);
  const auto bytes_of = [&](long rows) { return std::size_t(rows * width) * sizeof(complex); };
  std::vector<GridLines::Message> sends, recvs;
  for (int p = 0; p < P; ++p) {
    if (p == me) continue;
    const long out = long(leaving[std::size_t(p)].size()), in = arriving[std::size_t(p)];
    if (out > 0) {
      void* stage = ops.staging(2 * p, bytes_of(out));
      ops.to_host(stage, scratch + packed_at[std::size_t(p)] * width, bytes_of(out));
      sends.push_back({p, stage, bytes_of(out)});
    }
    if (in > 0) recvs.push_back({p, ops.staging(2 * p + 1, bytes_of(in)), bytes_of(in)});
  }
  lines.column_exchange(sends, recvs);
  for (const GridLines::Message& m : recvs) ops.to_engine(scratch + received_at[std::size_t(m.row)] * width, m.data, m.bytes);
  std::vector<long> new_rows, from_slot;
  std::vector<long> taken(static_cast<std::size_t>(P), 0);
  for (const auto& [r, s] : source) {
    if (row_owner(r) != me) continue;
    const int from = row_owner(s);
    new_rows.push_back(l.local_row(r));
    from_slot.push_back((from == me ? packed_at[std::size_t(me)] : received_at[std::size_t(from)]) + taken[std::size_t(from)]++);
  }
  if (!new_rows.empty()) ops.scatter_rows(a, lld, first_col, ncols, y, new_rows.data(), from_slot.data(), long(new_rows.size()), scratch);
}

// a: the local block (leading dimension lld); y: this rank's rows of the right-hand side (Ops
// memory), replaced by the forward-substituted y; panels: as pliris_factor_forward (panel k in
// panels[k % 2]); ublock: pliris_2d_ublock_elements() in Ops memory.
// lookahead: the process column of panel k + 1 updates that block column with panel k first,
// copies it to the host, queues the rest of its update (on the device: the big GEMM runs while
// the host works), then factors panel k + 1 across its process rows and writes it back, so the
// host panel factorisation overlaps the device GEMM. Without it, panel k + 1 is fetched and
// factored after the whole update.
template <class Ops>
void pliris_factor_forward_2d(const BlockCyclic& l, const GridLines& lines, Ops& ops, complex* a, complex* y, char* const panels[2],
                              complex* ublock, bool lookahead, PanelTimes& times) {
  const long n = l.n, nb = l.nb, blocks = (n + nb - 1) / nb, lld = l.lld();
  const int P = l.grid.p, Q = l.grid.q;
  // host copies of the panel and of U12 | y1 in Ops::staging slots 2P and 2P + 1 (the interchanges
  // use 0..2P - 1): pinned on the GPU, allocated at the first (largest) panel
  complex* host_panel = nullptr;
  std::vector<long> pivots, next_pivots;
  auto width = [&](long kb) { return std::min(nb, n - kb * nb); };
  auto panel_rows = [&](long kb) { return l.local_rows - numroc(kb * nb, nb, l.myrow, P); };
  auto own_panel = [&](long kb) { return a + numroc(kb * nb, nb, l.myrow, P) + numroc(kb * nb, nb, l.mycol, Q) * lld; };
  // On the ranks of panel kb's process column: its rows to the host, then factored together and
  // written back to the block and packed (leading dimension = the rank's panel rows).
  auto fetch = [&](long kb) {
    const long m = panel_rows(kb), ld = std::max(m, 1L);
    host_panel = static_cast<complex*>(ops.staging(2 * P, std::size_t(ld * width(kb)) * sizeof(complex)));
    if (m > 0) ops.to_host_2d(host_panel, ld, own_panel(kb), lld, m, width(kb));
  };
  auto factor_and_store = [&](long kb, std::vector<long>& piv) {
    const long m = panel_rows(kb), ld = std::max(m, 1L), w = width(kb);
    const double t0 = copa::host_seconds();
    piv.assign(std::size_t(w), 0);
    factor_panel_2d(l, lines, kb * nb, w, host_panel, ld, piv.data());
    if (m > 0) {
      ops.to_engine_2d(own_panel(kb), lld, host_panel, ld, m, w);
      ops.to_engine_2d(reinterpret_cast<complex*>(panels[kb % 2]), ld, host_panel, ld, m, w);
    }
    times.pivot_seconds += copa::host_seconds() - t0;
  };
  times = {};
  bool ahead = false;  // this rank factored panel kb during panel kb - 1's update
  for (long kb = 0; kb < blocks; ++kb) {
    const long k0 = kb * nb, w = width(kb);
    const int pk = int(kb % P), qk = int(kb % Q);
    const long first_row = numroc(k0, nb, l.myrow, P), mloc = l.local_rows - first_row;  // this rank's panel rows
    const long below_row = numroc(k0 + w, nb, l.myrow, P), rows22 = l.local_rows - below_row;
    const long first_col = numroc(k0 + w, nb, l.mycol, Q), ntrail = l.local_cols - first_col;
    const long ldl = std::max(mloc, 1L);
    complex* packed = reinterpret_cast<complex*>(panels[kb % 2]);
    if (ahead) {
      pivots.swap(next_pivots);
    } else {
      pivots.assign(std::size_t(w), 0);
      if (l.mycol == qk) {
        fetch(kb);
        factor_and_store(kb, pivots);
      }
    }
    lines.row_bcast(pivots.data(), pivots.size() * sizeof(long), qk);
    for (long j = 0; j < w; ++j) {
      times.interchanges += pivots[std::size_t(j)] != k0 + j;
      times.cross_row_interchanges += (pivots[std::size_t(j)] / nb) % P != pk;
    }
    double t0 = copa::host_seconds();
    const std::size_t panel_bytes = std::size_t(mloc * w) * sizeof(complex);
    ops.broadcast(packed, panel_bytes, qk, int(kb % 2));
    times.broadcast_seconds.push_back(copa::host_seconds() - t0);
    times.bytes += double(panel_bytes);
    t0 = copa::host_seconds();
    interchange_rows_2d(l, lines, ops, a, y, first_col, k0, w, pivots.data());
    times.interchange_seconds += copa::host_seconds() - t0;
    // U12 | y1 on process row pk (in place), sent down the process column
    const bool here = l.myrow == pk;
    complex* u_here = a + first_row + first_col * lld;
    if (here) {
      if (ntrail > 0) ops.trsm_lower_unit(w, ntrail, packed, ldl, u_here, lld);
      ops.trsm_lower_unit(w, 1, packed, ldl, y + first_row, lld);
    }
    t0 = copa::host_seconds();
    const std::size_t u_bytes = std::size_t(w * (ntrail + 1)) * sizeof(complex);
    complex* host_u = static_cast<complex*>(ops.staging(2 * P + 1, u_bytes));
    if (here) {
      if (ntrail > 0) ops.to_host_2d(host_u, w, u_here, lld, w, ntrail);
      ops.to_host_2d(host_u + w * ntrail, w, y + first_row, lld, w, 1);
    }
    lines.column_bcast(host_u, u_bytes, pk);
    if (!here && rows22 > 0) ops.to_engine_2d(ublock, w, host_u, w, w, ntrail + 1);
    times.ublock_seconds += copa::host_seconds() - t0;
    // A22 -= L21 U12 over local trailing columns [c0, c0 + count)
    const complex* l21 = packed + (below_row - first_row);
    const complex* u = here ? u_here : ublock;
    const long ldu = here ? lld : w;
    auto update = [&](long c0, long count) {
      if (rows22 > 0 && count > 0) ops.gemm_minus(rows22, count, w, l21, ldl, u + c0 * ldu, ldu, a + below_row + (first_col + c0) * lld, lld);
    };
    // with lookahead, block column kb + 1 is the first trailing block column of its process column
    const bool next_here = lookahead && kb + 1 < blocks && l.mycol == int((kb + 1) % Q);
    const long next_width = next_here ? width(kb + 1) : 0;
    update(0, next_width);
    if (next_here) fetch(kb + 1);
    update(next_width, ntrail - next_width);
    if (rows22 > 0) ops.gemm_minus(rows22, 1, w, l21, ldl, here ? y + first_row : ublock + w * ntrail, ldu, y + below_row, lld);
    if (next_here) factor_and_store(kb + 1, next_pivots);
    ahead = next_here;
  }
  ops.synchronize();
}

// U x = y on the factored block; returns the global x on every rank. xk: nb elements of Ops memory.
template <class Ops>
std::vector<complex> pliris_back_substitute_2d(const BlockCyclic& l, const GridLines& lines, Ops& ops, const complex* a, complex* y,
                                               complex* xk) {
  const long n = l.n, nb = l.nb, blocks = (n + nb - 1) / nb, lld = l.lld();
  const int P = l.grid.p, Q = l.grid.q;
  const std::size_t bytes = std::size_t(l.local_rows) * sizeof(complex);
  // y between process columns and x_k down a process column through Ops::staging slots 2P + 2
  // and 2P + 3 (pinned on the GPU)
  complex* const staging = static_cast<complex*>(ops.staging(2 * P + 2, std::size_t(std::max(l.local_rows, 1L)) * sizeof(complex)));
  complex* const x_host = static_cast<complex*>(ops.staging(2 * P + 3, std::size_t(nb) * sizeof(complex)));
  auto world = [&](int col) { return l.myrow * Q + col; };
  for (long kb = blocks - 1; kb >= 0; --kb) {
    const int qk = int(kb % Q), pk = int(kb % P);
    if (l.mycol != qk) continue;
    const long k0 = kb * nb, w = std::min(nb, n - k0);
    const int previous = int((kb + 1) % Q), next = int((kb + Q - 1) % Q);
    if (kb + 1 < blocks && previous != qk) {
      host_recv(staging, bytes, world(previous), 7);
      ops.to_engine(y, staging, bytes);
    }
    const complex* u = a + numroc(k0, nb, l.mycol, Q) * lld;  // block column k, local row 0
    const long above = numroc(k0, nb, l.myrow, P);             // local rows above k0 (on pk: row k0's index)
    if (l.myrow == pk) {
      ops.trsm_upper(w, 1, u + above, lld, y + above, lld);
      ops.to_host(x_host, y + above, std::size_t(w) * sizeof(complex));
    }
    lines.column_bcast(x_host, std::size_t(w) * sizeof(complex), pk);
    const complex* x = y + above;
    if (l.myrow != pk) {
      ops.to_engine(xk, x_host, std::size_t(w) * sizeof(complex));
      x = xk;
    }
    if (above > 0) ops.gemm_minus(above, 1, w, u, lld, x, std::max(w, 1L), y, lld);
    if (kb > 0 && next != qk) {
      ops.to_host(staging, y, bytes);
      host_send(staging, bytes, world(next), 7);
    }
  }
  std::vector<double> gathered(2 * std::size_t(n), 0.0);
  if (l.mycol == 0) {
    ops.to_host(staging, y, bytes);
    for (long i = 0; i < l.local_rows; ++i) {
      gathered[2 * std::size_t(l.global_row(i))] = staging[std::size_t(i)].real();
      gathered[2 * std::size_t(l.global_row(i)) + 1] = staging[std::size_t(i)].imag();
    }
  }
  host_sum(gathered.data(), gathered.size());
  std::vector<complex> x(static_cast<std::size_t>(n));
  for (long g = 0; g < n; ++g) x[std::size_t(g)] = complex(gathered[2 * std::size_t(g)], gathered[2 * std::size_t(g) + 1]);
  return x;
}

}  // namespace efie::dist
