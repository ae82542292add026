// CUDA and HIP kernels (one source through copa/gpu.hpp) of the table's GPU rows (variants.cpp).
// Every element operator runs sum factorization in shared memory within a thread block:
//   fixed kernels (kernels_gpu_fixed.cuh, rows "block" and "lean"): specialised at compile time on
//     (dim, D1D, Q1D, L1D) for Laghos's pairs Q_k/Q_{k-1}, several elements per block, with
//     Q1D x Q1D threads per element (layout xy, MFEM's 3D layout) or Q1D^3 (layout xyz, 3D);
//   generic kernels (kernels_gpu_generic.cuh, row "generic" and every order without a fixed
//     kernel): run-time sizes, one element per block.
// H1 outputs go to an E-vector and are assembled by a dof-parallel gather through the transposed
// element map, except the CG's H1 mass with mass=atomic: the element kernel adds into the assembled
// vector with FP64 atomics. "lean" replaces two kernels of "block": the quadrature update
// (k_qupdate_staged: gradients staged in shared memory, the register-lean point physics of
// qpoint.hpp, 64 registers) and, in 3D, F 1 and F^T v (kernels_gpu_force_lean.cuh: a thread per
// (x, y) point, the z column in registers); with mass=zcol also, in 3D, the CG's H1 mass
// (kernels_gpu_mass_zcol.cuh, the same layout). All state stays on the device; only dot products
// and the time-step estimate (scalars) come back to the host.
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "copa/device_memory.hpp"
#include "copa/gpu.hpp"
#include "kernels.hpp"
#include "qpoint.hpp"
#include "device_disc.hpp"
#include "kernels_gpu_generic.cuh"

