// Device kernels of the AMR step (amr_gpu.hpp). The update block follows the subgrid6 body of
// kernels_gpu.cu (one 6^3 subgrid per block, the same phases and index maps) with the gather
// taken from the step plan and the AMR update rules of Stepper::update_oct (amr_solver.cpp):
// the same functions of hydro_math.hpp and amr_interp.hpp, so the result equals the host
// oracle's to round-off (FMA contraction differs between host and device).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "amr_gpu.hpp"
#include "amr_interp.hpp"
#include "copa/device_memory.hpp"
#include "copa/errors.hpp"
#include "copa/gpu.hpp"
#include "tile_geometry.hpp"

namespace ro::amr {
namespace {

constexpr int T = 2, S = 6, S3 = 216, E = 4, E3 = 64, F = (T + 1) * T * T;
constexpr int update_threads = 64;

__device__ inline int tidx(int i, int j, int k, int n) { return i + n * (j + n * k); }

__global__ void ghost_kernel(const double* __restrict__ u, long long stride, long long nghost,
                             const long long* __restrict__ src, const unsigned char* __restrict__ flip, double gamma,
                             double* __restrict__ ghost) {
  const long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (g >= nghost) return;
  double v[7][nvar];
  for (int k = 0; k < 7; ++k) {
    const long long c = src[7 * g + k];
    for (int f = 0; f < nvar; ++f) v[k][f] = u[f * stride + c];
    for (int a = 0; a < 3; ++a)
      if ((flip[7 * g + k] >> a) & 1) v[k][1 + a] = -v[k][1 + a];
  }
  double um[3][nvar], up[3][nvar], sons[8][nvar];
  for (int a = 0; a < 3; ++a)
    for (int f = 0; f < nvar; ++f) {
      um[a][f] = v[1 + 2 * a][f];
      up[a][f] = v[2 + 2 * a][f];
    }
  prolong(v[0], um, up, gamma, sons);
  for (int c = 0; c < 8; ++c)
    for (int f = 0; f < nvar; ++f) ghost[g * 8 * nvar + c * nvar + f] = sons[c][f];
}

struct UpdateArgs {
  const std::int32_t* leaf_octs;
  const std::int32_t* slots;
  const signed char* edges;
  const unsigned long long* skip;
  const unsigned char* keep;
  const std::int8_t* level;
  const std::int32_t* son;
  const double* ghost;
  double* fine_flux;
  long long stride;
  double dt, dx0;
};

// One block per leaf oct, all levels in one launch.
__global__ void __launch_bounds__(update_threads) leaf_update_kernel(UpdateArgs a, HydroParams hp,
                                                                     const double* __restrict__ u,
                                                                     double* __restrict__ unew) {
  __shared__ double q[nvar * S3];          // primitives, later the fluxes [3][nvar][F]
  __shared__ double ext[4 * nvar * E3];    // qh, then dq x, y, z
  __shared__ int slot[27];
  const long long i = blockIdx.x;
  const int o = a.leaf_octs[i];
  const int l = a.level[o];
  const double dtdx = a.dt / (a.dx0 / double(1 << l));
  for (int s = threadIdx.x; s < 27; s += blockDim.x) slot[s] = a.slots[27 * i + s];
  int lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = a.edges[6 * i + d];
    hi[d] = a.edges[6 * i + 3 + d];
  }
  __syncthreads();
  // Phase 1: gather (27 slots x 8 cells) from the state or the prolonged ghost slots.
  for (int j = threadIdx.x; j < 27 * 8; j += blockDim.x) {
    const int s = j >> 3, lc = j & 7;
    const int sl[3] = {s % 3, (s / 3) % 3, s / 9};
    int tc[3], loc[3];
    bool flip[3];
    for (int d = 0; d < 3; ++d) {
      tc[d] = 2 * sl[d] + ((lc >> d) & 1);
      int sd;
      tile_axis_source(tc[d], 1, lo[d], hi[d], sd, loc[d], flip[d]);
    }
    const int local = loc[0] + 2 * loc[1] + 4 * loc[2];
    const int src = slot[s];
    double uc[nvar];
    if (src >= 0) {
      for (int f = 0; f < nvar; ++f) uc[f] = u[f * a.stride + (long long)src * 8 + local];
    } else {
      const double* gv = a.ghost + (long long)(-1 - src) * 8 * nvar + local * nvar;
      for (int f = 0; f < nvar; ++f) uc[f] = gv[f];
    }
    for (int d = 0; d < 3; ++d)
      if (flip[d]) uc[1 + d] = -uc[1 + d];
    double qc[nvar];
    cons_to_prim(uc, hp.gamma, qc);
    const int t = tidx(tc[0], tc[1], tc[2], S);
    for (int f = 0; f < nvar; ++f) q[f * S3 + t] = qc[f];
  }
  __syncthreads();
  // Phase 2: slopes and half-step predictor on the interior + face cells.
  for (int m = threadIdx.x; m < predictor_cells(T); m += blockDim.x) {
    int ei, ej, ek;
    predictor_cell(m, T, ei, ej, ek);
    const int e = tidx(ei, ej, ek, E);
    const int c = tidx(ei + 1, ej + 1, ek + 1, S);
    const int step[3] = {1, S, S * S};
    double qc[nvar], d[3][nvar], qh[nvar];
    for (int f = 0; f < nvar; ++f) qc[f] = q[f * S3 + c];
    for (int x = 0; x < 3; ++x)
      for (int f = 0; f < nvar; ++f)
        d[x][f] = limited_slope(q[f * S3 + c - step[x]], qc[f], q[f * S3 + c + step[x]], hp.slope_type);
    predict_half_step(qc, d[0], d[1], d[2], dtdx, hp.gamma, qh);
    for (int f = 0; f < nvar; ++f) {
      ext[f * E3 + e] = qh[f];
      for (int x = 0; x < 3; ++x) ext[(nvar + x * nvar + f) * E3 + e] = d[x][f];
    }
  }
  __syncthreads();
  // Phase 3: one Riemann solve per face; the fluxes overwrite the primitives.
  double* flux = q;
  for (int t = threadIdx.x; t < 3 * F; t += blockDim.x) {
    const int x = t / F, r = t % F;
    const int nx = x == 0 ? T + 1 : T, ny = x == 1 ? T + 1 : T;
    const int fi = r % nx, fj = (r / nx) % ny, fk = r / (nx * ny);
    const int er = tidx(fi + 1, fj + 1, fk + 1, E);
    const int el = er - (x == 0 ? 1 : (x == 1 ? E : E * E));
    double qhl[nvar], dql[nvar], qhr[nvar], dqr[nvar], fl[nvar];
    for (int f = 0; f < nvar; ++f) {
      qhl[f] = ext[f * E3 + el];
      qhr[f] = ext[f * E3 + er];
      dql[f] = ext[(nvar + x * nvar + f) * E3 + el];
      dqr[f] = ext[(nvar + x * nvar + f) * E3 + er];
    }
    if (x == 0) face_flux<0>(qhl, dql, qhr, dqr, hp, fl);
    else if (x == 1) face_flux<1>(qhl, dql, qhr, dqr, hp, fl);
    else face_flux<2>(qhl, dql, qhr, dqr, hp, fl);
    for (int f = 0; f < nvar; ++f) flux[(x * nvar + f) * F + r] = fl[f];
  }
  __syncthreads();
  // Phase 4: the leaf cells (faces next to a refined neighbour take no flux), and the fine face
  // fluxes of the faces next to a coarser region.
  const int j = threadIdx.x;
  if (j < 8) {
    const long long g = (long long)o * 8 + j;
    if (a.son[g] < 0) {
      const int ci = j & 1, cj = (j >> 1) & 1, ck = j >> 2;
      const int fx = ci + (T + 1) * (cj + T * ck), fy = ci + T * (cj + (T + 1) * ck), fz = ci + T * (cj + T * ck);
      const unsigned long long sk = a.skip[i] >> (6 * j);
      for (int f = 0; f < nvar; ++f) {
        const double* fxv = flux + (0 * nvar + f) * F;
        const double* fyv = flux + (1 * nvar + f) * F;
        const double* fzv = flux + (2 * nvar + f) * F;
        const double fxl = (sk & 1) ? 0.0 : fxv[fx], fxh = (sk & 2) ? 0.0 : fxv[fx + 1];
        const double fyl = (sk & 4) ? 0.0 : fyv[fy], fyh = (sk & 8) ? 0.0 : fyv[fy + T];
        const double fzl = (sk & 16) ? 0.0 : fzv[fz], fzh = (sk & 32) ? 0.0 : fzv[fz + T * T];
        unew[f * a.stride + g] = conservative_update(u[f * a.stride + g], fxl, fxh, fyl, fyh, fzl, fzh, dtdx);
      }
    }
  } else if (j < 8 + 24) {
    const int face = (j - 8) / 4, sub = (j - 8) % 4;
    if ((a.keep[i] >> face) & 1) {
      const int x = face / 2, b = x == 0 ? 1 : 0, c = 3 - x - b;
      int p[3];
      p[x] = face % 2 ? T : 0;
      p[b] = sub & 1;
      p[c] = sub >> 1;
      const int nx = x == 0 ? T + 1 : T, ny = x == 1 ? T + 1 : T;
      const int r = p[0] + nx * (p[1] + ny * p[2]);
      double* out = a.fine_flux + ((long long)o * 6 + face) * 4 * nvar + sub * nvar;
      for (int f = 0; f < nvar; ++f) out[f] = flux[(x * nvar + f) * F + r];
    }
  }
}

__global__ void reflux_kernel(long long n, const std::int32_t* __restrict__ octs, const long long* __restrict__ begin,
                              const RefluxFace* __restrict__ faces, const std::int8_t* __restrict__ level,
                              const double* __restrict__ fine_flux, long long stride, double dt, double dx0,
                              double* __restrict__ unew) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double dtdx = dt / (dx0 / double(1 << level[octs[i]]));
  for (long long e = begin[i]; e < begin[i + 1]; ++e) {
    const RefluxFace rf = faces[e];
    const double* in = fine_flux + ((long long)rf.fine_oct * 6 + (rf.face ^ 1)) * 4 * nvar;
    for (int f = 0; f < nvar; ++f) {
      const double fl = (in[f] + in[nvar + f] + in[2 * nvar + f] + in[3 * nvar + f]) * 0.25;
      double& v = unew[f * stride + rf.cell];
      v = rf.face % 2 ? v - dtdx * fl : v + dtdx * fl;
    }
  }
}

