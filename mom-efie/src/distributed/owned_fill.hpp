// Each rank fills only the entries of the symmetric-rule EFIE matrix A = (P + P^T) / 2 that its
// block-cyclic block holds, with no communication (the proxied code's fill needs no MPI).
// For an owned entry (m, n) it needs P_mn (test triangles of m, source triangles of n) and P_nm
// (test triangles of n, source triangles of m), so it evaluates the triangle pairs (t, s) with t
// touching an owned row and s an owned column, both ways round: about 2 N_T^2 / (P Q) pairs (x the
// overlap of triangles shared by several processes) instead of N_T^2 / (P Q), the price of not
// moving the transpose between ranks.
#pragma once
#include <vector>

#include "distributed/block_cyclic.hpp"
#include "problem.hpp"

namespace efie::dist {

// The triangles whose RWG functions own at least one local row (rows) or local column (cols) of
// the layout, in increasing order, and the pairs each way that the fill evaluates.
struct OwnedTriangles {
  std::vector<int> rows, cols;
  double pair_evaluations() const { return 2.0 * double(rows.size()) * double(cols.size()); }
};
OwnedTriangles owned_triangles(const Problem& p, const BlockCyclic& layout);

// Host fill of the local block (column-major, leading dimension layout.lld()), every entry
// written. Threads split the local columns in contiguous ranges (each range has one writer, so
// the sums run in a fixed order whatever the thread count's timing: deterministic for a given
// thread count); serial oracle order within a range.
void fill_owned_host(const Problem& p, const BlockCyclic& layout, complex* local, int threads);

// The entries of the global vector v that the layout's process column 0 holds as an n x 1
// distributed matrix (empty on the other process columns), in local row order.
std::vector<complex> owned_vector(const std::vector<complex>& v, const BlockCyclic& layout);

// The global vector from each rank's owned part (owned_vector's layout): every entry has one
// owner, the others add exact zeros, so every rank gets the same bits.
std::vector<complex> gather_vector(const std::vector<complex>& owned, const BlockCyclic& layout);

}  // namespace efie::dist
