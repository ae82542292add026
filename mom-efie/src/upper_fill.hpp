// The triangle-pair-upper fill (kernels_gpu.cu): its grid (triangle-pair's blocks of upper_tile
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
// The source merge (merge=source): the mesh numbers triangles along strips, so consecutive
// source triangles s, s+1 mostly share an edge m (make_sphere pushes each up triangle and then the
// down triangle beside it). The thread's entries (t_i, m), equal to the mirrored (m, t_i), receive
// C(t,s)_i. and C(t,s+1)_i. one step apart: that column is carried in registers to the next step
// and added there, so it goes out once for both (6 entries instead of 9 per step along a strip:
// 24 instead of 36 FP64 atomics per unordered pair). Nothing is carried out of a self pair (it is
// not mirrored) or past the chunk.
template <class Scatter>
EFIE_HD void upper_thread_pairs(const QuadTriangle& tt, int t, const QuadTriangle* chunk, int s0, int s_end, double k,
                                const Scatter& scatter) {
  int carried = -1;  // the basis whose column the carry holds
  Cplx carry[3] = {{0, 0}, {0, 0}, {0, 0}};
  for (int s = t > s0 ? t : s0; s < s_end; ++s) {
    const QuadTriangle& ss = chunk[s - s0];
    Cplx c[3][3];
    block_from_moments(symmetric_far_moments(tt, ss, k), tt, ss, k, c);
    const bool mirror = s != t;
    int keep = -1;  // the column carried to the next step
#pragma unroll
    for (int j = 0; j < 3; ++j)
      if (carried >= 0 && ss.basis[j] == carried) {
#pragma unroll
        for (int i = 0; i < 3; ++i) c[i][j] = c[i][j] + carry[i];
      }
    if (mirror && s + 1 < s_end) keep = shared_with_next(ss, chunk[s + 1 - s0]);
    carried = -1;
#pragma unroll
    for (int j = 0; j < 3; ++j) {
      if (ss.basis[j] < 0) continue;
      if (j == keep) {
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

// ---- merge=lanes: the source merge above, and the same along the lanes ------------
// The 32 lanes of a warp hold consecutive test triangles, which share edges along the strips as
// consecutive sources do: lane l's row of the edge shared with lane l+1's triangle and lane
// l+1's row of it are one entry in every column (and mirrored, one row). Each step lane l+1 hands
// that row (3 values, one per column) to lane l (a shuffle on the device), which adds it to its
// own and writes once: 2 rows instead of 3 per lane along a strip, with the source merge 4 of 9
// entries per step. A pair of lanes merges only while both are past their self pairs (s > t + 1
// for the receiver), so both write the same directions and carry the same column.
// The step is split where the lanes exchange (block, send, write), so that the host tests run the
// same code for 32 lanes in turn.
struct UpperLane {
  int t;         // the test triangle (an idle lane, t >= nt, still takes part in the exchanges)
  int nt;
  int next_row;  // row (0..2) of the edge shared with the next lane's triangle t + 1, -1 if none
  int prev_row;  // row of the edge shared with the previous lane's triangle t - 1, -1 if none
  int carried;   // the source merge's carried basis (-1: none) and its column
  Cplx carry[3];
};

// own: the block's test triangles, own[l] = triangle t; warp_lane = l mod 32.
EFIE_HD UpperLane make_upper_lane(const QuadTriangle* own, int l, int warp_lane, int t, int nt) {
  UpperLane lane{t, nt, -1, -1, -1, {{0, 0}, {0, 0}, {0, 0}}};
  if (t < nt && warp_lane < 31 && t + 1 < nt) lane.next_row = shared_with_next(own[l], own[l + 1]);
  if (t < nt && warp_lane > 0) lane.prev_row = shared_with_next(own[l], own[l - 1]);
  return lane;
}

EFIE_HD bool upper_lane_active(const UpperLane& lane, int s) { return lane.t < lane.nt && s >= lane.t; }

// Step s: the lane's block (zero when idle), with the carried column added; keep: the column to
// carry to the next step (-1: none).
EFIE_HD void upper_lane_block(UpperLane& lane, const QuadTriangle& tt, const QuadTriangle* chunk, int s0, int s_end, int s, double k,
                              Cplx c[3][3], int& keep) {
  keep = -1;
  if (!upper_lane_active(lane, s)) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) c[i][j] = {0, 0};
    return;
  }
  const QuadTriangle& ss = chunk[s - s0];
  block_from_moments(symmetric_far_moments(tt, ss, k), tt, ss, k, c);
#pragma unroll
  for (int j = 0; j < 3; ++j)
    if (lane.carried >= 0 && ss.basis[j] == lane.carried) {
#pragma unroll
      for (int i = 0; i < 3; ++i) c[i][j] = c[i][j] + lane.carry[i];
    }
  if (s != lane.t && s + 1 < s_end) keep = shared_with_next(ss, chunk[s + 1 - s0]);
  lane.carried = -1;
}

// What the lane hands to the previous lane: its row prev_row of each column (zero if none).
EFIE_HD void upper_lane_send(const UpperLane& lane, const Cplx c[3][3], Cplx send[3]) {
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    const Cplx row12 = lane.prev_row == 1 ? c[1][j] : (lane.prev_row == 2 ? c[2][j] : Cplx{0, 0});
    send[j] = lane.prev_row == 0 ? c[0][j] : row12;
  }
}

// Step s's writes; recv: the next lane's send.
template <class Scatter>
EFIE_HD void upper_lane_write(UpperLane& lane, const QuadTriangle& tt, const QuadTriangle& ss, int s, const Cplx c[3][3], int keep,
                              const Cplx recv[3], const Scatter& scatter) {
  if (!upper_lane_active(lane, s)) return;
  const bool mirror = s != lane.t;
  const bool merge_next = lane.next_row >= 0 && s > lane.t + 1;  // the next lane's row comes here
  const bool merge_prev = lane.prev_row >= 0 && s > lane.t;      // this lane's row went to the previous
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    if (ss.basis[j] < 0) continue;
    if (j == keep) {
#pragma unroll
      for (int i = 0; i < 3; ++i) lane.carry[i] = c[i][j];
      lane.carried = ss.basis[j];
      continue;
    }
#pragma unroll
    for (int i = 0; i < 3; ++i) {
      if (tt.basis[i] < 0 || (merge_prev && i == lane.prev_row)) continue;
      const Cplx sum = merge_next && i == lane.next_row ? c[i][j] + recv[j] : c[i][j];
      const Cplx v = 0.5 * sum;
      scatter(tt.basis[i], ss.basis[j], v);
      if (mirror) scatter(ss.basis[j], tt.basis[i], v);
    }
  }
}

}  // namespace efie