namespace laghos {

namespace {
using namespace generic;


// ---- BLAS-1 ----
// z = a x + b y at one dof: k_axpby's, and the CG direction update's on the device (k_cg_direction).
__device__ inline double axpby_at(double a, double x, double b, double y) { return a * x + b * y; }
__global__ void k_axpby(std::size_t n, double a, const double* x, double b, const double* y, double* z) {
  for (std::size_t i = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x; i < n; i += (std::size_t)gridDim.x * blockDim.x)
    z[i] = axpby_at(a, x[i], b, y[i]);
}
__global__ void k_fill(std::size_t n, double v, double* x) {
  for (std::size_t i = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x; i < n; i += (std::size_t)gridDim.x * blockDim.x)
    x[i] = v;
}
__global__ void k_multiply(std::size_t n, const double* a, const double* x, double* y) {
  for (std::size_t i = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x; i < n; i += (std::size_t)gridDim.x * blockDim.x)
    y[i] = a[i] * x[i];
}
__global__ void k_zero_at(int n, const int* idx, double* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[idx[i]] = 0.0;
}
// Where a reduction kernel leaves its result. Every block combines its threads' values and writes
// the block's part to partial[block]; the last block to arrive (arrivals counts them; that block
// resets it for the next launch) combines the parts in block order and writes the total into
// host-mapped memory, which the host reads after a stream synchronisation. Both combines are
// fixed trees, so the total does not depend on which block comes last: runs are reproducible.
// No device-to-host copy: on the H200 the copy engine started 5-9 us after the reduction kernel
// ended and took 2.3 us for the parts, twice per CG iteration (copa-gputrace timelines,
// laghos-like README "Distributed runs").
struct ReductionOut {
  double* partial;
  unsigned int* arrivals;
  double* result;
};
constexpr int kReduceThreads = 256;  // the block size of every reduction launch

template <bool Min>
__device__ inline double combine(double a, double b) {
  return Min ? fmin(a, b) : a + b;
}
// The block's values combined by a fixed tree (blockDim.x == kReduceThreads).
template <bool Min>
__device__ inline double block_combine(double v) {
  __shared__ double part[kReduceThreads];
  part[threadIdx.x] = v;
  __syncthreads();
  for (int s = kReduceThreads / 2; s > 0; s /= 2) {
    if ((int)threadIdx.x < s) part[threadIdx.x] = combine<Min>(part[threadIdx.x], part[threadIdx.x + s]);
    __syncthreads();
  }
  const double total = part[0];
  __syncthreads();
  return total;
}
// The block's values combined, then the blocks' parts by the last block to arrive, whose thread 0
// calls last(total).
template <bool Min, class Last>
__device__ inline void reduce_then(double v, const ReductionOut& out, Last last_fn) {
  __shared__ bool last;
  const double block_total = block_combine<Min>(v);
  if (threadIdx.x == 0) {
    out.partial[blockIdx.x] = block_total;
    __threadfence();
    last = atomicAdd(out.arrivals, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  const volatile double* parts = out.partial;  // written by other blocks: not from this SM's L1
  double t = Min ? INFINITY : 0.0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) t = combine<Min>(t, parts[b]);
  const double total = block_combine<Min>(t);
  if (threadIdx.x == 0) {
    last_fn(total);
    *out.arrivals = 0;
  }
}
template <bool Min>
__device__ inline void reduce_to_host(double v, const ReductionOut& out) {
  reduce_then<Min>(v, out, [&](double total) { *out.result = total; });
}
// sum x_i y_i, or sum x_i (w_i y_i) where w is given (dot_weighted: a distributed run's owned dofs).
__global__ void k_dot(std::size_t n, const double* x, const double* y, const double* w, ReductionOut out) {
  double s = 0.0;
  for (std::size_t i = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x; i < n; i += (std::size_t)gridDim.x * blockDim.x)
    s += w ? x[i] * (w[i] * y[i]) : x[i] * y[i];
  reduce_to_host<false>(s, out);
}
// One dof of MFEM's CG update (k_cg_update, k_cg_step): x += alpha d; r -= alpha z; z = dinv r;
// returns its (r, z) term ((r, r) without preconditioner), weighted by w where given.
__device__ inline double cg_update_at(std::size_t i, double alpha, const double* __restrict__ d, double* __restrict__ x,
                                      double* __restrict__ r, double* __restrict__ z, const double* __restrict__ dinv,
                                      const double* __restrict__ w) {
  x[i] = x[i] + alpha * d[i];
  const double ri = r[i] - alpha * z[i];
  r[i] = ri;
  double si = ri;
  if (dinv) {
    si = dinv[i] * ri;
    z[i] = si;
  }
  return w ? ri * (w[i] * si) : ri * si;
}
// One pass of MFEM's CG update: x += alpha d; r -= alpha z; z = dinv r; partial sums of (r, z)
// (or (r, r) without preconditioner), each term weighted by w where given (a distributed run's
// owned dofs). Reads 4-6 and writes 2-3 vectors once instead of 7 passes and 4 launches (on ranks
// 14 passes and 5 launches, with the masked product and its dot).
__global__ void k_cg_update(std::size_t n, double alpha, const double* __restrict__ d, double* __restrict__ x,
                            double* __restrict__ r, double* __restrict__ z, const double* __restrict__ dinv,
                            const double* __restrict__ w, ReductionOut out) {
  double s = 0.0;
  for (std::size_t i = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x; i < n; i += (std::size_t)gridDim.x * blockDim.x)
    s += cg_update_at(i, alpha, d, x, r, z, dinv, w);
  reduce_to_host<false>(s, out);
}
// Assembly of the mass E-vector with the essential rows zeroed, fused with the partial sums of (x, y).
__global__ void k_gather_ess_dot(int nh1, const int* __restrict__ offsets, const int* __restrict__ positions,
                                 const double* __restrict__ evec, const unsigned char* __restrict__ ess,
                                 const double* __restrict__ x, double* __restrict__ y, ReductionOut out) {
  double acc = 0.0;
  for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < nh1; g += gridDim.x * blockDim.x) {
    double s = 0.0;
    for (int p = offsets[g]; p < offsets[g + 1]; ++p) s += evec[positions[p]];
    if (ess[g]) s = 0.0;
    y[g] = s;
    acc += x[g] * s;
  }
  reduce_to_host<false>(acc, out);
}
// One dof of k_ess_dot: y's essential row zeroed; returns its (x, y) term, weighted by w where given.
__device__ inline double ess_dot_at(int g, const unsigned char* __restrict__ ess, const double* __restrict__ x,
                                    double* __restrict__ y, const double* __restrict__ w) {
  double s = y[g];
  if (ess[g]) {
    s = 0.0;
    y[g] = 0.0;
  }
  return w ? x[g] * (w[g] * s) : x[g] * s;
}
// Essential rows of the assembled y zeroed, fused with the partial sums of (x, y), weighted by w
// where given (a distributed run's owned dofs).
__global__ void k_ess_dot(int nh1, const unsigned char* __restrict__ ess, const double* __restrict__ x,
                          double* __restrict__ y, const double* __restrict__ w, ReductionOut out) {
  double acc = 0.0;
  for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < nh1; g += gridDim.x * blockDim.x) acc += ess_dot_at(g, ess, x, y, w);
  reduce_to_host<false>(acc, out);
}
#if defined(COPA_HAVE_CUDA)
// ---- the H1 CG's loop on the device (lean, cg=graph; CUDA's conditional graph nodes) ----
// The scalars of LagrangianHydro::cg's loop in device memory. A while node repeats the body
// k_cg_direction, y = M d (zeroed, then the scattered mass), k_cg_den, k_cg_step; the kernels
// compute beta and alpha from these scalars and make the host loop's tests in its order, clearing
// the node's condition where the host loop breaks. The host waits once per solve, not twice per
// iteration (the launch-to-launch gaps: laghos-like README "The CG loop on the device").
struct CgLoop {
  double nom, den, betanom, r0;
  int i, max_iter, final_iter, stop, masses;
};
// d = zr + beta d, beta = betanom / nom (the host loop's axpby(1, zr, beta, d, d)).
__global__ void k_cg_direction(std::size_t n, const CgLoop* __restrict__ s, const double* __restrict__ zr,
                               double* __restrict__ d) {
  const double beta = s->betanom / s->nom;
  for (std::size_t i = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x; i < n; i += (std::size_t)gridDim.x * blockDim.x)
    d[i] = axpby_at(1.0, zr[i], beta, d[i]);
}
// den = (d, y) with y's essential rows zeroed (k_ess_dot); the host loop's "den == 0: stop at i",
// else nom = betanom.
__global__ void k_cg_den(int nh1, const unsigned char* __restrict__ ess, const double* __restrict__ d,
                         double* __restrict__ y, CgLoop* s, cudaGraphConditionalHandle loop, ReductionOut out) {
  double acc = 0.0;
  for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < nh1; g += gridDim.x * blockDim.x)
    acc += ess_dot_at(g, ess, d, y, nullptr);
  reduce_then<false>(acc, out, [&](double den) {
    ++s->masses;
    s->den = den;
    if (den == 0.0) {
      s->final_iter = s->i;
      s->stop = 1;
      cudaGraphSetConditional(loop, 0);
    } else {
      s->nom = s->betanom;
    }
  });
}
// The fused update with alpha = nom / den (k_cg_update), then the host loop's tests: betanom < 0
// or <= r0 stops at i; otherwise ++i beyond max_iter stops at max_iter.
__global__ void k_cg_step(std::size_t n, const double* __restrict__ d, double* __restrict__ x, double* __restrict__ r,
                          double* __restrict__ z, const double* __restrict__ dinv, CgLoop* s,
                          cudaGraphConditionalHandle loop, ReductionOut out) {
  if (s->stop) return;  // k_cg_den stopped this iteration
  const double alpha = s->nom / s->den;
  double part = 0.0;
  for (std::size_t i = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x; i < n; i += (std::size_t)gridDim.x * blockDim.x)
    part += cg_update_at(i, alpha, d, x, r, z, dinv, nullptr);
  reduce_then<false>(part, out, [&](double betanom) {
    s->betanom = betanom;
    if (betanom < 0.0 || betanom <= s->r0) {
      s->final_iter = s->i;
      s->stop = 1;
    } else if (++s->i > s->max_iter) {
      s->final_iter = s->max_iter;
      s->stop = 1;
    }
    if (s->stop) cudaGraphSetConditional(loop, 0);
  });
}
#endif
__global__ void k_min(int n, const double* x, ReductionOut out) {
  double m = INFINITY;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) m = fmin(m, x[i]);
  reduce_to_host<true>(m, out);
}

