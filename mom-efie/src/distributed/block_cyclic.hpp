// The 2D block-cyclic layout of ScaLAPACK's descriptors (and of Pliris/Adelus's torus wrap): a
// P x Q process grid, square blocks of nb x nb; global block (I, J) lives on process
// (I mod P, J mod Q), source process (0, 0). Ranks map to the grid row-major (rank = p Q + q), the
// order Cblacs_gridinit(..., "Row", P, Q) gives, so the fill and ScaLAPACK agree on who owns what.
#pragma once
#include <string>
#include <vector>

namespace efie::dist {

struct ProcGrid {
  int p = 1, q = 1;
};

// The grid MPI_Dims_create would choose for 2 dimensions (the most square factorisation), with
// P <= Q: 2 ranks 1x2, 3 ranks 1x3, 4 ranks 2x2, 6 ranks 2x3.
ProcGrid default_proc_grid(int ranks);
// "PxQ" (e.g. "2x3") or "" for the default; InputError naming --proc-grid unless P Q = ranks.
ProcGrid parse_proc_grid(const std::string& text, int ranks);

// ScaLAPACK's NUMROC: the rows (or columns) of an n-long dimension split in blocks of nb over
// nprocs processes that process iproc owns (source process 0).
long numroc(long n, long nb, int iproc, int nprocs);

struct BlockCyclic {
  long n = 0, nb = 1;
  ProcGrid grid;
  int myrow = 0, mycol = 0;
  long local_rows = 0, local_cols = 0;

  BlockCyclic() = default;
  BlockCyclic(long n, long nb, ProcGrid grid, int rank);
  // Leading dimension of the column-major local block (ScaLAPACK needs at least 1).
  long lld() const { return local_rows > 0 ? local_rows : 1; }
  // Local index of global row / column g on this process, or -1 when another process owns it.
  long local_row(long g) const { return local_index(g, grid.p, myrow); }
  long local_col(long g) const { return local_index(g, grid.q, mycol); }
  long global_row(long l) const { return global_index(l, grid.p, myrow); }
  long global_col(long l) const { return global_index(l, grid.q, mycol); }
  double local_entries() const { return double(local_rows) * double(local_cols); }

 private:
  long local_index(long g, int nprocs, int me) const {
    const long block = g / nb;
    return block % nprocs == me ? (block / nprocs) * nb + g % nb : -1;
  }
  long global_index(long l, int nprocs, int me) const { return ((l / nb) * nprocs + me) * nb + l % nb; }
};

}  // namespace efie::dist
