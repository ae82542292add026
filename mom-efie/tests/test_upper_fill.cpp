// The host-side pieces of the triangle-pair-upper GPU fill: the grid covers every unordered
// triangle pair exactly once; the symmetric block formed from one set of summed moments equals
// B(t,s) + B(s,t)^T from two far blocks; the threads' code (upper_thread_pairs, merge=source;
// upper_lane_* with the lanes' exchange done in turn, merge=lanes) run over the whole grid with a
// plain scatter gives the symmetrised far matrix, with fewer scatters than one per entry and
// direction. The GPU fills themselves are checked against the serial oracle by mom-efie.gpu
// (Gpu.variants_match_serial).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <vector>

#include <gtest/gtest.h>

#include "efie_pair.hpp"
#include "kernels.hpp"
#include "upper_fill.hpp"

using namespace efie;

TEST(UpperFill, grid_covers_each_unordered_pair_once) {
  for (long nt : {1L, 2L, 15L, 16L, 17L, 127L, 128L, 129L, 255L, 1000L, 2049L}) {
    const long tiles = (nt + upper_tile - 1) / upper_tile;
    std::vector<int> count(std::size_t(nt * nt), 0);
    const long blocks = upper_block_count(nt);
    long previous = -1;
    for (long b = 0; b < blocks; ++b) {
      int x = -1, y = -1;
      upper_block(b, nt, x, y);
      ASSERT_GE(x, 0);
      ASSERT_LT(x, tiles) << "nt " << nt << " block " << b;
      ASSERT_GE(y, 0);
      ASSERT_LT(y, upper_source_chunks(nt));
      // chunks in order, tiles fastest: the linear order of (y, x) is the block order
      const long order = long(y) * tiles + x;
      ASSERT_GT(order, previous);
      previous = order;
      bool any = false;
      for (int l = 0; l < upper_tile; ++l) {
        const long t = long(x) * upper_tile + l;
        if (t >= nt) break;
        const long s_end = std::min(nt, long(y + 1) * upper_chunk);
        for (long s = std::max(t, long(y) * upper_chunk); s < s_end; ++s) {
          ++count[std::size_t(t * nt + s)];
          any = true;
        }
      }
      EXPECT_TRUE(any) << "nt " << nt << ": block " << b << " (tile " << x << ", chunk " << y << ") has no pair s >= t";
    }
    for (long t = 0; t < nt; ++t)
      for (long s = 0; s < nt; ++s) ASSERT_EQ(count[std::size_t(t * nt + s)], s >= t ? 1 : 0) << "nt " << nt << " pair " << t << ", " << s;
  }
}

TEST(UpperFill, symmetric_moments_give_both_blocks) {
  const Problem p = make_problem(make_sphere(1.0, 3), 2.0, 1.0, PlaneWave{});
  std::vector<QuadTriangle> q;
  for (const auto& t : p.triangles) q.push_back(make_quad_triangle(t));
  const int nt = int(q.size());
  const double k = p.k;
  double worst = 0;
  // neighbours, a self pair and far pairs (the far formula is applied to all of them in the fill)
  for (int t : {0, 1, 7, nt / 2, nt - 1})
    for (int s : {0, 1, 2, 5, nt / 3, nt - 2}) {
      Cplx ts[3][3], st[3][3], sym[3][3];
      far_block_local(q[t], q[s], k, ts);
      far_block_local(q[s], q[t], k, st);
      block_from_moments(symmetric_far_moments(q[t], q[s], k), q[t], q[s], k, sym);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          const Cplx want = ts[i][j] + st[j][i];
          const double scale = std::hypot(ts[i][j].re, ts[i][j].im) + std::hypot(st[j][i].re, st[j][i].im);
          if (scale == 0) continue;  // an edge without a basis (c_i = 0)
          worst = std::max(worst, std::hypot(sym[i][j].re - want.re, sym[i][j].im - want.im) / scale);
        }
    }
  std::cout << "  worst relative difference of the symmetric block: " << worst << "\n";
  EXPECT_LT(worst, 1e-13);
}

