// The triangle-pair-upper fills (kernels_gpu.cu): their grid (triangle-pair's blocks of upper_tile
// test triangles x upper_chunk source triangles, only those that hold a pair s >= t) and one
// thread's work. Host and device code: the host tests run the same code over the whole grid with a
// plain scatter and compare with the symmetrised far matrix.
#pragma once
#include "efie_pair.hpp"
#include "math.hpp"

namespace efie {

constexpr int upper_tile = 128;  // test triangles per block (one per thread)
constexpr int upper_chunk = 16;  // source triangles per block
constexpr int upper_chunks_per_tile = upper_tile / upper_chunk;
static_assert(upper_tile % upper_chunk == 0, "a test tile must span whole source chunks");

// Source chunk y [y c, y c + c) meets the test tiles x with x upper_tile <= its last source, i.e.
// x = 0 .. y / upper_chunks_per_tile. Blocks of the chunks before y (y = a upper_chunks_per_tile + r):
//   sum_{y' < y} (y' / upper_chunks_per_tile + 1) = y + upper_chunks_per_tile a (a - 1) / 2 + r a.
EFIE_HD long upper_blocks_before(long y) {
  const long c = upper_chunks_per_tile, a = y / c, r = y % c;
  return y + c * a * (a - 1) / 2 + r * a;
}

EFIE_HD long upper_source_chunks(long nt) { return (nt + upper_chunk - 1) / upper_chunk; }

EFIE_HD long upper_block_count(long nt) { return upper_blocks_before(upper_source_chunks(nt)); }

// Block b's (test tile x, source chunk y): chunks in order, tiles fastest within a chunk (as
// triangle-pair's grid, so the blocks running together share their source columns); y is the
// largest chunk with upper_blocks_before(y) <= b.
EFIE_HD void upper_block(long b, long nt, int& x, int& y) {
  long lo = 0, hi = upper_source_chunks(nt);
  while (hi - lo > 1) {
    const long mid = (lo + hi) / 2;
    if (upper_blocks_before(mid) <= b)
      lo = mid;
    else
      hi = mid;
  }
  y = int(lo);
  x = int(b - upper_blocks_before(lo));
}

// The column of s (0..2) whose basis the next source triangle also carries, -1 if none (two
// triangles share at most one edge).
EFIE_HD int shared_with_next(const QuadTriangle& s, const QuadTriangle& next) {
  int shared = -1;
#pragma unroll
  for (int j = 0; j < 3; ++j)
#pragma unroll
    for (int jn = 0; jn < 3; ++jn)
      if (s.basis[j] >= 0 && s.basis[j] == next.basis[jn]) shared = j;
  return shared;
}

// Thread t's pairs {t, s}, s in [max(t, s0), s_end), source triangle s at chunk[s - s0]: the block
// C = (B(t,s) + B(s,t)^T)/2 of A = (P + P^T)/2 (symmetric_far_moments), each entry added at
// (t_i, s_j) and, unless s = t, at (s_j, t_i) (a self pair's block is symmetric already) by
// scatter(row, column, value).
// MergeShared (triangle-pair-upper-merge): the mesh numbers triangles along strips, so consecutive
// source triangles s, s+1 mostly share an edge m (make_sphere pushes each up triangle and then the
// down triangle beside it). The thread's entries (t_i, m), equal to the mirrored (m, t_i), receive
// C(t,s)_i. and C(t,s+1)_i. one step apart: that column is carried in registers to the next step
// and added there, so it goes out once for both (6 entries instead of 9 per step along a strip:
// 24 instead of 36 FP64 atomics per unordered pair). Nothing is carried out of a self pair (it is
// not mirrored) or past the chunk.
template <bool MergeShared, class Scatter>
EFIE_HD void upper_thread_pairs(const QuadTriangle& tt, int t, const QuadTriangle* chunk, int s0, int s_end, double k,
                                const Scatter& scatter) {
  int carried = -1;  // the basis whose column the carry holds (MergeShared)
  Cplx carry[3] = {{0, 0}, {0, 0}, {0, 0}};
  for (int s = t > s0 ? t : s0; s < s_end; ++s) {
    const QuadTriangle& ss = chunk[s - s0];
    Cplx c[3][3];
    block_from_moments(symmetric_far_moments(tt, ss, k), tt, ss, k, c);
    const bool mirror = s != t;
    int keep = -1;  // the column carried to the next step
    if (MergeShared) {
#pragma unroll
      for (int j = 0; j < 3; ++j)
        if (carried >= 0 && ss.basis[j] == carried) {
#pragma unroll
          for (int i = 0; i < 3; ++i) c[i][j] = c[i][j] + carry[i];
        }
      if (mirror && s + 1 < s_end) keep = shared_with_next(ss, chunk[s + 1 - s0]);
      carried = -1;
    }
#pragma unroll
    for (int j = 0; j < 3; ++j) {
      if (ss.basis[j] < 0) continue;
      if (MergeShared && j == keep) {
#pragma unroll
        for (int i = 0; i < 3; ++i) carry[i] = c[i][j];
        carried = ss.basis[j];
        continue;
      }
#pragma unroll
      for (int i = 0; i < 3; ++i) {
        if (tt.basis[i] < 0) continue;
        const Cplx v = 0.5 * c[i][j];
        scatter(tt.basis[i], ss.basis[j], v);
        if (mirror) scatter(ss.basis[j], tt.basis[i], v);
      }
    }
  }
}

}  // namespace efie
