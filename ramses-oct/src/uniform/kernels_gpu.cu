// GPU variants (CUDA and HIP from one source). One thread block updates one tile of B^3 octs;
// the tile and its one-oct ghost layer ((2B+4)^3 cells) are gathered once from global memory
// into shared memory and every later phase works there:
//   subgrid6  B = 1: one oct + ghosts = 6^3 cells (the RAMSES godfine1 subgrid); 27 cells
//             gathered per updated cell; separate dt-reduction kernel.
//   subgrid8  B = 2: 2x2x2 octs + ghosts = 8^3 cells (the seed's GPU port); 8 gathered per
//             updated cell; separate dt-reduction kernel.
//   fused     B = 2 tile, and the CFL reduction and positivity check of the *new* state done in
//             the update kernel's epilogue on the values still in registers: one full step is
//             one kernel that reads the state once and writes it once (the separate reduction
//             re-reads 40 bytes per cell, a third of the step's compulsory traffic).
//   zmarch    a block marches a patch of 4x2 octs through a segment of 16 octs along z, one cell plane at a time, with ring buffers of planes in shared
//             memory (zmarch.hpp): each cell gathered once plus the x, y ghost ring.
//   zmarch-col  the 4x2 zmarch patch with each (x, y) column owned by one thread for the whole
//             march (zmarch_col.hpp): two block syncs per cell plane instead of 3.5, the z faces
//             and the update in the predictor's phase, 30 KB of shared memory instead of 37 KB.
//             Tuning reg-cap=80: the same body with its registers capped for 7 blocks of 96
//             threads per SM.
// The grid stays on the device; --host-resident copies it in and out every step (rows h2d, d2h).
// Block-wide loops stride by blockDim.x, so any multiple of the warp size is a valid block size.
#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "copa/device_memory.hpp"
#include "copa/errors.hpp"
#include "copa/gpu.hpp"
#include "uniform/kernels.hpp"
#include "uniform/tile_kernels_gpu.cuh"
#include "hydro/tile_geometry.hpp"
#include "uniform/zmarch.hpp"
#include "uniform/zmarch_col.hpp"

