// The host parts of the Pliris-style LU on a P x Q grid with P > 1 (pliris_lu_2d.hpp): the panel
// factorisation with partial pivoting across the process rows, and the net effect of a panel's
// row interchanges.
#pragma once
#include <map>
#include <vector>

#include "distributed/block_cyclic.hpp"
#include "distributed/host_messages.hpp"
#include "problem.hpp"

namespace efie::dist {

// Factors this rank's share of the panel of block column [k0, k0 + w) in place (LAPACK zgetf2's
// order, pivot, swap, scale, rank-1 update, one column at a time, within inner blocks of 32
// columns; each inner block then updates the panel columns right of it by ZTRSM on the diagonal's
// process row, one broadcast of that U block down the process column, and ZGEMM). panel: host memory,
// the rank's local rows with global index >= k0 (ld ldp), w columns. On return pivots[j] is the
// global row (0-based) exchanged with row k0 + j, the same on every rank of the process column.
// Per column: one MPI_Allreduce over the P ranks of the process column (GridLines::column_maxloc,
// w + 1 complex numbers: |a| = |re| + |im| as LAPACK's izamax, the global row, the pivot row) and,
// when the pivot row and row k0 + j live on different process rows, one message of w complex
// numbers (the old row k0 + j to the pivot row's owner). Every rank of the column then holds the
// pivot row, so it scales and updates its own rows with no further message. Plus, per inner block
// of 32 columns that is not the panel's last, one broadcast down the process column.
// RuntimeError when a column has no nonzero candidate (singular matrix).
void factor_panel_2d(const BlockCyclic& layout, const GridLines& lines, long k0, long w, complex* panel, long ldp, long* pivots);

// The interchanges k0 + j <-> pivots[j], j = 0..w-1 in order (LAPACK's laswp), as a map: new row r
// = old row source[r], for the rows they move (source[r] != r).
std::map<long, long> interchange_sources(long k0, long w, const long* pivots);

}  // namespace efie::dist