__global__ void restrict_kernel(long long first, long long last, const long long* __restrict__ cell,
                                const long long* __restrict__ son, long long stride, double* __restrict__ u) {
  const long long i = first + blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= last) return;
  restrict_cell(u, stride, cell[i], son[i]);
}

// Per level the largest leaf signal speed (bits of a non-negative double, ordered like the value)
// and the lowest bad leaf cell as ~index: integer atomicMax, exact and order-independent.
__global__ void leaf_scan_kernel(const double* __restrict__ u, long long ncell, const std::int32_t* __restrict__ son,
                                 const std::int8_t* __restrict__ level, double gamma,
                                 unsigned long long* __restrict__ speed_bits, unsigned long long* __restrict__ bad_not) {
  for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < ncell; g += (long long)gridDim.x * blockDim.x) {
    if (son[g] >= 0) continue;
    double uc[nvar];
    for (int f = 0; f < nvar; ++f) uc[f] = u[f * ncell + g];
    bool ok;
    const double s = cell_signal_speed(uc, gamma, ok);
    atomicMax(&speed_bits[level[g >> 3]], static_cast<unsigned long long>(__double_as_longlong(s)));
    if (!ok) atomicMax(bad_not, ~static_cast<unsigned long long>(g));
  }
}

template <class T>
void put(copa::gpu::DeviceArray<T>& d, const std::vector<T>& h) {
  d = copa::gpu::DeviceArray<T>(std::max<std::size_t>(h.size(), 1));
  if (!h.empty()) copa::gpu::copy_to_device(d.data(), h.data(), h.size() * sizeof(T));
}