// ---- assembly: y[dof] = sum of E-vector entries mapping to dof ----
__global__ void k_gather(int nh1, const int* offsets, const int* positions, const double* evec, double* y) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= nh1) return;
  double s = 0.0;
  for (int p = offsets[g]; p < offsets[g + 1]; ++p) s += evec[positions[p]];
  y[g] = s;
}

// The gather for the listed dofs only (--overlap: shared dofs, then the others).
__global__ void k_gather_list(int n, const int* dofs, const int* offsets, const int* positions, const double* evec,
                              double* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int g = dofs[i];
  double s = 0.0;
  for (int p = offsets[g]; p < offsets[g + 1]; ++p) s += evec[positions[p]];
  y[g] = s;
}

}  // namespace
}  // namespace laghos
#include "kernels_gpu_fixed.cuh"
#include "kernels_gpu_force_lean.cuh"
#include "kernels_gpu_mass_zcol.cuh"
namespace laghos {
namespace {

// The compile-time-specialised operators of one (dim, D1D, Q1D, L1D) and thread layout.
class FixedOps {
 public:
  virtual ~FixedOps() = default;
  // M x of elements[0..count) (every element when null) into the E-vector.
  virtual void mass_h1(const DeviceDisc& d, const int* elements, int count, const double* x, double* evec) = 0;
  // y += M x of elements[0..count) (every element when null) by atomics, on `stream`.
  virtual void mass_h1_scatter(const DeviceDisc& d, const int* elements, int count, const double* x, double* y,
                               copa::gpu::stream_t stream) = 0;
  virtual void mass_l2(const DeviceDisc& d, const double* x, double* y) = 0;
  // F 1 of elements[0..count) (every element when null) into the E-vector.
  virtual void force(const DeviceDisc& d, const int* elements, int count, const double* stress, double* evec) = 0;
  virtual void force_t(const DeviceDisc& d, const double* stress, const double* v, double* e_rhs) = 0;
  virtual void qupdate(const DeviceDisc& d, const double* x, const double* v, const double* e, double* stress,
                       double* elem_dt) = 0;
};

// Elements per block: up to 256 threads, shared memory within 96 KB (several blocks per SM).
struct LaunchShape {
  dim3 grid, block;
  std::size_t shmem = 0;
};
template <typename Kernel>
LaunchShape launch_shape(Kernel kernel, int NE, int tpe, int basis, int per_element) {
  constexpr std::size_t limit = 96 * 1024;
  int nbe = tpe >= 256 ? 1 : 256 / tpe;
  while (nbe > 1 && (basis + static_cast<std::size_t>(nbe) * per_element) * sizeof(double) > limit) --nbe;
  LaunchShape s;
  s.shmem = (basis + static_cast<std::size_t>(nbe) * per_element) * sizeof(double);
  if (s.shmem > 48 * 1024) copa::gpu::set_max_dynamic_shared(kernel, static_cast<int>(s.shmem));
  s.block = dim3(tpe, nbe, 1);
  s.grid = dim3((NE + nbe - 1) / nbe, 1, 1);
  return s;
}

// Options of the specialised operators beside the thread layout ("lean": both).
struct FixedChoice {
  bool staged_qupdate = false;  // k_qupdate_staged instead of k_qupdate
  bool lean_force = false;      // k_force_lean, k_force_t_lean in 3D
  bool zcol_mass = false;       // k_mass_zcol for the scattered H1 mass in 3D
};

template <int DIM, int D, int Q, int L, bool XYZ>
class FixedOpsT final : public FixedOps {
  using S = fixed::Shape<DIM, D, Q, L>;
  using LS = fixed::LeanShape<D, Q, L>;
  static constexpr int TPE = (DIM == 3 && XYZ) ? Q * Q * Q : Q * Q;  // threads per element
  static constexpr bool kLean3D = DIM == 3;  // the z-column kernels are 3D only