namespace ro {
namespace {

// zmarch (zmarch.hpp): a block marches a (px x py oct) patch through a segment of L octs along
// z, one cell plane at a time; the patch is 4x2 octs (clamped by narrow meshes), L = 16.
// Blocks of up to 128 threads run the register-capped kernel: 80 registers (ptxas, sm_90, no
// spills) instead of 90, so six 4x2-patch blocks (768 threads, 6 x 37 KB shared) fit per SM
// instead of five; larger blocks (the sweep) run the uncapped one.
constexpr int zmarch_capped_threads = 128;
__global__ void __launch_bounds__(zmarch_capped_threads, 6)
    zmarch_kernel_capped(MeshView m, HydroParams hp, ZPatch z, const std::int32_t* __restrict__ bases,
                         const double* __restrict__ u, double* __restrict__ unew, double dtdx) {
  extern __shared__ double smem[];
  zmarch_block(m, hp, z, bases[blockIdx.x], u, unew, dtdx, smem, threadIdx.x, blockDim.x);
}
__global__ void zmarch_kernel(MeshView m, HydroParams hp, ZPatch z, const std::int32_t* __restrict__ bases,
                              const double* __restrict__ u, double* __restrict__ unew, double dtdx) {
  extern __shared__ double smem[];
  zmarch_block(m, hp, z, bases[blockIdx.x], u, unew, dtdx, smem, threadIdx.x, blockDim.x);
}
constexpr int zmarch_segment_octs = 16;
constexpr int zmarch_max_patch = 4;  // octs per side: bounds the dynamic shared memory

// zmarch-col (zmarch_col.hpp): thread tid < zcol_columns owns column tid for the whole march;
// threads from TP on also load the next plane, the last thread first, so that the threads past
// the column owners take the larger share (96 threads: the ring warp one cell, the last warp two;
// the interior warp, with the z faces and the update, none).
// Fixed42: the 4x2 patch of every mesh with at least 4x2 octs in (x, y) as compile-time
// constants, so that the index arithmetic (divisions by sx, tx, the ring offsets) folds; meshes
// that clamp the patch run the run-time copy. Same operations on the same operands in the same
// order, so the state should be bitwise the run-time patch's (not yet checked on a GPU). ptxas
// (sm_90), under the 96-register cap below: 16 B of spill stores and 24 B of loads instead of 40
// and 68; uncapped 116 registers instead of 121; static PTX -6% (2089 to 1972 instructions).
template <bool Fixed42>
__device__ inline void zmarch_col_device(const MeshView& m, const HydroParams& hp, ZPatch z, std::int32_t base,
                                         const double* __restrict__ u, double* __restrict__ unew, double dtdx) {
  if (Fixed42) {
    z.px = 4;
    z.py = 2;
  }
  extern __shared__ double smem[];
  ZColBlock b(m, hp, z, base, u, unew, dtdx, smem);
  const int tid = threadIdx.x, n = blockDim.x, ncols = zcol_columns(z), TP = b.TP();
  zmarch_col_march(b, base, tid, n, [&](int e) {
    if (tid < ncols) b.column(e, tid);
    if (tid >= TP && e + 2 < b.planes() + 2) b.load_plane(e + 2, n - 1 - tid, n - TP);
  });
}
// Blocks of up to 128 threads run a copy capped by __launch_bounds__(128, 5): 96 registers. On
// the H200 that is 6 blocks of the default 96 threads per SM, not 7: the 64K
// registers are four sub-partitions of 16K, 96 x 32 = 3072 per warp fit 5 warps in each, 20 per
// SM, six 3-warp blocks (shared memory would allow 7). Larger blocks run the uncapped copy.
constexpr int zmarch_col_default_threads = 96;
template <bool Fixed42>
__global__ void __launch_bounds__(zmarch_col_capped_threads, 5)
    zmarch_col_kernel_capped(MeshView m, HydroParams hp, ZPatch z, const std::int32_t* __restrict__ bases,
                             const double* __restrict__ u, double* __restrict__ unew, double dtdx) {
  zmarch_col_device<Fixed42>(m, hp, z, bases[blockIdx.x], u, unew, dtdx);
}
template <bool Fixed42>
__global__ void zmarch_col_kernel(MeshView m, HydroParams hp, ZPatch z, const std::int32_t* __restrict__ bases,
                                  const double* __restrict__ u, double* __restrict__ unew, double dtdx) {
  zmarch_col_device<Fixed42>(m, hp, z, bases[blockIdx.x], u, unew, dtdx);
}
// zmarch-col with reg-cap=80: the same body under __launch_bounds__(96, 7), so that the seven
// blocks of 96 threads that shared memory allows (7 x 31.3 KB of the 233 KB carveout) also fit by
// registers:
// 6 warps per sub-partition need <= 16384 / (6 x 32) = 85, i.e. 80 registers (ptxas, sm_90:
// 80, with 72 B of spill stores and 92 B of loads for the 4x2 patch, against 16 and 24 at 96).
// 21 resident warps instead of 18 (+17%) against more local-memory traffic (the spills). Blocks
// above 96 threads run the reg-cap=96 kernels (zmarch_col_cap_run, kernels.hpp).
template <bool Fixed42>
__global__ void __launch_bounds__(zmarch_col7_threads, 7)
    zmarch_col7_kernel(MeshView m, HydroParams hp, ZPatch z, const std::int32_t* __restrict__ bases,
                       const double* __restrict__ u, double* __restrict__ unew, double dtdx) {
  zmarch_col_device<Fixed42>(m, hp, z, bases[blockIdx.x], u, unew, dtdx);
}

enum class Variant { subgrid6, subgrid8, fused, balanced, zmarch, zmarch_col, zmarch_col7 };

class GpuKernels final : public HydroKernels {
 public:
  explicit GpuKernels(const SolverSetup& s) : setup_(s), mesh_(*s.mesh) {
    const std::string& name = s.variant.name();
    const std::pair<const char*, Variant> names[] = {
        {"subgrid6", Variant::subgrid6}, {"subgrid8", Variant::subgrid8}, {"fused", Variant::fused},
        {"balanced", Variant::balanced}, {"zmarch", Variant::zmarch},     {"zmarch-col", Variant::zmarch_col}};
    const auto it = std::find_if(std::begin(names), std::end(names), [&](const auto& p) { return name == p.first; });
    if (it == std::end(names)) throw std::logic_error("ramses-oct: GPU variant '" + name + "' has no kernels");
    variant_ = it->second;
    // reg-cap=80: zmarch-col's body under __launch_bounds__(96, 7) (zmarch_col7_kernel).
    if (variant_ == Variant::zmarch_col && s.variant.is("reg-cap", "80")) variant_ = Variant::zmarch_col7;
    block_ = s.block_size > 0 ? s.block_size : default_block(variant_);
    if (variant_ == Variant::balanced && block_ > balanced_max_threads)
      throw copa::InputError("--block-size: " + std::to_string(block_) + " exceeds the launch bound of variant balanced (" +
                             std::to_string(balanced_max_threads) + " threads)");
    if (block_ % COPA_WARP_SIZE != 0 || block_ > 1024)
      throw copa::InputError("--block-size: " + std::to_string(block_) + " is not a multiple of the warp size (" +
                             std::to_string(COPA_WARP_SIZE) + ") in [" + std::to_string(COPA_WARP_SIZE) + ", 1024]");
    // Tiles of 2x2x2 octs need whole aligned groups in the owned range; zmarch marches whole
    // columns of a power-of-two brick held by one rank.
    const bool grouped = mesh_.whole_groups() && mesh_.first_global % 8 == 0 && mesh_.nowned % 8 == 0;
    if (variant_ != Variant::subgrid6 && !is_zmarch() && !grouped)
      throw copa::InputError("--variant: " + name + " needs whole 2x2x2 oct groups (cells per axis a multiple "
                             "of 4, rank boundaries on groups); use subgrid6");
    if (is_zmarch() && (!mesh_.dense || mesh_.nowned != mesh_.noct))
      throw copa::InputError("--variant: " + name + " needs a power-of-two brick on one rank; use balanced "
                             "(or subgrid6) for other extents and for several ranks");
    const std::size_t state_bytes = std::size_t(mesh_.ncell()) * nvar * sizeof(double);
    const std::size_t mesh_bytes = std::size_t(mesh_.noct) * 9 * sizeof(std::int32_t);
    copa::gpu::require_device_memory(2 * state_bytes + mesh_bytes + 4096, "ramses-oct state (2 copies) and oct tables");
    for (int a = 0; a < 3; ++a) {
      coord_[a] = copa::gpu::DeviceArray<std::int32_t>(mesh_.noct);
      coord_[a].copy_from_host(mesh_.coord[a].data());
    }
    for (int f = 0; f < 6; ++f) {
      nbor_[f] = copa::gpu::DeviceArray<std::int32_t>(mesh_.noct);
      nbor_[f].copy_from_host(mesh_.nbor[f].data());
    }
    view_ = host_view(mesh_);
    for (int a = 0; a < 3; ++a) view_.coord[a] = coord_[a].data();
    for (int f = 0; f < 6; ++f) view_.nbor[f] = nbor_[f].data();
    u_ = copa::gpu::DeviceArray<double>(mesh_.ncell() * nvar);
    unew_ = copa::gpu::DeviceArray<double>(mesh_.ncell() * nvar);
    scan_ = copa::gpu::DeviceArray<DeviceScan>(1);
    host_scan_ = static_cast<DeviceScan*>(copa::gpu::malloc_pinned(sizeof(DeviceScan)));
    if (setup_.host_resident) {
      copa::require_host_memory(state_bytes, "ramses-oct pinned host copy (--host-resident)");
      host_state_ = static_cast<double*>(copa::gpu::malloc_pinned(state_bytes));
    }
    if (is_zmarch()) {
      zpatch_ = make_zpatch(mesh_.octs.data(), 4, 2, zmarch_segment_octs);
      if (is_zmarch_col() && block_ < zcol_columns(zpatch_))
        throw copa::InputError("--block-size: " + std::to_string(block_) + " is too small for variant " + name + ": its " +
                               std::to_string(zcol_columns(zpatch_)) + " column owners need one thread each");
      const std::vector<std::int32_t> bases = zmarch_block_bases(mesh_, zpatch_);
      zbases_ = copa::gpu::DeviceArray<std::int32_t>(bases.size());
      zbases_.copy_from_host(bases.data());
    }
    set_shared_limits();
    copa::gpu::synchronize();
  }
  ~GpuKernels() override {
    copa::gpu::free_pinned(host_scan_);
    if (host_state_) copa::gpu::free_pinned(host_state_);
  }