class GpuAmrStep final : public DeviceStep {
 public:
  GpuAmrStep(const HydroParams& hp, bool reflux) : hp_(hp), reflux_(reflux) {}

  void upload(const Tree& t, const StepPlan& p, const StepLists& lists, const std::vector<double>& u) override {
    const std::size_t n = static_cast<std::size_t>(t.noct());
    const std::size_t nghost = p.ghost_flip.size() / 7;
    const double bytes = 2.0 * u.size() * 8 + n * fine_flux_per_oct * 8.0 + n * (1 + 32) + nghost * (8 * nvar * 8 + 7 * 9) +
                         p.leaf_octs.size() * (27 * 4 + 6 + 8 + 1 + 4) + p.restrict_cell.size() * 16.0 +
                         lists.faces.size() * sizeof(RefluxFace) + lists.reflux_octs.size() * 12.0 + 4096;
    // The previous tree's arrays are released first (every array below is replaced).
    u_ = copa::gpu::DeviceArray<double>();
    unew_ = copa::gpu::DeviceArray<double>();
    fine_flux_ = copa::gpu::DeviceArray<double>();
    ghost_ = copa::gpu::DeviceArray<double>();
    copa::gpu::require_device_memory(static_cast<std::size_t>(bytes), "ramses-oct AMR state, fluxes and step plan");
    noct_ = static_cast<long long>(n);
    max_level_ = t.max_level;
    dx0_ = t.base->dx;
    put(u_, u);
    unew_ = copa::gpu::DeviceArray<double>(u.size());
    copa::gpu::copy_to_device(unew_.data(), u.data(), u.size() * sizeof(double));
    fine_flux_ = copa::gpu::DeviceArray<double>(n * fine_flux_per_oct);
    copa::gpu::fill_zero(fine_flux_.data(), fine_flux_.bytes());
    put(level_, t.level);
    put(son_, t.son);
    put(leaf_octs_, p.leaf_octs);
    put(slots_, p.slots);
    std::vector<signed char> edges(p.edges.begin(), p.edges.end());
    put(edges_, edges);
    std::vector<unsigned long long> skip(p.skip.begin(), p.skip.end());
    put(skip_, skip);
    std::vector<unsigned char> keep(p.keep.begin(), p.keep.end()), flip(p.ghost_flip.begin(), p.ghost_flip.end());
    put(keep_, keep);
    std::vector<long long> gsrc(p.ghost_src.begin(), p.ghost_src.end());
    put(ghost_src_, gsrc);
    put(ghost_flip_, flip);
    nghost_ = static_cast<long long>(nghost);
    ghost_ = copa::gpu::DeviceArray<double>(std::max<std::size_t>(nghost * 8 * nvar, 1));
    std::vector<long long> rc(p.restrict_cell.begin(), p.restrict_cell.end()), rs(p.restrict_son.begin(), p.restrict_son.end());
    put(restrict_cell_, rc);
    put(restrict_son_, rs);
    restrict_begin_.assign(p.restrict_begin.begin(), p.restrict_begin.end());
    nleaf_octs_ = static_cast<long long>(p.leaf_octs.size());
    put(reflux_octs_, lists.reflux_octs);
    std::vector<long long> rb(lists.reflux_begin.begin(), lists.reflux_begin.end());
    put(reflux_begin_, rb);
    put(faces_, lists.faces);
    nreflux_ = static_cast<long long>(lists.reflux_octs.size());
    scan_ = copa::gpu::DeviceArray<unsigned long long>(max_level_ + 2);
    copa::gpu::synchronize();
  }