 public:
  FixedOpsT(int NE, FixedChoice choice)
      : staged_(choice.staged_qupdate),
        lean_force_(kLean3D && choice.lean_force),
        zcol_mass_(kLean3D && choice.zcol_mass),
        mh1_(launch_shape(fixed::k_mass<DIM, D, Q, L, TPE, true>, NE, TPE, S::BASIS, S::MASS)),
        mh1s_(launch_shape(fixed::k_mass<DIM, D, Q, L, TPE, true, true>, NE, TPE, S::BASIS, S::MASS)),
        ml2_(launch_shape(fixed::k_mass<DIM, D, Q, L, TPE, false>, NE, TPE, S::BASIS, S::MASS)),
        f_(launch_shape(fixed::k_force<DIM, D, Q, L, TPE>, NE, TPE, S::BASIS, S::FORCE)),
        ft_(launch_shape(fixed::k_force_t<DIM, D, Q, L, TPE>, NE, TPE, S::BASIS, S::FORCE_T)),
        q_(launch_shape(fixed::k_qupdate<DIM, D, Q, L>, NE, S::NQ, S::BASIS, S::QUPDATE)),
        qs_(launch_shape(fixed::k_qupdate_staged<DIM, D, Q, L>, NE, S::NQ, S::BASIS, S::QUPDATE_STAGED)) {
    if constexpr (kLean3D) {
      if (lean_force_) {
        fl_ = launch_shape(fixed::k_force_lean<D, Q, L>, NE, LS::TPE, S::BASIS, LS::FORCE);
        ftl_ = launch_shape(fixed::k_force_t_lean<D, Q, L>, NE, LS::TPE, S::BASIS, LS::FORCE_T);
      }
      if (zcol_mass_) mzc_ = launch_shape(fixed::k_mass_zcol<D, Q, L>, NE, LS::TPE, S::BASIS, LS::MASS);
    }
  }
  void mass_h1(const DeviceDisc& d, const int* elements, int count, const double* x, double* evec) override {
    const unsigned grid = (count + mh1_.block.y - 1) / mh1_.block.y;
    fixed::k_mass<DIM, D, Q, L, TPE, true><<<grid, mh1_.block, mh1_.shmem>>>(d, elements, count, x, evec);
    COPA_GPU_CHECK_LAUNCH("fixed::k_mass(h1)");
  }
  void mass_h1_scatter(const DeviceDisc& d, const int* elements, int count, const double* x, double* y,
                       copa::gpu::stream_t stream) override {
    if constexpr (kLean3D) {
      if (zcol_mass_) {
        const unsigned grid = (count + mzc_.block.y - 1) / mzc_.block.y;
        fixed::k_mass_zcol<D, Q, L><<<grid, mzc_.block, mzc_.shmem, stream>>>(d, elements, count, x, y);
        COPA_GPU_CHECK_LAUNCH("fixed::k_mass_zcol");
        return;
      }
    }
    const unsigned grid = (count + mh1s_.block.y - 1) / mh1s_.block.y;
    fixed::k_mass<DIM, D, Q, L, TPE, true, true><<<grid, mh1s_.block, mh1s_.shmem, stream>>>(d, elements, count, x, y);
    COPA_GPU_CHECK_LAUNCH("fixed::k_mass(h1, scatter)");
  }
  void mass_l2(const DeviceDisc& d, const double* x, double* y) override {
    fixed::k_mass<DIM, D, Q, L, TPE, false><<<ml2_.grid, ml2_.block, ml2_.shmem>>>(d, nullptr, d.NE, x, y);
    COPA_GPU_CHECK_LAUNCH("fixed::k_mass(l2)");
  }
  void force(const DeviceDisc& d, const int* elements, int count, const double* stress, double* evec) override {
    if constexpr (kLean3D) {
      if (lean_force_) {
        const unsigned grid = (count + fl_.block.y - 1) / fl_.block.y;
        fixed::k_force_lean<D, Q, L><<<grid, fl_.block, fl_.shmem>>>(d, elements, count, stress, evec);
        COPA_GPU_CHECK_LAUNCH("fixed::k_force_lean");
        return;
      }
    }
    const unsigned grid = (count + f_.block.y - 1) / f_.block.y;
    fixed::k_force<DIM, D, Q, L, TPE><<<grid, f_.block, f_.shmem>>>(d, elements, count, stress, evec);
    COPA_GPU_CHECK_LAUNCH("fixed::k_force");
  }
  void force_t(const DeviceDisc& d, const double* stress, const double* v, double* e_rhs) override {
    if constexpr (kLean3D) {
      if (lean_force_) {
        fixed::k_force_t_lean<D, Q, L><<<ftl_.grid, ftl_.block, ftl_.shmem>>>(d, stress, v, e_rhs);
        COPA_GPU_CHECK_LAUNCH("fixed::k_force_t_lean");
        return;
      }
    }
    fixed::k_force_t<DIM, D, Q, L, TPE><<<ft_.grid, ft_.block, ft_.shmem>>>(d, stress, v, e_rhs);
    COPA_GPU_CHECK_LAUNCH("fixed::k_force_t");
  }
  void qupdate(const DeviceDisc& d, const double* x, const double* v, const double* e, double* stress,
               double* elem_dt) override {
    if (staged_) {
      fixed::k_qupdate_staged<DIM, D, Q, L><<<qs_.grid, qs_.block, qs_.shmem>>>(d, x, v, e, stress, elem_dt);
      COPA_GPU_CHECK_LAUNCH("fixed::k_qupdate_staged");
      return;
    }
    fixed::k_qupdate<DIM, D, Q, L><<<q_.grid, q_.block, q_.shmem>>>(d, x, v, e, stress, elem_dt);
    COPA_GPU_CHECK_LAUNCH("fixed::k_qupdate");
  }