  void load(const std::vector<double>& u) override {
    if (host_state_) std::copy(u.begin(), u.end(), host_state_);
    u_.copy_from_host(u.data());
    copa::gpu::synchronize();
  }
  void store(std::vector<double>& u) override {
    u.resize(u_.size());
    u_.copy_to_host(u.data());
  }
  double* state() override { return u_.data(); }
  void synchronize() override { copa::gpu::synchronize(); }

  ScanResult scan() override {
    copa::Region r(*setup_.timer, "dt_reduction");
    copa::gpu::fill_zero(scan_.data(), sizeof(DeviceScan));
    // The owned cells (the first nowned octs), fields strided by every stored cell.
    const long long owned = mesh_.nowned_cells(), stride = mesh_.ncell();
    const unsigned blocks = std::min<unsigned>(copa::gpu::blocks_for(owned, 256), 132u * 16u);
    scan_kernel<<<blocks, 256, 0, nullptr>>>(u_.data(), owned, stride, setup_.hydro.gamma, scan_.data());
    COPA_GPU_CHECK_LAUNCH("scan_kernel");
    return read_scan();
  }

  ScanResult advance(double dt) override {
    if (host_state_) {
      copa::Region r(*setup_.timer, "h2d");
      copa::gpu::copy_to_device(u_.data(), host_state_, u_.bytes());
    }
    const double dtdx = dt / mesh_.dx;
    ScanResult result;
    if (variant_ == Variant::fused) {
      copa::Region r(*setup_.timer, "hydro_update+dt");
      copa::gpu::fill_zero(scan_.data(), sizeof(DeviceScan));
      launch_update<2, true>(dtdx);
      std::swap(u_, unew_);
      result = read_scan();
    } else {
      {
        copa::Region r(*setup_.timer, "hydro_update");
        if (variant_ == Variant::subgrid6) launch_update<1, false>(dtdx);
        else if (variant_ == Variant::balanced) launch_balanced(dtdx);
        else if (is_zmarch()) launch_zmarch(dtdx);
        else launch_update<2, false>(dtdx);
        std::swap(u_, unew_);
      }
      result = scan();
    }
    if (host_state_) {
      copa::Region r(*setup_.timer, "d2h");
      copa::gpu::copy_to_host(host_state_, u_.data(), u_.bytes());
    }
    return result;
  }