namespace {

struct PlainScatter {
  std::vector<Cplx>* a;
  long n;
  long* count;
  void operator()(int row, int col, Cplx v) const {
    Cplx& e = (*a)[std::size_t(row) + std::size_t(col) * std::size_t(n)];
    e = e + v;
    ++*count;
  }
};

// Every block of the grid, every thread, in order, with the plain scatter (merge=source).
std::vector<Cplx> upper_fill_on_host(const std::vector<QuadTriangle>& q, long n, double k, long& scatters) {
  const int nt = int(q.size());
  std::vector<Cplx> a(std::size_t(n * n), Cplx{0, 0});
  scatters = 0;
  for (long b = 0; b < upper_block_count(nt); ++b) {
    int x, y;
    upper_block(b, nt, x, y);
    const int s0 = y * upper_chunk, s_end = std::min(nt, s0 + upper_chunk);
    for (int l = 0; l < upper_tile; ++l) {
      const int t = x * upper_tile + l;
      if (t >= nt) break;
      upper_thread_pairs(q[t], t, q.data() + s0, s0, s_end, k, PlainScatter{&a, n, &scatters});
    }
  }
  return a;
}

// merge=lanes: every block, each warp's 32 lanes step by step, the next lane's send
// handed over as the device's shuffle does.
std::vector<Cplx> upper_lanes_fill_on_host(const std::vector<QuadTriangle>& q, long n, double k, long& scatters) {
  const int nt = int(q.size());
  std::vector<Cplx> a(std::size_t(n * n), Cplx{0, 0});
  scatters = 0;
  const PlainScatter scatter{&a, n, &scatters};
  for (long b = 0; b < upper_block_count(nt); ++b) {
    int x, y;
    upper_block(b, nt, x, y);
    const int s0 = y * upper_chunk, s_end = std::min(nt, s0 + upper_chunk);
    const QuadTriangle* own = q.data() + long(x) * upper_tile;
    for (int w = 0; w < upper_tile; w += 32) {
      std::vector<UpperLane> lanes;
      for (int l = w; l < w + 32; ++l) lanes.push_back(make_upper_lane(own, l, l % 32, x * upper_tile + l, nt));
      auto tt = [&](int l) -> const QuadTriangle& { return lanes[std::size_t(l)].t < nt ? own[w + l] : q[0]; };
      for (int s = s0; s < s_end; ++s) {
        Cplx c[32][3][3], send[32][3], recv[32][3];
        int keep[32];
        for (int l = 0; l < 32; ++l) {
          upper_lane_block(lanes[std::size_t(l)], tt(l), q.data() + s0, s0, s_end, s, k, c[l], keep[l]);
          upper_lane_send(lanes[std::size_t(l)], c[l], send[l]);
        }
        for (int l = 0; l < 32; ++l)
          for (int j = 0; j < 3; ++j) recv[l][j] = l < 31 ? send[l + 1][j] : Cplx{0, 0};
        for (int l = 0; l < 32; ++l)
          upper_lane_write(lanes[std::size_t(l)], tt(l), q[std::size_t(s)], s, c[l], keep[l], recv[l], scatter);
      }
    }
  }
  return a;
}

// (P + P^T)/2 with P every ordered pair's far block (triangle-pair's arithmetic), then symmetrised.
std::vector<Cplx> symmetrised_far(const std::vector<QuadTriangle>& q, long n, double k) {
  std::vector<Cplx> p(std::size_t(n * n), Cplx{0, 0});
  for (const auto& t : q)
    for (const auto& s : q) {
      Cplx b[3][3];
      far_block_local(t, s, k, b);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          if (t.basis[i] >= 0 && s.basis[j] >= 0) {
            Cplx& e = p[std::size_t(t.basis[i]) + std::size_t(s.basis[j]) * std::size_t(n)];
            e = e + b[i][j];
          }
    }
  std::vector<Cplx> a(p.size());
  for (long r = 0; r < n; ++r)
    for (long c = 0; c < n; ++c) a[std::size_t(r + c * n)] = 0.5 * (p[std::size_t(r + c * n)] + p[std::size_t(c + r * n)]);
  return a;
}

// Scatters of the one-pass fill without any merge: each unordered pair's entries (t_i, s_j) with
// both bases present, twice unless s = t (the mirrored write).
long unmerged_scatters(const std::vector<QuadTriangle>& q) {
  long count = 0;
  for (std::size_t t = 0; t < q.size(); ++t)
    for (std::size_t s = t; s < q.size(); ++s)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          if (q[t].basis[i] >= 0 && q[s].basis[j] >= 0) count += s == t ? 1 : 2;
  return count;
}

double rel_frobenius(const std::vector<Cplx>& a, const std::vector<Cplx>& b) {
  double d = 0, s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d += (a[i].re - b[i].re) * (a[i].re - b[i].re) + (a[i].im - b[i].im) * (a[i].im - b[i].im);
    s += b[i].re * b[i].re + b[i].im * b[i].im;
  }
  return std::sqrt(d / s);
}

}  // namespace

// A sphere of 500 triangles (4 test tiles, 32 source chunks, the last tile partial) and an open
// plate (edges without a basis).
TEST(UpperFill, threads_over_the_grid_give_the_symmetrised_far_matrix) {
  bool sphere = true;
  for (const Problem& p :
       {make_problem(make_sphere(1.0, 5), 2.0, 1.0, PlaneWave{}), make_problem(make_plate(1.0, 7), 2.0, 0.5, PlaneWave{})}) {
    std::vector<QuadTriangle> q;
    for (const auto& t : p.triangles) q.push_back(make_quad_triangle(t));
    const long n = p.unknowns();
    const auto ref = symmetrised_far(q, n, p.k);
    long merged_scatters = 0, lanes_scatters = 0;
    const long plain_scatters = unmerged_scatters(q);
    const double merged = rel_frobenius(upper_fill_on_host(q, n, p.k, merged_scatters), ref);
    const double lanes = rel_frobenius(upper_lanes_fill_on_host(q, n, p.k, lanes_scatters), ref);
    std::cout << "  " << q.size() << " triangles, N = " << n << ": relative Frobenius vs symmetrised far, merge=source "
              << merged << ", merge=lanes " << lanes << "; scatters without merging " << plain_scatters << " -> " << merged_scatters << " ("
              << double(merged_scatters) / double(plain_scatters) << ") -> " << lanes_scatters << " ("
              << double(lanes_scatters) / double(plain_scatters) << ")\n";
    EXPECT_LT(merged, 1e-14);
    EXPECT_LT(lanes, 1e-14);
    EXPECT_LT(merged_scatters, plain_scatters);
    EXPECT_LT(lanes_scatters, merged_scatters);
    // The merge pays only while consecutive triangles share edges: on the sphere (strips of up and
    // down triangles) it must save at least a fifth of the atomics.
    if (sphere) {
      EXPECT_LT(double(merged_scatters), 0.8 * double(plain_scatters));
    }
    sphere = false;
  }
}
