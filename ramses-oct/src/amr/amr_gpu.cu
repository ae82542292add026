// Device kernels of the AMR step (amr_gpu.hpp); their bodies are amr_leaf_block.hpp, shared with
// the host emulation that a cpu test runs against the oracle. The same functions of
// hydro_math.hpp and amr_interp.hpp as the host, so the result equals the oracle's to round-off
// (FMA contraction differs between host and device).
#include <algorithm>
#include <cstdint>
#include <cstring>

// First: the GPU runtime header defines __host__/__device__ for RO_HD (HIP does not pre-include it).
#include "copa/gpu.hpp"
#include "amr_gpu.hpp"
#include "amr_interp.hpp"
#include "amr_leaf_block.hpp"
#include "copa/device_memory.hpp"
#include "copa/errors.hpp"
#include "tile_geometry.hpp"

namespace ro::amr {
namespace {

__global__ void ghost_kernel(const double* __restrict__ u, long long stride, long long nghost,
                             const std::int64_t* __restrict__ src, const std::uint8_t* __restrict__ flip, double gamma,
                             double* __restrict__ ghost) {
  const long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (g < nghost) block::ghost_sons(u, stride, g, src, flip, gamma, ghost);
}

// One block per leaf oct, all levels in one launch.
__global__ void __launch_bounds__(block::threads) leaf_update_kernel(block::Args a, HydroParams hp,
                                                                     const double* __restrict__ u,
                                                                     double* __restrict__ unew) {
  __shared__ block::Shared sh;
  const long long i = blockIdx.x;
  const int tid = threadIdx.x, nth = blockDim.x;
  block::load_slots(a, i, tid, nth, sh);
  __syncthreads();
  block::gather(a, hp, u, i, tid, nth, sh);
  __syncthreads();
  block::predict(hp, block::dtdx_of(a, a.leaf_octs[i]), tid, nth, sh);
  __syncthreads();
  block::fluxes(hp, tid, nth, sh);
  __syncthreads();
  block::update(a, u, unew, i, tid, nth, sh);
}

__global__ void reflux_kernel(long long n, const std::int32_t* __restrict__ octs, const std::int64_t* __restrict__ begin,
                              const RefluxFace* __restrict__ faces, const std::int8_t* __restrict__ level,
                              const double* __restrict__ fine_flux, long long stride, double dt, double dx0,
                              double* __restrict__ unew) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) block::reflux_oct(i, octs, begin, faces, level, fine_flux, stride, dt, dx0, unew);
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
    put(edges_, p.edges);
    put(skip_, p.skip);
    put(keep_, p.keep);
    put(ghost_src_, p.ghost_src);
    put(ghost_flip_, p.ghost_flip);
    nghost_ = static_cast<long long>(nghost);
    ghost_ = copa::gpu::DeviceArray<double>(std::max<std::size_t>(nghost * 8 * nvar, 1));
    std::vector<long long> rc(p.restrict_cell.begin(), p.restrict_cell.end()), rs(p.restrict_son.begin(), p.restrict_son.end());
    put(restrict_cell_, rc);
    put(restrict_son_, rs);
    restrict_begin_.assign(p.restrict_begin.begin(), p.restrict_begin.end());
    nleaf_octs_ = static_cast<long long>(p.leaf_octs.size());
    put(reflux_octs_, lists.reflux_octs);
    put(reflux_begin_, lists.reflux_begin);
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
    const block::Args a{leaf_octs_.data(), slots_.data(), edges_.data(), skip_.data(), keep_.data(), level_.data(),
                        son_.data(), ghost_.data(), fine_flux_.data(), stride, dt, dx0_};
    if (nleaf_octs_ > 0) {
      leaf_update_kernel<<<static_cast<unsigned>(nleaf_octs_), block::threads>>>(a, hp_, u_.data(), unew_.data());
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
  copa::gpu::DeviceArray<std::int8_t> edges_;
  copa::gpu::DeviceArray<std::uint64_t> skip_;
  copa::gpu::DeviceArray<unsigned long long> scan_;
  copa::gpu::DeviceArray<std::uint8_t> keep_, ghost_flip_;
  copa::gpu::DeviceArray<std::int64_t> ghost_src_, reflux_begin_;
  copa::gpu::DeviceArray<long long> restrict_cell_, restrict_son_;
  copa::gpu::DeviceArray<RefluxFace> faces_;
};

}  // namespace

std::unique_ptr<DeviceStep> make_gpu_amr_step(const HydroParams& hp, bool reflux) {
  return std::make_unique<GpuAmrStep>(hp, reflux);
}

}  // namespace ro::amr
