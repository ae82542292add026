// The factory per backend, the search geometry, the host-driven CG and the neighbour statistics (host).
#include <algorithm>
#include <cmath>

#include "buckets.hpp"
#include "copa/errors.hpp"
#include "copa/gpu_model.hpp"
#include "copa/halo.hpp"
#include "kernels.hpp"
#include "neighbour_loops.hpp"

namespace mps {

SearchGeometry search_geometry(const Problem& pr, double max_radius, const KernelOptions& opt) {
  if (max_radius > pr.grid.edge * (1 + 1e-12)) throw copa::InputError("a radius exceeds the bucket edge");
  SearchGeometry g;
  g.grid = pr.grid;
  g.skin = opt.skin * pr.l0;
  g.list_radius = max_radius + g.skin;
  if (opt.strategy == Strategy::verlet) g.grid = widen(g.grid, g.list_radius);
  if (is_fine(opt.strategy)) g.grid = refine(g.grid, fine_divisions);
  g.reach = max_radius;
  return g;
}

std::unique_ptr<MpsKernels> make_kernels(copa::Backend b, const KernelOptions& o) {
  switch (b) {
    case copa::Backend::serial: return make_serial_kernels(o);
#if defined(COPA_HAVE_OPENMP)
    case copa::Backend::openmp: return make_openmp_kernels(o);
#endif
#if COPA_GPU
    case copa::Backend::cuda:
    case copa::Backend::hip: return make_gpu_kernels(o);
#endif
    default: throw copa::InputError("--backend " + copa::to_string(b) + " is not built");
  }
}

void MpsKernels::store_fields(Particles& out, int dim) {
  out.dim = dim;
  out.x = get(Field::x);
  out.y = get(Field::y);
  out.z = get(Field::z);
  out.u = get(Field::u);
  out.v = get(Field::v);
  out.w = get(Field::w);
  out.p = get(Field::p);
}

void MpsKernels::fill_ghosts(copa::halo::Exchange&, std::size_t) {
  throw copa::RuntimeError("fill_ghosts: the " + copa::to_string(backend()) +
                           " backend fills its ghosts on the host before load");
}

RebuiltLayout MpsKernels::migrate_on_device(const DeviceRebuild&, std::size_t) {
  throw copa::RuntimeError("migrate_on_device: the " + copa::to_string(backend()) + " backend migrates on the host");
}

// The exchange writes only the ghost slots its links name, so `owned` is not needed here.
void MpsKernels::refresh_ghosts(copa::halo::Exchange& exchange, Field f, std::size_t) {
  auto values = get(f);
  exchange.run(values.data());
  set(f, values);
}

CgResult MpsKernels::ppe_cg(double re, double coef, double diag, double tol, int max_iterations) {
  ppe_apply(Field::p, Field::adir, re, coef, diag);
  copy(Field::rhs, Field::res);
  axpy(-1.0, Field::adir, Field::res);
  copy(Field::res, Field::dir);
  const double bb = dot(Field::rhs, Field::rhs);
  double rr = dot(Field::res, Field::res);
  CgResult out;
  if (!(bb > 0)) return out;
  while (out.iterations < max_iterations && std::sqrt(rr / bb) > tol) {
    ppe_apply(Field::dir, Field::adir, re, coef, diag);
    const double dad = dot(Field::dir, Field::adir);
    if (!(dad > 0)) throw copa::RuntimeError("PPE conjugate gradients broke down (d^T A d = " + std::to_string(dad) + ")");
    const double alpha = rr / dad;
    axpy(alpha, Field::dir, Field::p);
    axpy(-alpha, Field::adir, Field::res);
    const double rr_new = dot(Field::res, Field::res);
    xpay(Field::res, rr_new / rr, Field::dir);
    rr = rr_new;
    ++out.iterations;
  }
  out.residual = std::sqrt(rr / bb);
  return out;
}

NeighbourStats neighbour_statistics(const Problem& pr, Strategy s, double re, double list_radius) {
  const Particles& ps = pr.particles;
  const int n = static_cast<int>(ps.size());
  const bool fine = is_fine(s);
  const Grid g = s == Strategy::verlet ? widen(pr.grid, list_radius) : (fine ? refine(pr.grid, fine_divisions) : pr.grid);
  std::vector<int> start, order, cell;
  build_buckets(g, ps.x.data(), ps.y.data(), ps.z.data(), n, true, start, order, cell);
  NeighbourStats st;
  double cand = 0, nb = 0;
  const double re2 = re * re, rl2 = list_radius * list_radius;
  // The targets: the particles before the ghosts (all on one rank); every candidate is a source.
  const int targets = n - static_cast<int>(pr.ghosts);
  if (targets <= 0) return st;
  // Every target up to 500k, else an evenly strided sample scaled up (large benchmark sizes).
  const int stride = std::max(1, targets / 500000);
#pragma omp parallel for schedule(static) reduction(+ : cand, nb)
  for (int i = 0; i < targets; i += stride) {
    const double xi = ps.x[i], yi = ps.y[i], zi = ps.z[i];
    const int cx = g.cx(xi), cy = g.cy(yi), cz = g.cz(zi);
    double rows = 0, in_list = 0;
    auto visit = [&](int k0, int k1) {
      rows += k1 - k0;
      for (int k = k0; k < k1; ++k) {
        const int j = order[k];
        const double dx = ps.x[j] - xi, dy = ps.y[j] - yi, dz = ps.z[j] - zi;
        const double r2 = dx * dx + dy * dy + dz * dz;
        if (j == i) continue;
        nb += r2 < re2;
        in_list += r2 < rl2;
      }
    };
    if (s == Strategy::fine_lean_cellrows)
      for_each_pruned_row_cell(g, start.data(), xi, yi, zi, re, [&](int k0, int k1, int, int) { visit(k0, k1); });
    else if (fine) for_each_pruned_row(g, start.data(), xi, yi, zi, re, [&](int k0, int k1, int, int) { visit(k0, k1); });
    else for_each_row_range(g, start.data(), cx, cy, cz, visit);
    if (s == Strategy::verlet) cand += in_list;
    else if (s == Strategy::brute) cand += n - 1;
    else cand += rows - 1;  // the 27 buckets and the 9 rows hold the same particles
  }
  const double scale = static_cast<double>(targets) / ((targets + stride - 1) / stride);
  st.candidates = cand * scale;
  st.neighbours = nb * scale;
  return st;
}

}  // namespace mps