  void download(std::vector<double>& u) override {
    u.resize(u_.size());
    copa::gpu::copy_to_host(u.data(), u_.data(), u_.bytes());
    copa::gpu::synchronize();
  }

  LeafScan scan() override {
    copa::gpu::fill_zero(scan_.data(), scan_.bytes());
    const long long ncell = noct_ * 8;
    const unsigned blocks = std::min<unsigned>(copa::gpu::blocks_for(ncell, 256), 132u * 16u);
    leaf_scan_kernel<<<blocks, 256>>>(u_.data(), ncell, son_.data(), level_.data(), hp_.gamma, scan_.data(),
                                      scan_.data() + max_level_ + 1);
    COPA_GPU_CHECK_LAUNCH("amr leaf_scan_kernel");
    std::vector<unsigned long long> h(max_level_ + 2);
    copa::gpu::copy_to_host(h.data(), scan_.data(), scan_.bytes());
    copa::gpu::synchronize();
    LeafScan s;
    s.max_speed.resize(max_level_ + 1);
    for (int l = 0; l <= max_level_; ++l) {
      const long long bits = static_cast<long long>(h[l]);
      double v;
      std::memcpy(&v, &bits, sizeof v);
      s.max_speed[l] = v;
    }
    s.bad_cell = h[max_level_ + 1] ? static_cast<std::int64_t>(~h[max_level_ + 1]) : -1;
    return s;
  }

