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
#include "hydro/tile_geometry.hpp"
#include "uniform/zmarch.hpp"
#include "uniform/zmarch_col.hpp"

namespace ro {
namespace {

// Reduction target: max speed as the bit pattern of a non-negative double (ordered like the
// value), bad cell as ~index so that atomicMax keeps the lowest index and 0 means "none".
struct DeviceScan {
  unsigned long long speed_bits;
  unsigned long long bad_not;
};

template <int B>
struct TileShape {
  static constexpr int T = 2 * B;           // interior cells per side
  static constexpr int S = T + 4;           // with the ghost layer
  static constexpr int S3 = S * S * S;
  static constexpr int E = T + 2;           // cells that need slopes and predicted states
  static constexpr int E3 = E * E * E;
  static constexpr int F = (T + 1) * T * T; // faces per direction
  static constexpr int SLOTS = (B + 2) * (B + 2) * (B + 2);
  static constexpr int ext_vars = nvar + 3 * nvar;  // qh and dq (x, y, z)
  // Shared memory in doubles: q (later reused for the fluxes), qh + dq, the slot table.
  static constexpr int shared_doubles = nvar * S3 + ext_vars * E3 + (SLOTS + 1) / 2;
  static_assert(3 * nvar * F <= nvar * S3, "fluxes must fit in the primitive buffer they reuse");
};

__device__ inline int tile_index(int i, int j, int k, int n) { return i + n * (j + n * k); }

// Both reductions of a block, then one atomic per block. blockDim.x is a multiple of the warp.
__device__ void block_reduce_scan(double vmax, unsigned long long bad_not, DeviceScan* out) {
  __shared__ double warp_speed[1024 / COPA_WARP_SIZE];
  __shared__ unsigned long long warp_bad[1024 / COPA_WARP_SIZE];
  vmax = copa::gpu::warp_max(vmax);
  bad_not = copa::gpu::warp_max(bad_not);
  const int lane = threadIdx.x % COPA_WARP_SIZE, warp = threadIdx.x / COPA_WARP_SIZE;
  if (lane == 0) {
    warp_speed[warp] = vmax;
    warp_bad[warp] = bad_not;
  }
  __syncthreads();
  if (warp == 0) {
    const int nwarps = blockDim.x / COPA_WARP_SIZE;
    double v = lane < nwarps ? warp_speed[lane] : 0.0;
    unsigned long long b = lane < nwarps ? warp_bad[lane] : 0ull;
    v = copa::gpu::warp_max(v);
    b = copa::gpu::warp_max(b);
    if (lane == 0) {
      atomicMax(&out->speed_bits, static_cast<unsigned long long>(__double_as_longlong(v)));
      atomicMax(&out->bad_not, b);
    }
  }
}

__device__ inline void scan_cell(const double uc[nvar], double gamma, long long g, double& vmax,
                                 unsigned long long& bad_not) {
  bool ok;
  const double speed = cell_signal_speed(uc, gamma, ok);
  const unsigned long long mark = ~static_cast<unsigned long long>(g);
  if (!ok && mark > bad_not) bad_not = mark;
  vmax = fmax(vmax, speed);
}

// dt reduction: sum_i(|u_i| + c_s) maximised over cells, positivity check. Reads 40 B/cell,
// about 25 FLOP/cell.
__global__ void scan_kernel(const double* __restrict__ u, long long owned, long long stride, double gamma,
                            DeviceScan* out) {
  double vmax = 0.0;
  unsigned long long bad_not = 0;
  for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < owned; g += (long long)gridDim.x * blockDim.x) {
    double uc[nvar];
    for (int f = 0; f < nvar; ++f) uc[f] = u[f * stride + g];
    scan_cell(uc, gamma, g, vmax, bad_not);
  }
  block_reduce_scan(vmax, bad_not, out);
}

// Gather item j of a tile (slot j/8, cell j%8 of the slot's oct): loads the conserved state of
// its source cell (mirrored momentum across a reflecting face) and returns its tile index t.
template <int B>
__device__ inline void gather_load(const MeshView& m, const TileEdges& edges, const int* slot_oct,
                                   const double* __restrict__ u, long long fstride, int j, double uc[nvar], int& t) {
  constexpr int S = TileShape<B>::S;
  const int s = j >> 3, lc = j & 7;
  const int sl[3] = {s % (B + 2), (s / (B + 2)) % (B + 2), s / ((B + 2) * (B + 2))};
  int tc[3], loc[3];
  bool flip[3];
  for (int a = 0; a < 3; ++a) {
    tc[a] = 2 * sl[a] + ((lc >> a) & 1);
    int slot;
    tile_axis_source(tc[a], B, edges.lo[a], edges.hi[a], slot, loc[a], flip[a]);
  }
  const long long cell = (long long)slot_oct[s] * 8 + loc[0] + 2 * loc[1] + 4 * loc[2];
  for (int f = 0; f < nvar; ++f) uc[f] = u[f * fstride + cell];
  for (int a = 0; a < 3; ++a)
    if (flip[a]) uc[1 + a] = -uc[1 + a];
  t = tile_index(tc[0], tc[1], tc[2], S);
}

template <int B>
__device__ inline void gather_store(const double uc[nvar], double gamma, int t, double* q) {
  double qc[nvar];
  cons_to_prim(uc, gamma, qc);
  for (int f = 0; f < nvar; ++f) q[f * TileShape<B>::S3 + t] = qc[f];
}

// One tile update. Compulsory global traffic: 40 B read + 40 B written per updated cell; the
// ghost layer is re-read from L2 ((2B+4)^3 / (2B)^3 gathered cells per updated cell).
// FLOPs per updated cell: about 570 for the scheme, times the ghost recomputation of the slopes
// and predictor ((2B+2)^3 / (2B)^3) and of the boundary faces ((2B+1)/(2B)).
//
// The body is shared by two kernels: tile_update_kernel (subgrid6/subgrid8/fused, no launch
// bounds: 74-76 registers) and tile_update_balanced (see there). PAIRED_GATHER issues the global
// loads of two gather items before converting either, so that two L2 round trips overlap.
template <int B, bool FUSED, bool PAIRED_GATHER>
__device__ inline void tile_update_body(const MeshView& m, const HydroParams& hp, const double* __restrict__ u,
                                        double* __restrict__ unew, double dtdx, DeviceScan* scan) {
  using Sh = TileShape<B>;
  constexpr int S = Sh::S, E = Sh::E, T = Sh::T;
  extern __shared__ double smem[];
  double* q = smem;                       // [nvar][S3], later flux [3][nvar][F]
  double* ext = smem + nvar * Sh::S3;     // [qh: nvar | dq: 3 x nvar][E3]
  int* slot_oct = reinterpret_cast<int*>(ext + Sh::ext_vars * Sh::E3);
  double* flux = smem;

  const long long base = (long long)blockIdx.x * (B * B * B);
  const long long fstride = m.noct * 8;
  for (int s = threadIdx.x; s < Sh::SLOTS; s += blockDim.x)
    slot_oct[s] = tile_slot_oct(m, base, s % (B + 2), (s / (B + 2)) % (B + 2), s / ((B + 2) * (B + 2)));
  const TileEdges edges = tile_edges(m, base, B);
  __syncthreads();

  // Phase 1: gather, eight consecutive threads read the eight contiguous cells of one oct.
  if (PAIRED_GATHER) {
    for (int j = threadIdx.x; j < Sh::SLOTS * 8; j += 2 * blockDim.x) {
      const int j2 = j + blockDim.x;
      const bool second = j2 < Sh::SLOTS * 8;
      double ua[nvar], ub[nvar];
      int ta = 0, tb = 0;
      gather_load<B>(m, edges, slot_oct, u, fstride, j, ua, ta);
      if (second) gather_load<B>(m, edges, slot_oct, u, fstride, j2, ub, tb);
      gather_store<B>(ua, hp.gamma, ta, q);
      if (second) gather_store<B>(ub, hp.gamma, tb, q);
    }
  } else {
    for (int j = threadIdx.x; j < Sh::SLOTS * 8; j += blockDim.x) {
      double uc[nvar];
      int t = 0;
      gather_load<B>(m, edges, slot_oct, u, fstride, j, uc, t);
      gather_store<B>(uc, hp.gamma, t, q);
    }
  }
  __syncthreads();

  // Phase 2: limited slopes in x, y, z and the half-step predictor, on the (2B)^3 + 6 (2B)^2
  // cells whose face states phase 3 needs (the slope region without its edges and corners).
  for (int m = threadIdx.x; m < predictor_cells(T); m += blockDim.x) {
    int ei, ej, ek;
    predictor_cell(m, T, ei, ej, ek);
    const int e = tile_index(ei, ej, ek, E);
    const int i = ei + 1, j = ej + 1, k = ek + 1;
    const int c = tile_index(i, j, k, S);
    const int step[3] = {1, S, S * S};
    double qc[nvar], d[3][nvar], qh[nvar];
    for (int f = 0; f < nvar; ++f) qc[f] = q[f * Sh::S3 + c];
    for (int a = 0; a < 3; ++a)
      for (int f = 0; f < nvar; ++f)
        d[a][f] = limited_slope(q[f * Sh::S3 + c - step[a]], qc[f], q[f * Sh::S3 + c + step[a]], hp.slope_type);
    predict_half_step(qc, d[0], d[1], d[2], dtdx, hp.gamma, qh);
    for (int f = 0; f < nvar; ++f) {
      ext[f * Sh::E3 + e] = qh[f];
      for (int a = 0; a < 3; ++a) ext[(nvar + a * nvar + f) * Sh::E3 + e] = d[a][f];
    }
  }
  __syncthreads();

  // Phase 3: one Riemann solve per face; the fluxes overwrite the primitives.
  for (int t = threadIdx.x; t < 3 * Sh::F; t += blockDim.x) {
    const int a = t / Sh::F, r = t % Sh::F;
    const int nx = a == 0 ? T + 1 : T, ny = a == 1 ? T + 1 : T;
    const int fi = r % nx, fj = (r / nx) % ny, fk = r / (nx * ny);
    // right cell in E coordinates (tile coordinate - 1); the left one is one step down along a.
    const int er = tile_index(fi + 1, fj + 1, fk + 1, E);
    const int el = er - (a == 0 ? 1 : (a == 1 ? E : E * E));
    double qhl[nvar], dql[nvar], qhr[nvar], dqr[nvar], fl[nvar];
    for (int f = 0; f < nvar; ++f) {
      qhl[f] = ext[f * Sh::E3 + el];
      qhr[f] = ext[f * Sh::E3 + er];
      dql[f] = ext[(nvar + a * nvar + f) * Sh::E3 + el];
      dqr[f] = ext[(nvar + a * nvar + f) * Sh::E3 + er];
    }
    if (a == 0) face_flux<0>(qhl, dql, qhr, dqr, hp, fl);
    else if (a == 1) face_flux<1>(qhl, dql, qhr, dqr, hp, fl);
    else face_flux<2>(qhl, dql, qhr, dqr, hp, fl);
    for (int f = 0; f < nvar; ++f) flux[(a * nvar + f) * Sh::F + r] = fl[f];
  }
  __syncthreads();

  // Phase 4: conservative update of the interior cells, coalesced (octs base.. are contiguous).
  double vmax = 0.0;
  unsigned long long bad_not = 0;
  for (int j = threadIdx.x; j < B * B * B * 8; j += blockDim.x) {
    const int k8 = j >> 3, lc = j & 7;
    int px, py, pz;
    interior_oct_position(k8, px, py, pz);
    const int ci = 2 * px + (lc & 1), cj = 2 * py + ((lc >> 1) & 1), ck = 2 * pz + (lc >> 2);
    const int fx = ci + (T + 1) * (cj + T * ck);
    const int fy = ci + T * (cj + (T + 1) * ck);
    const int fz = ci + T * (cj + T * ck);
    const long long g = (base + k8) * 8 + lc;
    double un[nvar];
    for (int f = 0; f < nvar; ++f) {
      const double* fxv = flux + (0 * nvar + f) * Sh::F;
      const double* fyv = flux + (1 * nvar + f) * Sh::F;
      const double* fzv = flux + (2 * nvar + f) * Sh::F;
      un[f] = conservative_update(u[f * fstride + g], fxv[fx], fxv[fx + 1], fyv[fy], fyv[fy + T], fzv[fz],
                                  fzv[fz + T * T], dtdx);
      unew[f * fstride + g] = un[f];
    }
    if (FUSED) scan_cell(un, hp.gamma, g, vmax, bad_not);
  }
  if (FUSED) block_reduce_scan(vmax, bad_not, scan);
}

template <int B, bool FUSED>
__global__ void tile_update_kernel(MeshView m, HydroParams hp, const double* __restrict__ u,
                                   double* __restrict__ unew, double dtdx, DeviceScan* scan) {
  tile_update_body<B, FUSED, false>(m, hp, u, unew, dtdx, scan);
}

// balanced: the subgrid8 tile with the work of its phases matched to the block. Per 8^3 tile the
// phases have 512 gather items, 160 predictor cells, 240 faces and 64 updated cells; with 256
// threads that is 2 + 1 + 1 + 1 passes (192 threads: 3 + 1 + 2 + 1, 128: 4 + 2 + 2 + 1). The
// seed's kernel needs 74-76 registers, so 256-thread blocks ran only 3 per SM (768 threads,
// register-limited; round 1: 5.99 ms against 5.22 ms at 192). Capping registers at 64
// (launch bounds 256 x 4) makes 4 blocks of 256 = 1024 threads fit per SM (shared memory: 4 x
// 55 KB <= 228 KB), a third more warps than the best seed configuration to hide the latency of
// the FP64 division/sqrt chains and the L2 gathers; the gather issues two items' loads at once.
// The dt reduction stays a separate kernel: round 1 measured the fused epilogue slower (+0.35 ms
// on the update) than the separate reduction (0.195 ms at 83% of the bandwidth).
constexpr int balanced_max_threads = 256;
constexpr int balanced_min_blocks = 4;
__global__ void __launch_bounds__(balanced_max_threads, balanced_min_blocks)
    tile_update_balanced(MeshView m, HydroParams hp, const double* __restrict__ u, double* __restrict__ unew,
                         double dtdx, DeviceScan* scan) {
  tile_update_body<2, false, true>(m, hp, u, unew, dtdx, scan);
}

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
// the H200 (ncu, issue 18) that is 6 blocks of the default 96 threads per SM, not 7: the 64K
// registers are four sub-partitions of 16K, 96 x 32 = 3072 per warp fit 5 warps in each, 20 per
// SM, six 3-warp blocks (shared memory would allow 7). Larger blocks run the uncapped copy.
constexpr int zmarch_col_capped_threads = 128;
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
// zmarch-col7: the same body under __launch_bounds__(96, 7), so that the seven blocks of 96
// threads that shared memory allows (7 x 31.3 KB of the 233 KB carveout) also fit by registers:
// 6 warps per sub-partition need <= 16384 / (6 x 32) = 85, i.e. 80 registers (ptxas, sm_90:
// 80, with 72 B of spill stores and 92 B of loads for the 4x2 patch, against 16 and 24 at 96).
// 21 resident warps instead of 18 (+17%) against more local-memory traffic: ncu's 0.75 eligible
// warps per scheduler at 4.38 active warps says more warps should issue more; the spills may
// eat the gain. Blocks above 96 threads run zmarch-col's kernels.
constexpr int zmarch_col7_threads = 96;
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

 private:
  template <int B, bool FUSED>
  void launch_update(double dtdx) {
    const unsigned tiles = static_cast<unsigned>(mesh_.nowned / (B * B * B));
    const int shared = TileShape<B>::shared_doubles * sizeof(double);
    tile_update_kernel<B, FUSED><<<tiles, block_, shared, nullptr>>>(view_, setup_.hydro, u_.data(), unew_.data(),
                                                                     dtdx, scan_.data());
    COPA_GPU_CHECK_LAUNCH(FUSED ? "tile_update_kernel<fused>" : "tile_update_kernel");
  }

  // Round-1 sweeps (H200, 256^3): subgrid8/fused best at 192 (5.22 ms) but the seed's 128 is kept
  // as their default to reproduce the seed's configuration; subgrid6 best at 64.
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
    if (variant_ == Variant::zmarch_col7 && block_ <= zmarch_col7_threads) {
      zmarch_col7_kernel<Fixed42><<<blocks, block_, shared, nullptr>>>(view_, setup_.hydro, zpatch_, zbases_.data(),
                                                                       u_.data(), unew_.data(), dtdx);
      COPA_GPU_CHECK_LAUNCH("zmarch_col7_kernel");
    } else if (block_ <= zmarch_col_capped_threads) {
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