 private:
  bool staged_, lean_force_, zcol_mass_;  // FixedChoice (lean_force_, zcol_mass_ false in 2D)
  LaunchShape mh1_, mh1s_, ml2_, f_, ft_, q_, qs_, fl_, ftl_, mzc_;
};

// Dispatch table: Laghos's standard pairs Q_k / Q_{k-1} (2k Gauss-Legendre points), k = 1..4.
// Other (D1D, Q1D, L1D) combinations use the generic kernels.
template <int DIM, bool XYZ>
std::unique_ptr<FixedOps> make_fixed_dim(int D, int Q, int L, int NE, FixedChoice choice) {
  if (D == 2 && Q == 2 && L == 1) return std::make_unique<FixedOpsT<DIM, 2, 2, 1, XYZ>>(NE, choice);
  if (D == 3 && Q == 4 && L == 2) return std::make_unique<FixedOpsT<DIM, 3, 4, 2, XYZ>>(NE, choice);
  if (D == 4 && Q == 6 && L == 3) return std::make_unique<FixedOpsT<DIM, 4, 6, 3, XYZ>>(NE, choice);
  if (D == 5 && Q == 8 && L == 4) return std::make_unique<FixedOpsT<DIM, 5, 8, 4, XYZ>>(NE, choice);
  return nullptr;
}
std::unique_ptr<FixedOps> make_fixed(int dim, bool xyz, int D, int Q, int L, int NE, FixedChoice choice) {
  if (dim == 2) return make_fixed_dim<2, false>(D, Q, L, NE, choice);
  return xyz ? make_fixed_dim<3, true>(D, Q, L, NE, choice) : make_fixed_dim<3, false>(D, Q, L, NE, choice);
}
class GpuKernels final : public HydroKernels {
 public:
  explicit GpuKernels(const GpuChoice& c) : choice_(c) {}
  ~GpuKernels() override {
    for (double* p : owned_) copa::gpu::device_pool().deallocate(p);
    for (int* p : owned_int_) copa::gpu::device_pool().deallocate(p);
    for (unsigned char* p : owned_bytes_) copa::gpu::device_pool().deallocate(p);
    copa::gpu::device_pool().deallocate(out_.arrivals);
    copa::gpu::free_mapped(host_result_);
#if defined(COPA_HAVE_CUDA)
    for (const CgGraph& g : cg_graphs_) (void)cudaGraphExecDestroy(g.exec);
    if (cg_loop_) copa::gpu::device_pool().deallocate(cg_loop_);
    if (cg_stream_) copa::gpu::destroy_stream(cg_stream_);
#endif
  }
  std::vector<std::string> substitutions() const override {
    std::vector<std::string> out;
    if (choice_.fixed && !fixed_)
      out.push_back("no fixed kernels for (D1D, Q1D, L1D) = (" + std::to_string(dd_.D1D) + ", " +
                    std::to_string(dd_.Q1D) + ", " + std::to_string(dd_.L1D) +
                    "): the generic kernels ran (the CG mass by gather)");
    if (fixed_ && choice_.xyz && dd_.dim == 2) out.push_back("layout xyz is 3D only: 2D ran layout xy");
    if (fixed_ && choice_.lean && dd_.dim == 2)
      out.push_back("the lean force kernels are 3D only: 2D ran the block force kernels");
    if (h_ && h_->taylor_source && fixed_)
      out.push_back("2D Taylor-Green's energy source: the generic quadrature update ran");
    if (choice_.cg_graph) {
#if defined(COPA_HAVE_CUDA)
      if (choice_.many_ranks)
        out.push_back("cg=graph is one rank's: over ranks the H1 CG's dots are summed on the host, the host loop ran");
      else if (!scatters())
        out.push_back("cg=graph runs the fixed kernels' scattered mass: the host loop ran");
#else
      out.push_back("cg=graph needs CUDA's conditional graph nodes: the host loop ran");
#endif
    }
    return out;
  }

  void setup(const Discretization& h) override {
    h_ = &h;
    dd_.dim = h.dim;
    dd_.D1D = h.D1D;
    dd_.Q1D = h.Q1D;
    dd_.L1D = h.L1D;
    dd_.NE = h.NE;
    dd_.nd = h.nd;
    dd_.nq = h.nq;
    dd_.nl = h.nl;
    dd_.nh1 = h.nh1;
    dd_.nl2 = h.nl2;
    dd_.k = h.k;
    dd_.h0 = h.h0;
    dd_.cfl = h.cfl;
    dd_.viscosity = h.viscosity;
    dd_.B = upload(h.B);
    dd_.G = upload(h.G);
    dd_.Bl = upload(h.Bl);
    dd_.wq = upload(h.wq);
    dd_.rho0DetJ0w = upload(h.rho0DetJ0w);
    dd_.Jac0inv = upload(h.Jac0inv);
    dd_.gamma = upload(h.gamma);
    dd_.h1_map = upload_int(h.h1_map);
    std::vector<double> B2(h.B.size());
    for (std::size_t i = 0; i < B2.size(); ++i) B2[i] = h.B[i] * h.B[i];
    B2_ = upload(B2);
    for (int c = 0; c < h.dim; ++c) ess_[c] = upload_int(h.ess[c]);
    std::vector<int> offsets(h.nh1 + 1, 0), positions(h.h1_map.size());
    for (int idx : h.h1_map) ++offsets[idx + 1];
    for (int i = 0; i < h.nh1; ++i) offsets[i + 1] += offsets[i];
    std::vector<int> fill = offsets;
    for (std::size_t p = 0; p < h.h1_map.size(); ++p) positions[fill[h.h1_map[p]]++] = static_cast<int>(p);
    offsets_ = upload_int(offsets);
    positions_ = upload_int(positions);
    for (auto [ptr, n] : {std::pair<double**, std::size_t>{&stress_, static_cast<std::size_t>(h.NE) * h.nq * h.dim * h.dim},
                          {&evec_, static_cast<std::size_t>(h.NE) * h.nd * h.dim},
                          {&elem_dt_, static_cast<std::size_t>(h.NE)},
                          {&out_.partial, static_cast<std::size_t>(kReduceBlocks)}}) {
      *ptr = alloc(n);
      owned_.push_back(*ptr);
    }
    out_.arrivals = static_cast<unsigned int*>(copa::gpu::device_pool().allocate(sizeof(unsigned int)));
    copa::gpu::fill_zero(out_.arrivals, sizeof(unsigned int));
    out_.result = static_cast<double*>(copa::gpu::device_pointer(host_result_));
    const int n = h.D1D > h.Q1D ? h.D1D : h.Q1D;
    big_ = h.dim == 2 ? n * n : n * n * n;
    if (choice_.xyz && h.dim == 3)
      block_ = dim3(h.Q1D, h.Q1D, h.Q1D);
    else
      block_ = dim3(h.Q1D, h.Q1D, 1);
    const int threads = block_.x * block_.y * block_.z;
    qshared_ = ((2 * h.dim * h.dim * h.nq) + 4 * big_ + (threads > big_ ? threads : big_)) * sizeof(double);
    eshared_ = 6 * big_ * sizeof(double);
    if (choice_.fixed)
      fixed_ = make_fixed(h.dim, choice_.xyz, h.D1D, h.Q1D, h.L1D, h.NE,
                          FixedChoice{choice_.lean, choice_.lean, choice_.zcol_mass});
    for (int c = 0; c < h.dim; ++c) {
      std::vector<unsigned char> mask(h.nh1, 0);
      for (int g : h.ess[c]) mask[g] = 1;
      auto* p = static_cast<unsigned char*>(copa::gpu::device_pool().allocate(mask.size()));
      copa::gpu::copy_to_device(p, mask.data(), mask.size());
      owned_bytes_.push_back(p);
      ess_mask_[c] = p;
    }
    if (qshared_ > 48 * 1024) {
      if (h.dim == 2) copa::gpu::set_max_dynamic_shared(k_qupdate<2>, static_cast<int>(qshared_));
      else copa::gpu::set_max_dynamic_shared(k_qupdate<3>, static_cast<int>(qshared_));
    }
  }