  void advance(double dt) override {
    const long long stride = noct_ * 8;
    if (nghost_ > 0) {
      ghost_kernel<<<copa::gpu::blocks_for(nghost_, 128), 128>>>(u_.data(), stride, nghost_, ghost_src_.data(),
                                                                 ghost_flip_.data(), hp_.gamma, ghost_.data());
      COPA_GPU_CHECK_LAUNCH("amr ghost_kernel");
    }
    UpdateArgs a{leaf_octs_.data(), slots_.data(), edges_.data(), skip_.data(), keep_.data(), level_.data(),
                 son_.data(), ghost_.data(), fine_flux_.data(), stride, dt, dx0_};
    if (nleaf_octs_ > 0) {
      leaf_update_kernel<<<static_cast<unsigned>(nleaf_octs_), update_threads>>>(a, hp_, u_.data(), unew_.data());
      COPA_GPU_CHECK_LAUNCH("amr leaf_update_kernel");
    }
    if (reflux_ && nreflux_ > 0) {
      reflux_kernel<<<copa::gpu::blocks_for(nreflux_, 128), 128>>>(nreflux_, reflux_octs_.data(), reflux_begin_.data(),
                                                                   faces_.data(), level_.data(), fine_flux_.data(),
                                                                   stride, dt, dx0_, unew_.data());
      COPA_GPU_CHECK_LAUNCH("amr reflux_kernel");
    }
    for (std::size_t k = 0; k + 1 < restrict_begin_.size(); ++k) {
      const long long first = restrict_begin_[k], last = restrict_begin_[k + 1];
      if (last == first) continue;
      restrict_kernel<<<copa::gpu::blocks_for(last - first, 256), 256>>>(first, last, restrict_cell_.data(),
                                                                         restrict_son_.data(), stride, unew_.data());
      COPA_GPU_CHECK_LAUNCH("amr restrict_kernel");
    }
    std::swap(u_, unew_);
    copa::gpu::synchronize();
  }

 private:
  HydroParams hp_;
  bool reflux_;
  long long noct_ = 0, nghost_ = 0, nleaf_octs_ = 0, nreflux_ = 0;
  int max_level_ = 0;
  double dx0_ = 0;
  std::vector<long long> restrict_begin_;
  copa::gpu::DeviceArray<double> u_, unew_, fine_flux_, ghost_;
  copa::gpu::DeviceArray<std::int8_t> level_;
  copa::gpu::DeviceArray<std::int32_t> son_, leaf_octs_, slots_, reflux_octs_;
  copa::gpu::DeviceArray<signed char> edges_;
  copa::gpu::DeviceArray<unsigned long long> skip_, scan_;
  copa::gpu::DeviceArray<unsigned char> keep_, ghost_flip_;
  copa::gpu::DeviceArray<long long> ghost_src_, restrict_cell_, restrict_son_, reflux_begin_;
  copa::gpu::DeviceArray<RefluxFace> faces_;
};

}  // namespace

std::unique_ptr<DeviceStep> make_gpu_amr_step(const HydroParams& hp, bool reflux) {
  return std::make_unique<GpuAmrStep>(hp, reflux);
}

}  // namespace ro::amr
