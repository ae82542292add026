// The host kernel family: the serial backend, which is also the oracle's code (brute force
// included), and the loops the OpenMP backend shares: each loop carries an OpenMP work-sharing
// pragma that is active only when the kernels run threaded (kernels_openmp.cpp).
#include "host_kernels.hpp"

#include <algorithm>
#include <sstream>

namespace mps {

void HostKernels::load(const Problem& pr, double max_radius) {
  const Particles& ps = pr.particles;
  n_ = static_cast<int>(ps.size());
  if (pr.ghosts > ps.size()) throw copa::RuntimeError("load: more ghosts than particles");
  ghosts_ = static_cast<int>(pr.ghosts);
  const SearchGeometry sg = search_geometry(pr, max_radius, opt_);
  grid_ = sg.grid;
  skin_ = sg.skin;
  list_radius_ = sg.list_radius;
  reach_ = sg.reach;
  for (auto& a : f_) a.assign(n_, 0.0);
  f_[idx(Field::x)] = ps.x;
  f_[idx(Field::y)] = ps.y;
  f_[idx(Field::z)] = ps.z;
  f_[idx(Field::u)] = ps.u;
  f_[idx(Field::v)] = ps.v;
  f_[idx(Field::w)] = ps.w;
  f_[idx(Field::p)] = ps.p;
  type_ = ps.type;
  active_.assign(n_, 0);
  id_.resize(n_);
  for (int i = 0; i < n_; ++i) id_[i] = i;
  lists_valid_ = false;
  rebuilds_ = 0;
}

void HostKernels::store(Particles& out) {
  store_fields(out, grid_.dim);
  out.type.resize(n_);
  for (int i = 0; i < n_; ++i) out.type[id_[i]] = type_[i];
}

std::vector<double> HostKernels::get(Field f) {
  std::vector<double> out(n_);
  const auto& a = f_[idx(f)];
  for (int i = 0; i < n_; ++i) out[id_[i]] = a[i];
  return out;
}

void HostKernels::set(Field f, const std::vector<double>& values) {
  auto& a = f_[idx(f)];
  for (int i = 0; i < n_; ++i) a[i] = values[id_[i]];
}

void HostKernels::rebucket() {
  build_buckets(grid_, fd(Field::x), fd(Field::y), fd(Field::z), n_, parallel_, start_, order_, cell_);
  if (!opt_.reorder) return;
  // Reorder every per-particle array by bucket (gather through order).
  std::vector<double> tmp(n_);
  for (Field f : {Field::x, Field::y, Field::z, Field::u, Field::v, Field::w, Field::p}) {
    auto& a = f_[idx(f)];
#pragma omp parallel for if (parallel_) schedule(static)
    for (int k = 0; k < n_; ++k) tmp[k] = a[order_[k]];
    a.swap(tmp);
  }
  std::vector<std::uint8_t> t8(n_);
  std::vector<int> ti(n_);
  for (int k = 0; k < n_; ++k) {
    t8[k] = type_[order_[k]];
    ti[k] = id_[order_[k]];
  }
  type_.swap(t8);
  id_.swap(ti);
}

void HostKernels::build_verlet() {
  const View v = view();
  const BucketsView b = buckets();
  const double rl2 = list_radius_ * list_radius_;
  list_count_.assign(n_, 0);
  auto scan = [&](int i, auto&& emit) {
    const double xi = v.x[i], yi = v.y[i], zi = v.z[i];
    for_each_row_range(grid_, b.start, grid_.cx(xi), grid_.cy(yi), grid_.cz(zi), [&](int k0, int k1) {
      for (int k = k0; k < k1; ++k) {
        const int j = b.particle(k);
        const double dx = v.x[j] - xi, dy = v.y[j] - yi, dz = v.z[j] - zi;
        if (j != i && dx * dx + dy * dy + dz * dz < rl2) emit(j);
      }
    });
  };
  int capacity = 0;
#pragma omp parallel for if (parallel_) schedule(static) reduction(max : capacity)
  for (int i = 0; i < n_; ++i) {
    if (!v.is_target(i)) continue;  // a ghost has no list (count 0)
    int c = 0;
    scan(i, [&](int) { ++c; });
    list_count_[i] = c;
    capacity = std::max(capacity, c);
  }
  capacity_ = capacity;
  list_.assign(static_cast<std::size_t>(capacity_) * n_, 0);
#pragma omp parallel for if (parallel_) schedule(static)
  for (int i = 0; i < n_; ++i) {
    if (!v.is_target(i)) continue;
    int s = 0;
    scan(i, [&](int j) { list_[static_cast<std::size_t>(s++) * n_ + i] = j; });
  }
  xb_ = f_[idx(Field::x)];
  yb_ = f_[idx(Field::y)];
  zb_ = f_[idx(Field::z)];
  lists_valid_ = true;
  ++rebuilds_;
}

void HostKernels::prepare_neighbours(bool force) {
  if (opt_.strategy != Strategy::verlet) {
    rebucket();
    return;
  }
  bool rebuild = force || !lists_valid_;
  if (!rebuild) {
    const double* x = fd(Field::x);
    const double* y = fd(Field::y);
    const double* z = fd(Field::z);
    double worst = 0;
#pragma omp parallel for if (parallel_) reduction(max : worst)
    for (int i = 0; i < n_; ++i) {
      const double dx = x[i] - xb_[i], dy = y[i] - yb_[i], dz = z[i] - zb_[i];
      worst = std::max(worst, dx * dx + dy * dy + dz * dz);
    }
    rebuild = worst > 0.25 * skin_ * skin_;
  }
  if (rebuild) {
    rebucket();
    build_verlet();
  }
}

void HostKernels::number_density(double re) { run(DensityOp{re, re * re, fd(Field::n)}); }

// The loop of the predictor and the correction: `update(i, x, y, z, u, v, w, ax, ay, az, three)`
// on every fluid particle (walls and ghosts do not move).
template <class Update>
void HostKernels::for_each_fluid(const Update& update) {
  double *x = fd(Field::x), *y = fd(Field::y), *z = fd(Field::z);
  double *u = fd(Field::u), *v = fd(Field::v), *w = fd(Field::w);
  const double *ax = fd(Field::ax), *ay = fd(Field::ay), *az = fd(Field::az);
  const bool three = grid_.dim == 3;
#pragma omp parallel for if (parallel_) schedule(static)
  for (int i = 0; i < n_; ++i)
    if (type_[i] == fluid) update(i, x, y, z, u, v, w, ax, ay, az, three);
}

void HostKernels::predictor(double dt, double nu, const double g[3]) {
  for_each_fluid([=](int i, double* x, double* y, double* z, double* u, double* v, double* w, const double* ax,
                     const double* ay, const double* az, bool three) {
    predict_particle(i, x, y, z, u, v, w, ax, ay, az, dt, nu, g[0], g[1], g[2], three);
  });
}

void HostKernels::correct(double scale, double dt) {
  for_each_fluid([=](int i, double* x, double* y, double* z, double* u, double* v, double* w, const double* ax,
                     const double* ay, const double* az, bool three) {
    correct_particle(i, x, y, z, u, v, w, ax, ay, az, scale, dt, three);
  });
}

std::size_t HostKernels::ppe_setup(double n_surface, double n0, double src) {
  const double* n = fd(Field::n);
  double *rhs = fd(Field::rhs), *p = fd(Field::p);
  std::size_t count = 0;
#pragma omp parallel for if (parallel_) schedule(static) reduction(+ : count)
  for (int i = 0; i < n_; ++i) {
    const bool a = type_[i] != dummy && n[i] >= n_surface;
    active_[i] = a;
    rhs[i] = a ? src * (n[i] - n0) / n0 : 0.0;
    if (!a) p[i] = 0.0;
    count += a;
  }
  return count;
}

// Partial sums over fixed blocks, added in block order: an OpenMP reduction combines the threads'
// partial sums in the order they finish, so CG (and every particle after it) would differ in the
// last bits from run to run. Fixed blocks give the same sum in every run and for every thread count.
template <class Term>
double HostKernels::block_sum(const Term& term) const {
  constexpr int block = 4096;
  const int blocks = (n_ + block - 1) / block;
  std::vector<double> partial(blocks);
#pragma omp parallel for if (parallel_) schedule(static)
  for (int k = 0; k < blocks; ++k) {
    double s = 0;
    for (int i = k * block; i < std::min(n_, (k + 1) * block); ++i) s += term(i);
    partial[k] = s;
  }
  double s = 0;
  for (double p : partial) s += p;
  return s;
}

double HostKernels::dot(Field fa, Field fb) {
  const double *a = fd(fa), *b = fd(fb);
  return block_sum([a, b](int i) { return a[i] * b[i]; });
}

// The storage is in bucket order: owned particles are those whose load index id_ is below `owned`.
double HostKernels::dot_owned(Field fa, Field fb, std::size_t owned) {
  const double *a = fd(fa), *b = fd(fb);
  const int* id = id_.data();
  const long long limit = static_cast<long long>(owned);
  return block_sum([a, b, id, limit](int i) { return id[i] < limit ? a[i] * b[i] : 0.0; });
}

void HostKernels::remember_positions(std::size_t owned) {
  x_ref_.assign(owned, 0.0);
  y_ref_.assign(owned, 0.0);
  z_ref_.assign(owned, 0.0);
  const long long limit = static_cast<long long>(owned);
  const double *x = fd(Field::x), *y = fd(Field::y), *z = fd(Field::z);
  for (int i = 0; i < n_; ++i)
    if (id_[i] < limit) {
      x_ref_[id_[i]] = x[i];
      y_ref_[id_[i]] = y[i];
      z_ref_[id_[i]] = z[i];
    }
}

// A maximum is exact in any order, so the OpenMP reduction gives the same bits in every run.
double HostKernels::max_displacement(std::size_t owned) {
  if (x_ref_.size() != owned) throw copa::RuntimeError("max_displacement: positions of " + std::to_string(owned) +
                                                       " particles were not remembered");
  const long long limit = static_cast<long long>(owned);
  const double *x = fd(Field::x), *y = fd(Field::y), *z = fd(Field::z);
  double worst = 0;
#pragma omp parallel for if (parallel_) schedule(static) reduction(max : worst)
  for (int i = 0; i < n_; ++i) {
    if (id_[i] >= limit) continue;
    const double dx = x[i] - x_ref_[id_[i]], dy = y[i] - y_ref_[id_[i]], dz = z[i] - z_ref_[id_[i]];
    worst = std::max(worst, dx * dx + dy * dy + dz * dz);
  }
  return std::sqrt(worst);
}

std::size_t HostKernels::count_active(std::size_t owned) {
  const long long limit = static_cast<long long>(owned);
  std::size_t count = 0;
  for (int i = 0; i < n_; ++i) count += id_[i] < limit && active_[i];
  return count;
}

void HostKernels::axpy(double alpha, Field fx, Field fy) {
  const double* x = fd(fx);
  double* y = fd(fy);
#pragma omp parallel for if (parallel_) schedule(static)
  for (int i = 0; i < n_; ++i) y[i] += alpha * x[i];
}

void HostKernels::xpay(Field fx, double beta, Field fy) {
  const double* x = fd(fx);
  double* y = fd(fy);
#pragma omp parallel for if (parallel_) schedule(static)
  for (int i = 0; i < n_; ++i) y[i] = x[i] + beta * y[i];
}

void HostKernels::clamp_negative_pressure() {
  double* p = fd(Field::p);
#pragma omp parallel for if (parallel_) schedule(static)
  for (int i = 0; i < n_; ++i) p[i] = p[i] < 0 ? 0.0 : p[i];
}

void HostKernels::check_state() {
  const double *x = fd(Field::x), *y = fd(Field::y), *z = fd(Field::z);
  const double *u = fd(Field::u), *v = fd(Field::v), *w = fd(Field::w), *p = fd(Field::p);
  int bad_nan = -1, bad_out = -1;
#pragma omp parallel for if (parallel_) reduction(max : bad_nan, bad_out)
  for (int i = 0; i < n_; ++i) {
    if (std::isnan(x[i] + y[i] + z[i] + u[i] + v[i] + w[i] + p[i])) bad_nan = std::max(bad_nan, id_[i]);
    else if (!grid_.inside(x[i], y[i], z[i])) bad_out = std::max(bad_out, id_[i]);
  }
  if (bad_nan >= 0) throw copa::RuntimeError("NaN in the state of particle " + std::to_string(bad_nan) + " (time step too large?)");
  if (bad_out >= 0) throw copa::RuntimeError("particle " + std::to_string(bad_out) + " left the domain (bucket grid)");
}

std::size_t HostKernels::bytes_needed(std::size_t n, long long cells, double neighbours) const {
  std::size_t b = n * (field_count * sizeof(double) + 2 + 3 * sizeof(int)) + static_cast<std::size_t>(cells + 1) * sizeof(int);
  if (opt_.strategy == Strategy::verlet) b += static_cast<std::size_t>(n * (neighbours * 1.3 + 1) * sizeof(int)) + 3 * n * sizeof(double);
  return b + n * sizeof(double);  // reorder scratch
}

std::unique_ptr<MpsKernels> make_serial_kernels(const KernelOptions& o) { return std::make_unique<HostKernels>(o, false); }

}  // namespace mps