  double* alloc(std::size_t n) override {
    auto* p = static_cast<double*>(copa::gpu::device_pool().allocate(n * sizeof(double)));
    copa::gpu::fill_zero(p, n * sizeof(double));
    return p;
  }
  void release(double* p) override { copa::gpu::device_pool().deallocate(p); }
  void to_backend(double* dst, const double* host, std::size_t n) override {
    copa::gpu::copy_to_device(dst, host, n * sizeof(double));
    copa::gpu::synchronize();
  }
  void to_host(double* host, const double* src, std::size_t n) override {
    copa::gpu::copy_to_host(host, src, n * sizeof(double));
    copa::gpu::synchronize();
  }
  void sync() override { copa::gpu::synchronize(); }

  double dot(std::size_t n, const double* x, const double* y) override {
    k_dot<<<kReduceBlocks, kReduceThreads>>>(n, x, y, nullptr, out_);
    COPA_GPU_CHECK_LAUNCH("k_dot");
    return finish_reduction();
  }
  double dot_weighted(std::size_t n, const double* x, const double* y, const double* w) override {
    k_dot<<<kReduceBlocks, kReduceThreads>>>(n, x, y, w, out_);
    COPA_GPU_CHECK_LAUNCH("k_dot");
    return finish_reduction();
  }
  void axpby(std::size_t n, double a, const double* x, double b, const double* y, double* z) override {
    k_axpby<<<grid(n), 256>>>(n, a, x, b, y, z);
    COPA_GPU_CHECK_LAUNCH("k_axpby");
  }
  void copy(std::size_t n, const double* x, double* y) override {
    if (n) copa::gpu::copy_on_device(y, x, n * sizeof(double));
  }
  void fill(std::size_t n, double value, double* x) override {
    k_fill<<<grid(n), 256>>>(n, value, x);
    COPA_GPU_CHECK_LAUNCH("k_fill");
  }
  void multiply(std::size_t n, const double* a, const double* x, double* y) override {
    k_multiply<<<grid(n), 256>>>(n, a, x, y);
    COPA_GPU_CHECK_LAUNCH("k_multiply");
  }
  void zero_essential(int c, double* y) override {
    const int n = static_cast<int>(h_->ess[c].size());
    if (n == 0) return;
    k_zero_at<<<copa::gpu::blocks_for(n, 256), 256>>>(n, ess_[c], y);
    COPA_GPU_CHECK_LAUNCH("k_zero_at");
  }