  std::vector<std::pair<std::string, copa::KernelCost>> kernel_costs() const override {
    std::vector<std::pair<std::string, copa::KernelCost>> c;
    if (variant_ == Variant::fused) {
      copa::KernelCost k = update_cost(mesh_);
      k.flops += scan_cost(mesh_).flops;
      c.push_back({"hydro_update+dt", k});
    } else {
      c.push_back({"hydro_update", update_cost(mesh_)});
      c.push_back({"dt_reduction", scan_cost(mesh_)});
    }
    if (host_state_) {
      c.push_back({"h2d", transfer_cost(mesh_, true)});
      c.push_back({"d2h", transfer_cost(mesh_, false)});
    }
    return c;
  }

  std::vector<KernelFallback> fallbacks() const override {
    if (!is_zmarch_col()) return {};
    const auto f = zmarch_col_fallback(setup_.variant.label(), reg_cap(), block_);
    return f ? std::vector<KernelFallback>{*f} : std::vector<KernelFallback>{};
  }

 private:
  template <int B, bool FUSED>
  void launch_update(double dtdx) {
    const unsigned tiles = static_cast<unsigned>(mesh_.nowned / (B * B * B));
    const int shared = TileShape<B>::shared_doubles * sizeof(double);
    tile_update_kernel<B, FUSED><<<tiles, block_, shared, nullptr>>>(view_, setup_.hydro, u_.data(), unew_.data(),
                                                                     dtdx, scan_.data());
    COPA_GPU_CHECK_LAUNCH(FUSED ? "tile_update_kernel<fused>" : "tile_update_kernel");
  }

