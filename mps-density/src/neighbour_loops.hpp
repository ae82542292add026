// The neighbour-iteration strategies as loops over candidates, written once for any op of
// neighbour_ops.hpp. Every target body returns at once for a particle that is not a target
// (View::is_target: a ghost of a distributed run), before it reads or writes anything. The
// per-target bodies are host-device functions (the GPU kernels call the same bodies); the host
// drivers add the outer loop (serial, or OpenMP when `parallel`).
#pragma once
#include "geometry.hpp"
#include "neighbour_ops.hpp"

namespace mps {

// Buckets after a counting sort: the particles of bucket c are at sorted positions
// start[c] .. start[c+1]-1; sorted position k holds particle order[k] (order == nullptr when the
// particle arrays themselves were reordered by bucket, i.e. the identity).
struct BucketsView {
  Grid grid;
  const int* start = nullptr;
  const int* order = nullptr;
  double reach = 0;  // fine-rows: the largest radius in use (the grid edge is reach / divisions)
  MPS_HD int particle(int k) const { return order ? order[k] : k; }
};

// The views of a backend's storage, built the same way by the host and the GPU backends:
// field(k) is the k-th of x, y, z, u, v, w, p; over MPI ranks (ghosts > 0) only the particles of
// load index (load_id, kept through the bucket reordering) below n - ghosts are targets.
template <class FieldAt>
View particle_view(FieldAt field, const std::uint8_t* type, int n, int dim, const int* load_id, int ghosts) {
  View v;
  v.x = field(0);
  v.y = field(1);
  v.z = field(2);
  v.u = field(3);
  v.v = field(4);
  v.w = field(5);
  v.p = field(6);
  v.type = type;
  v.n = n;
  v.dim = dim;
  if (ghosts > 0) {
    v.load_id = load_id;
    v.targets = n - ghosts;
  }
  return v;
}
// With reorder the storage is in bucket order (no index list); without, order[] maps to storage.
inline BucketsView buckets_view(const Grid& grid, const int* start, const int* order, bool reorder, double reach) {
  BucketsView b;
  b.grid = grid;
  b.start = start;
  b.order = reorder ? nullptr : order;
  b.reach = reach;
  return b;
}

// Verlet neighbour lists in ELL layout (list[s * n + i], s < count[i]); radius re_list = r_max + skin.
struct VerletView {
  const int* list = nullptr;
  const int* count = nullptr;
  int n = 0;
  int capacity = 0;
};

template <class Op>
MPS_HD void visit_candidate(const View& v, const Op& op, Acc<Op::K>& a, int i, double xi, double yi, double zi, int j) {
  if (j == i) return;
  const double dx = v.x[j] - xi, dy = v.y[j] - yi, dz = v.z[j] - zi;
  op.pair(a, i, j, dx, dy, dz, dx * dx + dy * dy + dz * dz);
}

// Brute force: every particle is a candidate (the O(N^2) oracle).
template <class Op>
MPS_HD void target_brute(const View& v, const Op& op, int i) {
  if (!v.is_target(i)) return;
  auto a = op.init(i);
  const double xi = v.x[i], yi = v.y[i], zi = v.z[i];
  for (int j = 0; j < v.n; ++j) visit_candidate(v, op, a, i, xi, yi, zi, j);
  op.finish(i, a);
}

// P-Flow's traversal: the 3x3x3 (3x3 in 2D) adjacent buckets one after another.
template <class Op>
MPS_HD void target_27_buckets(const View& v, const BucketsView& b, const Op& op, int i) {
  if (!v.is_target(i)) return;
  const Grid& g = b.grid;
  const double xi = v.x[i], yi = v.y[i], zi = v.z[i];
  const int cx = g.cx(xi), cy = g.cy(yi), cz = g.cz(zi);
  const int zlo = g.dim == 2 ? 0 : -1, zhi = g.dim == 2 ? 0 : 1;
  auto a = op.init(i);
  for (int oz = zlo; oz <= zhi; ++oz) {
    const int z = cz + oz;
    if (z < 0 || z >= g.nz) continue;
    for (int oy = -1; oy <= 1; ++oy) {
      const int y = cy + oy;
      if (y < 0 || y >= g.ny) continue;
      for (int ox = -1; ox <= 1; ++ox) {
        const int x = cx + ox;
        if (x < 0 || x >= g.nx) continue;
        const int c = g.cell(x, y, z);
        for (int k = b.start[c]; k < b.start[c + 1]; ++k) visit_candidate(v, op, a, i, xi, yi, zi, b.particle(k));
      }
    }
  }
  op.finish(i, a);
}

// Bucket-sorted traversal: buckets cx-1..cx+1 of one row are one contiguous range of sorted
// positions, so a target scans 9 (3D) or 3 (2D) contiguous ranges.
template <class F>
MPS_HD void for_each_row_range(const Grid& g, const int* start, int cx, int cy, int cz, F&& f) {
  const int xlo = cx > 0 ? cx - 1 : 0, xhi = cx < g.nx - 1 ? cx + 1 : g.nx - 1;
  const int zlo = g.dim == 2 ? 0 : (cz > 0 ? cz - 1 : 0);
  const int zhi = g.dim == 2 ? 0 : (cz < g.nz - 1 ? cz + 1 : g.nz - 1);
  const int ylo = cy > 0 ? cy - 1 : 0, yhi = cy < g.ny - 1 ? cy + 1 : g.ny - 1;
  for (int z = zlo; z <= zhi; ++z)
    for (int y = ylo; y <= yhi; ++y) f(start[g.cell(xlo, y, z)], start[g.cell(xhi, y, z) + 1]);
}

template <class Op>
MPS_HD void target_rows(const View& v, const BucketsView& b, const Op& op, int i) {
  if (!v.is_target(i)) return;
  const Grid& g = b.grid;
  const double xi = v.x[i], yi = v.y[i], zi = v.z[i];
  auto a = op.init(i);
  for_each_row_range(g, b.start, g.cx(xi), g.cy(yi), g.cz(zi), [&](int k0, int k1) {
    for (int k = k0; k < k1; ++k) visit_candidate(v, op, a, i, xi, yi, zi, b.particle(k));
  });
  op.finish(i, a);
}

// Fine buckets (edge h = reach / d) with per-target pruning: for each (y, z) row of buckets
// within reach, the squared distance d2 from the target to the row's (y, z) rectangle; rows with
// d2 >= reach^2 are skipped, and in the others only the buckets between x_i - rx and x_i + rx,
// rx >= sqrt(reach^2 - d2), are scanned (one contiguous range). Any j with |r_j - r_i| < reach
// lies in a scanned range: its (y, z) distance is >= d2 of its row, so |x_j - x_i| < rx, and
// the bucket index is monotone in x. The margin 1e-9 on reach covers the rounding of the bucket
// bounds; rx is taken in FP32 (one hardware square root instead of an FP64 one) and enlarged by
// 1e-6 relative, above the FP32 rounding (< 2e-7), so it never falls below the exact value.
// Scanned volume per target for d = 2: 85 candidates for P-Flow's tank instead of 213.
template <class F>
MPS_HD void for_each_pruned_row(const Grid& g, const int* start, double xi, double yi, double zi, double reach, F&& f) {
  const double rs = reach * (1.0 + 1e-9), rs2 = rs * rs;
  const int ylo = g.cy(yi - rs), yhi = g.cy(yi + rs);
  const int zlo = g.dim == 2 ? 0 : g.cz(zi - rs), zhi = g.dim == 2 ? 0 : g.cz(zi + rs);
  for (int z = zlo; z <= zhi; ++z) {
    const double zb = g.z0 + z * g.edge;
    const double dz = g.dim == 2 ? 0.0 : (zi < zb ? zb - zi : (zi > zb + g.edge ? zi - zb - g.edge : 0.0));
    for (int y = ylo; y <= yhi; ++y) {
      const double yb = g.y0 + y * g.edge;
      const double dy = yi < yb ? yb - yi : (yi > yb + g.edge ? yi - yb - g.edge : 0.0);
      const double d2 = dy * dy + dz * dz;
      if (d2 >= rs2) continue;
      const double rx = static_cast<double>(sqrtf(static_cast<float>(rs2 - d2)) * 1.000001f);
      f(start[g.cell(g.cx(xi - rx), y, z)], start[g.cell(g.cx(xi + rx), y, z) + 1], y, z);
    }
  }
}

// The same pruned rows chosen in FP32, in units of the bucket edge and relative to the target's
// own bucket (cx, cy, cz) (fine-lean-cellrows): for_each_pruned_row spends per row two FP64
// floors and float-to-int conversions, an IEEE square root and FP64 distances; by ncu's
// instruction count and a host model of the lockstep walk the row set-ups are roughly half of
// fine-lean's instructions (RESULTS.md, "Profile of fine-lean"). Here the target's offset in its bucket,
// f = u - floor(u) with u = (x - x0) / edge, is exact in FP64 and then rounded to float (< 6e-8);
// a row (cy + oy, cz + oz) lies at distance d = max(0, oy - f, f - oy - 1) per axis (in edges,
// for any f), it is skipped when dy^2 + dz^2 >= D^2 with D = reach / edge + m, and scanned
// over the buckets cx + floor(fx - rx) .. cx + floor(fx + rx), rx = sqrt(D^2 - dy^2 - dz^2) + m.
// The margin m = 1e-4 edge covers every rounding with room to spare: the float offsets and
// arithmetic (< 1e-6 edge), the approximate device square root (relative 2^-22, < 1e-6 edge) and
// the bucket index of a neighbour, floor(u_j) with u_j off by < 1e-9 edge for grids of up to
// 10^6 buckets a side (a few FP64 roundings of u <= 10^6). So every j with |r_j - r_i| < reach
// is in a scanned range (the argument of for_each_pruned_row, in edge units), and the margin adds
// a bucket only where a bucket bound falls within 1e-4 edge of the exact range end.
MPS_HD float row_reach_sqrt(float t) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return t * rsqrtf(t);  // one MUFU.RSQ instead of the IEEE square root's refinement
#else
  return std::sqrt(t);
#endif
}
MPS_HD float edge_distance(float offset, float f) {  // from f to the bucket [offset, offset + 1)
  const float below = offset - f, above = f - offset - 1.0f;
  return below > 0.0f ? below : (above > 0.0f ? above : 0.0f);
}
template <class F>
MPS_HD void for_each_pruned_row_cell(const Grid& g, const int* start, double xi, double yi, double zi, double reach,
                                     F&& f) {
  constexpr float m = 1e-4f;
  const int cx = g.cx(xi), cy = g.cy(yi), cz = g.cz(zi);
  const float fx = static_cast<float>((xi - g.x0) * g.inv_edge - cx);
  const float fy = static_cast<float>((yi - g.y0) * g.inv_edge - cy);
  const float fz = g.dim == 2 ? 0.0f : static_cast<float>((zi - g.z0) * g.inv_edge - cz);
  const float d = static_cast<float>(reach * g.inv_edge) + m, d2 = d * d;
  const int ylo = g.clampi(cy + static_cast<int>(floorf(fy - d)), g.ny);
  const int yhi = g.clampi(cy + static_cast<int>(floorf(fy + d)), g.ny);
  const int zlo = g.dim == 2 ? 0 : g.clampi(cz + static_cast<int>(floorf(fz - d)), g.nz);
  const int zhi = g.dim == 2 ? 0 : g.clampi(cz + static_cast<int>(floorf(fz + d)), g.nz);
  for (int z = zlo; z <= zhi; ++z) {
    const float dz = g.dim == 2 ? 0.0f : edge_distance(static_cast<float>(z - cz), fz);
    for (int y = ylo; y <= yhi; ++y) {
      const float dy = edge_distance(static_cast<float>(y - cy), fy);
      const float r2 = dy * dy + dz * dz;
      if (r2 >= d2) continue;
      const float rx = row_reach_sqrt(d2 - r2) + m;
      const int row = (z * g.ny + y) * g.nx;
      const int x0 = g.clampi(cx + static_cast<int>(floorf(fx - rx)), g.nx);
      const int x1 = g.clampi(cx + static_cast<int>(floorf(fx + rx)), g.nx);
      f(start[row + x0], start[row + x1 + 1], y, z);
    }
  }
}

template <class Op>
MPS_HD void target_pruned_rows(const View& v, const BucketsView& b, const Op& op, int i) {
  if (!v.is_target(i)) return;
  const double xi = v.x[i], yi = v.y[i], zi = v.z[i];
  auto a = op.init(i);
  for_each_pruned_row(b.grid, b.start, xi, yi, zi, b.reach, [&](int k0, int k1, int, int) {
    for (int k = k0; k < k1; ++k) visit_candidate(v, op, a, i, xi, yi, zi, b.particle(k));
  });
  op.finish(i, a);
}

template <class Op>
MPS_HD void target_verlet(const View& v, const VerletView& l, const Op& op, int i) {
  if (!v.is_target(i)) return;
  const double xi = v.x[i], yi = v.y[i], zi = v.z[i];
  auto a = op.init(i);
  const int c = l.count[i];
  for (int s = 0; s < c; ++s) visit_candidate(v, op, a, i, xi, yi, zi, l.list[static_cast<long long>(s) * l.n + i]);
  op.finish(i, a);
}

}  // namespace mps