  double cg_update(std::size_t n, double alpha, const double* d, double* x, double* r, double* z,
                   const double* dinv, const double* w) override {
    k_cg_update<<<kReduceBlocks, kReduceThreads>>>(n, alpha, d, x, r, z, dinv, w, out_);
    COPA_GPU_CHECK_LAUNCH("k_cg_update");
    return finish_reduction();
  }
  double ess_dot(int c, std::size_t n, const double* x, double* y, const double* w) override {
    k_ess_dot<<<kReduceBlocks, kReduceThreads>>>(static_cast<int>(n), ess_mask_[c], x, y, w, out_);
    COPA_GPU_CHECK_LAUNCH("k_ess_dot");
    return finish_reduction();
  }
  double mass_h1_ess_dot(int c, std::size_t n, const double* x, double* y) override {
    if (scatters()) {  // y = M x by atomics, then ess rows zeroed + (x, y)
      mass_h1(x, y);
      return ess_dot(c, n, x, y, nullptr);
    }
    element_mass_h1(x);
    k_gather_ess_dot<<<kReduceBlocks, kReduceThreads>>>(static_cast<int>(n), offsets_, positions_, evec_, ess_mask_[c], x, y,
                                             out_);
    COPA_GPU_CHECK_LAUNCH("k_gather_ess_dot");
    return finish_reduction();
  }
#if defined(COPA_HAVE_CUDA)
  CgDone cg_h1_on_device(int c, std::size_t n, const double* dinv, double* x, double* r, double* d, double* z,
                         const CgResume& from) override {
    if (!choice_.cg_graph || choice_.many_ranks || !scatters()) return {};
    const cudaGraphExec_t exec = cg_graph(c, n, dinv, x, r, d, z);
    CgLoop s{from.nom, 0.0, from.betanom, from.r0, from.i, from.max_iter, from.max_iter, 0, 0};
    copa::gpu::copy_to_device(cg_loop_, &s, sizeof s);
    COPA_GPU_CHECK(cudaGraphLaunch(exec, nullptr));
    copa::gpu::check_launch("the H1 CG loop graph", __FILE__, __LINE__);
    copa::gpu::copy_to_host(&s, cg_loop_, sizeof s);
    copa::gpu::synchronize();
    return {s.final_iter, s.masses};
  }
#endif
  void mass_h1(const double* x, double* y) override {
    if (scatters()) return scatter_mass_h1(nullptr, dd_.NE, x, y, true);
    element_mass_h1(x);
    gather(evec_, y);
  }
  void mass_h1_diagonal(double* diag) override {
    k_mass_h1_diag<<<dd_.NE, block_, eshared_>>>(dd_, big_, B2_, evec_);
    COPA_GPU_CHECK_LAUNCH("k_mass_h1_diag");
    gather(evec_, diag);
  }
  void mass_l2(const double* x, double* y) override {
    if (fixed_) return fixed_->mass_l2(dd_, x, y);
    k_mass_l2<<<dd_.NE, block_, eshared_>>>(dd_, big_, x, y);
    COPA_GPU_CHECK_LAUNCH("k_mass_l2");
  }
  void force(double* rhs) override {
    element_force(nullptr, dd_.NE);
    const std::size_t comp = static_cast<std::size_t>(dd_.NE) * dd_.nd;
    for (int c = 0; c < dd_.dim; ++c) gather(evec_ + c * comp, rhs + static_cast<std::size_t>(c) * dd_.nh1);
  }
  // Each dof is gathered by exactly one pass, from the same E-vector entries in the same order as
  // force(): the split result is bitwise force()'s. Both passes only enqueue on the default stream,
  // so the exchange's pack (enqueued between them) waits for the boundary pass alone.
  void set_split(const ElementSplit& split) override {
    const auto upload_list = [&](const std::vector<int>& v, Subset& s) {
      s.count = static_cast<int>(v.size());
      s.items = upload_int(v);
    };
    upload_list(split.boundary, boundary_);
    upload_list(split.interior, interior_);
    upload_list(split.shared_dofs, shared_dofs_);
    upload_list(split.other_dofs, other_dofs_);
    copa::gpu::synchronize();
  }
  void force_boundary(double* rhs) override { split_force(boundary_, shared_dofs_, rhs); }
  void force_interior(double* rhs) override { split_force(interior_, other_dofs_, rhs); }
  // With atomics each pass adds its elements into every dof they touch (y zeroed by the caller);
  // the interior elements never touch a shared dof (all its elements are boundary), so the boundary
  // pass may run on the exchange's stream beside the interior pass, with the pack behind it.
  bool mass_h1_passes_commute() const override { return scatters(); }
  void mass_h1_boundary(const double* x, double* y, void* stream) override {
    if (scatters())
      return scatter_mass_h1(boundary_.items, boundary_.count, x, y, false, static_cast<copa::gpu::stream_t>(stream));
    split_mass_h1(boundary_, shared_dofs_, x, y);
  }
  void mass_h1_interior(const double* x, double* y) override {
    if (scatters()) return scatter_mass_h1(interior_.items, interior_.count, x, y, false);
    split_mass_h1(interior_, other_dofs_, x, y);
  }
  void force_transpose(const double* v, double* e_rhs) override {
    if (fixed_) return fixed_->force_t(dd_, stress_, v, e_rhs);
    k_force_t<<<dd_.NE, block_, eshared_>>>(dd_, big_, stress_, v, e_rhs);
    COPA_GPU_CHECK_LAUNCH("k_force_t");
  }
  double quadrature_update(const double* x, const double* v, const double* e, double* source) override {
    // The 2D Taylor-Green source is computed by the generic kernel (same stress layout).
    if (fixed_ && !source)
      fixed_->qupdate(dd_, x, v, e, stress_, elem_dt_);
    else if (dd_.dim == 2)
      k_qupdate<2><<<dd_.NE, block_, qshared_>>>(dd_, big_, x, v, e, stress_, elem_dt_, source);
    else
      k_qupdate<3><<<dd_.NE, block_, qshared_>>>(dd_, big_, x, v, e, stress_, elem_dt_, source);
    COPA_GPU_CHECK_LAUNCH("k_qupdate");
    k_min<<<kReduceBlocks, kReduceThreads>>>(dd_.NE, elem_dt_, out_);
    COPA_GPU_CHECK_LAUNCH("k_min");
    return finish_reduction();
  }