  // Block-size sweeps (H200, 256^3): subgrid8/fused best at 192 (5.22 ms) but the seed's 128 is
  // kept as their default to reproduce the seed's configuration; subgrid6 best at 64.
  static int default_block(Variant v) {
    switch (v) {
      case Variant::subgrid6: return 64;
      case Variant::balanced: return balanced_max_threads;
      // 96 on CUDA; the next multiple of the 64-wide wavefront (128) on HIP.
      case Variant::zmarch_col:
      case Variant::zmarch_col7:
        return (zmarch_col_default_threads + COPA_WARP_SIZE - 1) / COPA_WARP_SIZE * COPA_WARP_SIZE;
      default: return 128;
    }
  }

  bool is_zmarch() const {
    return variant_ == Variant::zmarch || is_zmarch_col();
  }
  bool is_zmarch_col() const { return variant_ == Variant::zmarch_col || variant_ == Variant::zmarch_col7; }
  int reg_cap() const { return variant_ == Variant::zmarch_col7 ? 80 : 96; }

  void launch_zmarch(double dtdx) {
    const unsigned blocks = static_cast<unsigned>(zbases_.size());
    if (is_zmarch_col()) {
      if (zpatch_.px == 4 && zpatch_.py == 2)
        launch_zmarch_col<true>(blocks, dtdx);
      else
        launch_zmarch_col<false>(blocks, dtdx);
      return;
    }
    if (block_ <= zmarch_capped_threads) {
      zmarch_kernel_capped<<<blocks, block_, zpatch_.shared_bytes(), nullptr>>>(
          view_, setup_.hydro, zpatch_, zbases_.data(), u_.data(), unew_.data(), dtdx);
      COPA_GPU_CHECK_LAUNCH("zmarch_kernel_capped");
    } else {
      zmarch_kernel<<<blocks, block_, zpatch_.shared_bytes(), nullptr>>>(view_, setup_.hydro, zpatch_, zbases_.data(),
                                                                        u_.data(), unew_.data(), dtdx);
      COPA_GPU_CHECK_LAUNCH("zmarch_kernel");
    }
  }

  template <bool Fixed42>
  void launch_zmarch_col(unsigned blocks, double dtdx) {
    const std::size_t shared = zcol_shared_bytes(zpatch_);
    const int cap = zmarch_col_cap_run(reg_cap(), block_);
    if (cap == 80) {
      zmarch_col7_kernel<Fixed42><<<blocks, block_, shared, nullptr>>>(view_, setup_.hydro, zpatch_, zbases_.data(),
                                                                       u_.data(), unew_.data(), dtdx);
      COPA_GPU_CHECK_LAUNCH("zmarch_col7_kernel");
    } else if (cap == 96) {
      zmarch_col_kernel_capped<Fixed42><<<blocks, block_, shared, nullptr>>>(view_, setup_.hydro, zpatch_,
                                                                             zbases_.data(), u_.data(), unew_.data(), dtdx);
      COPA_GPU_CHECK_LAUNCH("zmarch_col_kernel_capped");
    } else {
      zmarch_col_kernel<Fixed42><<<blocks, block_, shared, nullptr>>>(view_, setup_.hydro, zpatch_, zbases_.data(),
                                                                      u_.data(), unew_.data(), dtdx);
      COPA_GPU_CHECK_LAUNCH("zmarch_col_kernel");
    }
  }

  void launch_balanced(double dtdx) {
    const unsigned tiles = static_cast<unsigned>(mesh_.nowned / 8);
    const int shared = TileShape<2>::shared_doubles * sizeof(double);
    tile_update_balanced<<<tiles, block_, shared, nullptr>>>(view_, setup_.hydro, u_.data(), unew_.data(), dtdx,
                                                            scan_.data());
    COPA_GPU_CHECK_LAUNCH("tile_update_balanced");
  }