 private:
  // Blocks of the reductions and fused vector passes: 4 x 132 SMs of 256 threads (enough loads
  // in flight for HBM).
  static constexpr int kReduceBlocks = 528;
  unsigned grid(std::size_t n) const {
    const unsigned g = copa::gpu::blocks_for(n, 256);
    return g < 4096 ? (g == 0 ? 1 : g) : 4096;
  }
  // The block partials come back and are combined on the host in a fixed order: one
  // launch fewer than a device-side final pass, same latency for the copy.
  // The total the last reduction kernel wrote into host-mapped memory (ReductionOut).
  double finish_reduction() {
    copa::gpu::synchronize(copa::gpu::stream_t{});
    return *static_cast<volatile double*>(host_result_);
  }
#if defined(COPA_HAVE_CUDA)
  // cg=graph: one graph per component's solve (its essential rows) and vectors, built the first
  // time: a while node whose body is captured from the launches of one iteration.
  struct CgGraph {
    int c;
    std::size_t n;
    const double *dinv, *x, *r, *d, *z;
    cudaGraphExec_t exec;
  };
  cudaGraphExec_t cg_graph(int c, std::size_t n, const double* dinv, double* x, double* r, double* d, double* z) {
    for (const CgGraph& g : cg_graphs_)
      if (g.c == c && g.n == n && g.dinv == dinv && g.x == x && g.r == r && g.d == d && g.z == z) return g.exec;
    if (!cg_loop_) cg_loop_ = static_cast<CgLoop*>(copa::gpu::device_pool().allocate(sizeof(CgLoop)));
    if (!cg_stream_) cg_stream_ = copa::gpu::create_stream();
    cudaGraph_t graph{};
    COPA_GPU_CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphExec_t exec{};
    try {
      cudaGraphConditionalHandle loop{};
      COPA_GPU_CHECK(cudaGraphConditionalHandleCreate(&loop, graph, 1, cudaGraphCondAssignDefault));
      cudaGraphNodeParams node{};
      node.type = cudaGraphNodeTypeConditional;
      node.conditional.handle = loop;
      node.conditional.type = cudaGraphCondTypeWhile;
      node.conditional.size = 1;
      cudaGraphNode_t while_node{};
      COPA_GPU_CHECK(cudaGraphAddNode(&while_node, graph, nullptr, nullptr, 0, &node));
      cudaGraph_t body = node.conditional.phGraph_out[0];
      COPA_GPU_CHECK(cudaStreamBeginCaptureToGraph(cg_stream_, body, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal));
      try {
        const copa::gpu::CaptureScope capturing;
        // The host loop's axpby(1, zr, beta, d, d), then op_velocity: y = M d (zeroed, scattered),
        // its essential rows and (d, y), then cg_update.
        k_cg_direction<<<grid(n), 256, 0, cg_stream_>>>(n, cg_loop_, dinv ? z : r, d);
        COPA_GPU_CHECK_LAUNCH("k_cg_direction");
        scatter_mass_h1(nullptr, dd_.NE, d, z, true, cg_stream_);
        k_cg_den<<<kReduceBlocks, kReduceThreads, 0, cg_stream_>>>(static_cast<int>(n), ess_mask_[c], d, z, cg_loop_, loop, out_);
        COPA_GPU_CHECK_LAUNCH("k_cg_den");
        k_cg_step<<<kReduceBlocks, kReduceThreads, 0, cg_stream_>>>(n, d, x, r, z, dinv, cg_loop_, loop, out_);
        COPA_GPU_CHECK_LAUNCH("k_cg_step");
      } catch (...) {
        (void)cudaStreamEndCapture(cg_stream_, &body);
        throw;
      }
      COPA_GPU_CHECK(cudaStreamEndCapture(cg_stream_, &body));
      COPA_GPU_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    } catch (...) {
      (void)cudaGraphDestroy(graph);
      throw;
    }
    (void)cudaGraphDestroy(graph);
    cg_graphs_.push_back({c, n, dinv, x, r, d, z, exec});
    return exec;
  }
  std::vector<CgGraph> cg_graphs_;
  CgLoop* cg_loop_ = nullptr;
  copa::gpu::stream_t cg_stream_ = nullptr;
#endif
  // Device list of elements or dofs of the --overlap split.
  struct Subset {
    const int* items = nullptr;
    int count = 0;
  };
  void element_force(const int* elements, int count) {
    if (count == 0) return;
    if (fixed_) return fixed_->force(dd_, elements, count, stress_, evec_);
    k_force<<<count, block_, eshared_>>>(dd_, big_, elements, stress_, evec_);
    COPA_GPU_CHECK_LAUNCH("k_force");
  }
  void split_force(const Subset& elements, const Subset& dofs, double* rhs) {
    element_force(elements.items, elements.count);
    const std::size_t comp = static_cast<std::size_t>(dd_.NE) * dd_.nd;
    for (int c = 0; c < dd_.dim; ++c) gather_list(dofs, evec_ + c * comp, rhs + static_cast<std::size_t>(c) * dd_.nh1);
  }
  // mass=atomic (and lean) assembles the H1 mass action by atomics into y (no E-vector, no gather).
  bool scatters() const { return choice_.atomic && fixed_; }
  void scatter_mass_h1(const int* elements, int count, const double* x, double* y, bool zero_first,
                       copa::gpu::stream_t stream = nullptr) {
    if (zero_first) copa::gpu::fill_zero(y, static_cast<std::size_t>(dd_.nh1) * sizeof(double), stream);
    if (count > 0) fixed_->mass_h1_scatter(dd_, elements, count, x, y, stream);
  }
  void split_mass_h1(const Subset& elements, const Subset& dofs, const double* x, double* y) {
    element_mass_h1(x, elements.items, elements.count);
    gather_list(dofs, evec_, y);
  }
  void gather_list(const Subset& dofs, const double* evec, double* y) {
    if (dofs.count == 0) return;
    k_gather_list<<<copa::gpu::blocks_for(dofs.count, 256), 256>>>(dofs.count, dofs.items, offsets_, positions_, evec, y);
    COPA_GPU_CHECK_LAUNCH("k_gather_list");
  }
  // M x of the listed elements (every element when null) into the E-vector.
  void element_mass_h1(const double* x, const int* elements = nullptr, int count = -1) {
    if (count < 0) count = dd_.NE;
    if (count == 0) return;
    if (fixed_) return fixed_->mass_h1(dd_, elements, count, x, evec_);
    k_mass_h1<<<count, block_, eshared_>>>(dd_, big_, elements, x, evec_);
    COPA_GPU_CHECK_LAUNCH("k_mass_h1");
  }
  void gather(const double* evec, double* y) {
    k_gather<<<copa::gpu::blocks_for(dd_.nh1, 256), 256>>>(dd_.nh1, offsets_, positions_, evec, y);
    COPA_GPU_CHECK_LAUNCH("k_gather");
  }
  double* upload(const std::vector<double>& v) {
    double* p = alloc(v.size() ? v.size() : 1);
    if (!v.empty()) copa::gpu::copy_to_device(p, v.data(), v.size() * sizeof(double));
    owned_.push_back(p);
    return p;
  }
  int* upload_int(const std::vector<int>& v) {
    auto* p = static_cast<int*>(copa::gpu::device_pool().allocate((v.size() ? v.size() : 1) * sizeof(int)));
    if (!v.empty()) copa::gpu::copy_to_device(p, v.data(), v.size() * sizeof(int));
    owned_int_.push_back(p);
    return p;
  }

  GpuChoice choice_;
  const Discretization* h_ = nullptr;
  DeviceDisc dd_{};
  const double* B2_ = nullptr;
  const int* ess_[3] = {nullptr, nullptr, nullptr};
  const int *offsets_ = nullptr, *positions_ = nullptr;
  double *stress_ = nullptr, *evec_ = nullptr, *elem_dt_ = nullptr;
  double* host_result_ = static_cast<double*>(copa::gpu::malloc_mapped(sizeof(double)));
  ReductionOut out_{};
  const unsigned char* ess_mask_[3] = {nullptr, nullptr, nullptr};
  std::unique_ptr<FixedOps> fixed_;
  Subset boundary_, interior_, shared_dofs_, other_dofs_;
  std::vector<double*> owned_;
  std::vector<int*> owned_int_;
  std::vector<unsigned char*> owned_bytes_;
  int big_ = 0;
  dim3 block_;
  std::size_t qshared_ = 0, eshared_ = 0;
};

}  // namespace

std::unique_ptr<HydroKernels> make_gpu_kernels(const GpuChoice& choice) {
  return std::make_unique<GpuKernels>(choice);
}

}  // namespace laghos