  void set_shared_limits() {
    const int side[3] = {zmarch_max_patch, zmarch_max_patch, zmarch_segment_octs};
    const int zmarch_shared = static_cast<int>(make_zpatch(side, zmarch_max_patch, zmarch_max_patch, 1).shared_bytes());
    copa::gpu::set_max_dynamic_shared(zmarch_kernel, zmarch_shared);
    copa::gpu::set_max_dynamic_shared(zmarch_kernel_capped, zmarch_shared);
    const int zcol_shared = static_cast<int>(zcol_shared_bytes(make_zpatch(side, 4, 2, 1)));
    set_zmarch_col_shared<true>(zcol_shared);
    set_zmarch_col_shared<false>(zcol_shared);
    copa::gpu::set_max_dynamic_shared(tile_update_balanced, TileShape<2>::shared_doubles * sizeof(double));
#if defined(COPA_HAVE_CUDA)
    // The largest shared-memory carveout (228 KB on sm_90), so that four 55 KB tiles fit per SM.
    COPA_GPU_CHECK(COPA_GPU_SYMBOL(FuncSetAttribute)(reinterpret_cast<const void*>(tile_update_balanced),
                                                     COPA_GPU_SYMBOL(FuncAttributePreferredSharedMemoryCarveout), 100));
#endif
    copa::gpu::set_max_dynamic_shared(tile_update_kernel<1, false>, TileShape<1>::shared_doubles * sizeof(double));
    copa::gpu::set_max_dynamic_shared(tile_update_kernel<2, false>, TileShape<2>::shared_doubles * sizeof(double));
    copa::gpu::set_max_dynamic_shared(tile_update_kernel<2, true>, TileShape<2>::shared_doubles * sizeof(double));
  }

  // The zmarch-col kernels of one patch kind: their dynamic shared memory, and (CUDA) the largest
  // carveout, so that seven 31 KB blocks fit per SM.
  template <bool Fixed42>
  static void set_zmarch_col_shared(int bytes) {
    copa::gpu::set_max_dynamic_shared(zmarch_col_kernel<Fixed42>, bytes);
    copa::gpu::set_max_dynamic_shared(zmarch_col_kernel_capped<Fixed42>, bytes);
    copa::gpu::set_max_dynamic_shared(zmarch_col7_kernel<Fixed42>, bytes);
#if defined(COPA_HAVE_CUDA)
    for (const void* k : {reinterpret_cast<const void*>(zmarch_col_kernel<Fixed42>),
                          reinterpret_cast<const void*>(zmarch_col_kernel_capped<Fixed42>),
                          reinterpret_cast<const void*>(zmarch_col7_kernel<Fixed42>)})
      COPA_GPU_CHECK(
          COPA_GPU_SYMBOL(FuncSetAttribute)(k, COPA_GPU_SYMBOL(FuncAttributePreferredSharedMemoryCarveout), 100));
#endif
  }

  ScanResult read_scan() {
    copa::gpu::copy_to_host(host_scan_, scan_.data(), sizeof(DeviceScan));
    ScanResult s;
    const long long bits = static_cast<long long>(host_scan_->speed_bits);
    std::memcpy(&s.max_speed, &bits, sizeof(double));
    s.bad_cell = host_scan_->bad_not ? static_cast<std::int64_t>(~host_scan_->bad_not) : -1;
    return s;
  }

  SolverSetup setup_;
  const OctMesh& mesh_;
  Variant variant_ = Variant::balanced;
  int block_ = 128;
  MeshView view_;
  ZPatch zpatch_;
  copa::gpu::DeviceArray<std::int32_t> zbases_;
  copa::gpu::DeviceArray<std::int32_t> coord_[3], nbor_[6];
  copa::gpu::DeviceArray<double> u_, unew_;
  copa::gpu::DeviceArray<DeviceScan> scan_;
  DeviceScan* host_scan_ = nullptr;
  double* host_state_ = nullptr;
};

}  // namespace

std::unique_ptr<HydroKernels> make_gpu_kernels(const SolverSetup& setup) {
  return std::make_unique<GpuKernels>(setup);
}

}  // namespace ro
