// The distributed GPU engine (CUDA + MPI builds): the owned-entry fill on the device (one thread
// per owned triangle pair: near pairs by extraction, far pairs by far_block_local; atomics) and the Pliris-style right-looking LU of pliris_lu.hpp with
// cuSOLVER zgetrf on the panels and cuBLAS ZTRSM/ZGEMM on the trailing matrix, over a 1 x Q grid,
// the panels broadcast through --transport (panel_comm.hpp). Every kernel and copy runs on the
// legacy default stream, in order; with lookahead the host transport's MPI_Bcast of the next panel
// runs on the host while the queued trailing GEMM runs on the device. On P x Q grids with P > 1
// (pliris_lu_2d.hpp) the panel is factored on the host across the process rows (with lookahead:
// while the device runs the previous panel's GEMM), the row interchanges (one gather kernel, one
// message per pair of process rows, one scatter kernel), U12 and the back substitution's vectors
// travel through pinned host staging buffers (RowStaging), and the TRSM/GEMM stay on cuBLAS.
#include <algorithm>
#include <cmath>

#include <cublas_v2.h>
#include <cusolverDn.h>

#include "copa/cli.hpp"
#include "copa/device_memory.hpp"
#include "copa/errors.hpp"
#include "copa/gpu.hpp"
#include "copa/mpi.hpp"
#include "copa/timing.hpp"
#include "distributed/dist_engine.hpp"
#include "distributed/owned_fill.hpp"
#include "distributed/panel_comm.hpp"
#include "distributed/pliris_lu.hpp"
#include "distributed/pliris_lu_2d.hpp"
#include "efie_pair.hpp"

namespace efie::dist {
namespace {

void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw copa::RuntimeError(std::string(what) + " failed (cuBLAS status " + std::to_string(int(s)) + ")");
}
void check_cusolver(cusolverStatus_t s, const char* what) {
  if (s != CUSOLVER_STATUS_SUCCESS)
    throw copa::RuntimeError(std::string(what) + " failed (cuSOLVER status " + std::to_string(int(s)) + ")");
}

__device__ inline void atomic_add(Cplx* a, Cplx v) {
  atomicAdd(&a->re, v.re);
  atomicAdd(&a->im, v.im);
}

// Near pairs by singularity extraction; far pairs by the triangle-pair variant's centroid-local
// formula (far_block_local: the same 3 x 7 rule, fewer operations and no |r| ~ radius cancellation).
__device__ inline void block_of(const Triangle& t, const Triangle& s, const QuadTriangle& qt, const QuadTriangle& qs, double k,
                                Cplx b[3][3]) {
  if (is_near(t, s))
    pair_block<true>(t, s, k, b);
  else
    far_block_local(qt, qs, k, b);
}

// One thread per (t in rows, s in cols) triangle pair: P_mn's block (t, s) and P_nm's block
// (s, t), each entry added (atomically: several pairs share an entry) where this rank owns it.
// row_of / col_of: local row / column of a basis, -1 when another rank owns it.
__global__ void owned_pairs_kernel(const Triangle* __restrict__ tris, const QuadTriangle* __restrict__ quad,
                                   const int* __restrict__ rows, long nrows,
                                   const int* __restrict__ cols, long ncols, const int* __restrict__ row_of,
                                   const int* __restrict__ col_of, double k, Cplx* a, long lld) {
  const long e = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= nrows * ncols) return;
  const int ti = rows[e % nrows], si = cols[e / nrows];
  const Triangle t = tris[ti], s = tris[si];
  int r[3], c[3];
  for (int i = 0; i < 3; ++i) {
    r[i] = t.basis[i] >= 0 ? row_of[t.basis[i]] : -1;
    c[i] = s.basis[i] >= 0 ? col_of[s.basis[i]] : -1;
  }
  Cplx b[3][3];
  block_of(t, s, quad[ti], quad[si], k, b);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (r[i] >= 0 && c[j] >= 0) atomic_add(a + r[i] + long(c[j]) * lld, b[i][j]);
  block_of(s, t, quad[si], quad[ti], k, b);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (c[i] >= 0 && r[j] >= 0) atomic_add(a + r[j] + long(c[i]) * lld, b[i][j]);
}

__global__ void scale_kernel(Cplx* a, long count, double s) {
  const long e = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < count) a[e] = s * a[e];
}

// LAPACK's laswp on columns [0, ncols) of a (leading dimension lda): rows k0 + i and
// k0 + pivots[i] - 1 exchanged for i = 0..w-1 in order (pivots 1-based, relative to k0).
__global__ void swap_rows_kernel(Cplx* a, long lda, long ncols, long k0, const int* __restrict__ pivots, int w) {
  const long c = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= ncols) return;
  Cplx* col = a + c * lda;
  for (int i = 0; i < w; ++i) {
    const long p = k0 + pivots[i] - 1;
    if (p != k0 + i) {
      const Cplx x = col[k0 + i];
      col[k0 + i] = col[p];
      col[p] = x;
    }
  }
}

// interchange_rows_2d's packing on the device: slot j of out (width = ncols + 1 numbers) is local
// row rows[j]'s entries from column first_col on, then its y entry. One thread per number, the
// row's numbers on consecutive threads, so the writes coalesce (the reads stride by lld).
__global__ void gather_rows_kernel(const Cplx* __restrict__ a, long lld, long first_col, long ncols, const Cplx* __restrict__ y,
                                   const long* __restrict__ rows, long count, Cplx* __restrict__ out) {
  const long e = long(blockIdx.x) * blockDim.x + threadIdx.x, width = ncols + 1;
  if (e >= count * width) return;
  const long j = e / width, c = e % width, i = rows[j];
  out[e] = c < ncols ? a[i + (first_col + c) * lld] : y[i];
}

// The inverse: local row rows[j] (and its y entry) takes slot slots[j] of in. The rows are
// distinct, so no two threads write the same number.
__global__ void scatter_rows_kernel(Cplx* __restrict__ a, long lld, long first_col, long ncols, Cplx* __restrict__ y,
                                    const long* __restrict__ rows, const long* __restrict__ slots, long count,
                                    const Cplx* __restrict__ in) {
  const long e = long(blockIdx.x) * blockDim.x + threadIdx.x, width = ncols + 1;
  if (e >= count * width) return;
  const long j = e / width, c = e % width, i = rows[j];
  const Cplx v = in[slots[j] * width + c];
  if (c < ncols)
    a[i + (first_col + c) * lld] = v;
  else
    y[i] = v;
}

// The P > 1 path's staging, grow-only and kept by the engine across solves (allocated at the first
// panel, whose rows and U12 are the largest): pinned host buffers by slot (pliris_lu_2d.hpp: one
// per peer process row and direction, the panel, U12, the back substitution's y and x_k), the
// device scratch of the packed rows and the device copy of their row and slot lists.
class RowStaging {
 public:
  RowStaging() = default;
  RowStaging(const RowStaging&) = delete;
  RowStaging& operator=(const RowStaging&) = delete;
  ~RowStaging() {
    for (Pinned& p : pinned_)
      if (p.data) copa::gpu::free_pinned(p.data);
  }
  void* pinned(int slot, std::size_t bytes) {
    if (pinned_.size() <= std::size_t(slot)) pinned_.resize(std::size_t(slot) + 1);
    Pinned& p = pinned_[std::size_t(slot)];
    if (p.bytes < bytes) {
      if (p.data) copa::gpu::free_pinned(p.data);
      p.data = nullptr;
      p.bytes = 0;
      p.data = copa::gpu::malloc_pinned(bytes);
      p.bytes = bytes;
    }
    return p.data;
  }
  Cplx* scratch(std::size_t elements) {
    if (scratch_.size() < elements) scratch_ = copa::gpu::DeviceArray<Cplx>(elements);
    return scratch_.data();
  }
  // rows (and slots, when given) to the device; the copies queue on the legacy default stream
  // behind the kernel that read the previous lists
  const long* lists(const long* rows, const long* slots, long count) {
    const std::size_t need = std::size_t(2 * count);
    if (lists_.size() < need) lists_ = copa::gpu::DeviceArray<long>(need);
    copa::gpu::copy_to_device(lists_.data(), rows, std::size_t(count) * sizeof(long));
    if (slots) copa::gpu::copy_to_device(lists_.data() + count, slots, std::size_t(count) * sizeof(long));
    return lists_.data();
  }

 private:
  struct Pinned {
    void* data = nullptr;
    std::size_t bytes = 0;
  };
  std::vector<Pinned> pinned_;
  copa::gpu::DeviceArray<Cplx> scratch_;
  copa::gpu::DeviceArray<long> lists_;
};

cuDoubleComplex* z(complex* p) { return reinterpret_cast<cuDoubleComplex*>(p); }
const cuDoubleComplex* z(const complex* p) { return reinterpret_cast<const cuDoubleComplex*>(p); }
Cplx* c(complex* p) { return reinterpret_cast<Cplx*>(p); }

// pliris_lu.hpp's kernels on device memory.
struct DeviceOps {
  cusolverDnHandle_t solver;
  cublasHandle_t blas;
  cuDoubleComplex* work;
  int* info;
  PanelBroadcast* broadcaster;
  RowStaging* rows = nullptr;  // P > 1 only

  void getrf(long m, long w, complex* a, long lda, int* pivots, long panel) {
    check_cusolver(cusolverDnZgetrf(solver, int(m), int(w), z(a), int(lda), work, pivots, info), "cusolverDnZgetrf (panel)");
    int h = 0;
    copa::gpu::copy_to_host(&h, info, sizeof h);
    if (h != 0)
      throw copa::RuntimeError("cusolverDnZgetrf on panel " + std::to_string(panel) + " failed (info " + std::to_string(h) +
                               "): singular EFIE matrix");
  }
  void copy2d(complex* dst, long lddst, const complex* src, long ldsrc, long rows, long cols) {
    COPA_GPU_CHECK(cudaMemcpy2DAsync(dst, lddst * sizeof(complex), src, ldsrc * sizeof(complex), rows * sizeof(complex), cols,
                                     cudaMemcpyDeviceToDevice, nullptr));
  }
  void swap_rows(complex* a, long lda, long ncols, long k0, const int* pivots, long w) {
    swap_rows_kernel<<<copa::gpu::blocks_for(ncols, 128), 128>>>(c(a), lda, ncols, k0, pivots, int(w));
    COPA_GPU_CHECK_LAUNCH("swap_rows_kernel");
  }
  void trsm_lower_unit(long w, long ncols, const complex* l, long ldl, complex* b, long ldb) {
    const cuDoubleComplex one{1, 0};
    check_cublas(cublasZtrsm(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, int(w), int(ncols), &one,
                             z(l), int(ldl), z(b), int(ldb)),
                 "cublasZtrsm (L11)");
  }
  void trsm_upper(long w, long ncols, const complex* u, long ldu, complex* b, long ldb) {
    const cuDoubleComplex one{1, 0};
    check_cublas(cublasZtrsm(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, int(w), int(ncols),
                             &one, z(u), int(ldu), z(b), int(ldb)),
                 "cublasZtrsm (U_kk)");
  }
  void gemm_minus(long m, long ncols, long k, const complex* a, long lda, const complex* b, long ldb, complex* cc, long ldc) {
    const cuDoubleComplex one{1, 0}, minus_one{-1, 0};
    check_cublas(cublasZgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, int(m), int(ncols), int(k), &minus_one, z(a), int(lda), z(b), int(ldb),
                             &one, z(cc), int(ldc)),
                 "cublasZgemm");
  }
  void synchronize() { copa::gpu::synchronize(); }
  void stage(const void* data, std::size_t bytes, int slot) { broadcaster->stage(data, bytes, slot); }
  void broadcast(void* data, std::size_t bytes, int root, int slot) { broadcaster->broadcast(data, bytes, root, slot); }
  void to_engine(void* dst, const void* src, std::size_t bytes) {
    copa::gpu::copy_to_device(dst, src, bytes);
    copa::gpu::synchronize();
  }
  void to_host(void* dst, const void* src, std::size_t bytes) { copa::gpu::copy_to_host(dst, src, bytes); }
  // Column-major rows x cols blocks between device and pageable host memory (synchronous; a
  // single row of the block is rows = 1 with the block's leading dimension as pitch).
  void to_host_2d(complex* dst, long lddst, const complex* src, long ldsrc, long rows, long cols) {
    COPA_GPU_CHECK(cudaMemcpy2D(dst, lddst * sizeof(complex), src, ldsrc * sizeof(complex), rows * sizeof(complex), cols,
                                cudaMemcpyDeviceToHost));
  }
  void to_engine_2d(complex* dst, long lddst, const complex* src, long ldsrc, long rows, long cols) {
    COPA_GPU_CHECK(cudaMemcpy2D(dst, lddst * sizeof(complex), src, ldsrc * sizeof(complex), rows * sizeof(complex), cols,
                                cudaMemcpyHostToDevice));
  }
  complex* row_scratch(std::size_t elements) { return reinterpret_cast<complex*>(rows->scratch(elements)); }
  void* staging(int slot, std::size_t bytes) { return rows->pinned(slot, bytes); }
  void gather_rows(const complex* a, long lld, long first_col, long ncols, const complex* y, const long* local_rows, long count,
                   complex* out) {
    const long* d_rows = rows->lists(local_rows, nullptr, count);
    gather_rows_kernel<<<copa::gpu::blocks_for(std::size_t(count * (ncols + 1)), 256), 256>>>(
        reinterpret_cast<const Cplx*>(a), lld, first_col, ncols, reinterpret_cast<const Cplx*>(y), d_rows, count, c(out));
    COPA_GPU_CHECK_LAUNCH("gather_rows_kernel");
  }
  void scatter_rows(complex* a, long lld, long first_col, long ncols, complex* y, const long* local_rows, const long* slots, long count,
                    const complex* in) {
    const long* d_lists = rows->lists(local_rows, slots, count);
    scatter_rows_kernel<<<copa::gpu::blocks_for(std::size_t(count * (ncols + 1)), 256), 256>>>(
        c(a), lld, first_col, ncols, c(y), d_lists, d_lists + count, count, reinterpret_cast<const Cplx*>(in));
    COPA_GPU_CHECK_LAUNCH("scatter_rows_kernel");
  }
};

class GpuDistEngine final : public DistEngine {
 public:
  GpuDistEngine(const BlockCyclic& layout, const std::string& transport, bool lookahead)
      : layout_(layout), transport_(transport), lookahead_(lookahead), n_(layout.n), nb_(layout.nb),
        lc_(layout.local_cols), lld_(layout.lld()) {
    check_cusolver(cusolverDnCreate(&solver_), "cusolverDnCreate");
    check_cublas(cublasCreate(&blas_), "cublasCreate");
    if (layout.grid.p > 1) {
      lines_ = std::make_unique<GridLines>(layout.myrow, layout.mycol);
      ublock_ = copa::gpu::DeviceArray<Cplx>(pliris_2d_ublock_elements(layout));
    }
    a_ = copa::gpu::DeviceArray<Cplx>(std::size_t(lld_) * std::max<long>(lc_, 1));
    // Two panel buffers: m x w panel (ld m) followed by its w pivots.
    panel_bytes_ = pliris_panel_bytes(layout);
    for (auto& p : panels_) p = copa::gpu::DeviceArray<char>(panel_bytes_);
    y_ = copa::gpu::DeviceArray<Cplx>(std::size_t(n_));
    info_ = copa::gpu::DeviceArray<int>(1);
    int lwork = 0;
    check_cusolver(cusolverDnZgetrf_bufferSize(solver_, int(n_), int(std::min(nb_, n_)), reinterpret_cast<cuDoubleComplex*>(a_.data()), int(n_), &lwork),
                   "cusolverDnZgetrf_bufferSize");
    work_ = copa::gpu::DeviceArray<Cplx>(std::size_t(std::max(lwork, 1)));
    broadcast_ = make_panel_broadcast(transport, panel_bytes_, layout, lines_.get());
    row_of_ = copa::gpu::DeviceArray<int>(std::size_t(n_));
    col_of_ = copa::gpu::DeviceArray<int>(std::size_t(n_));
    std::vector<int> r(n_), c(n_);
    for (long g = 0; g < n_; ++g) {
      r[g] = int(layout.local_row(g));
      c[g] = int(layout.local_col(g));
    }
    copa::gpu::copy_to_device(row_of_.data(), r.data(), r.size() * sizeof(int));
    copa::gpu::copy_to_device(col_of_.data(), c.data(), c.size() * sizeof(int));
    copa::gpu::synchronize();
  }
  ~GpuDistEngine() override {
    if (solver_) cusolverDnDestroy(solver_);
    if (blas_) cublasDestroy(blas_);
  }

  void fill(const Problem& p, copa::RegionTimer& timer) override {
    const OwnedTriangles owned = owned_triangles(p, layout_);
    tris_ = copa::gpu::DeviceArray<Triangle>(p.triangles.size());
    rows_ = copa::gpu::DeviceArray<int>(owned.rows.size());
    cols_ = copa::gpu::DeviceArray<int>(owned.cols.size());
    copa::gpu::copy_to_device(tris_.data(), p.triangles.data(), p.triangles.size() * sizeof(Triangle));
    std::vector<QuadTriangle> q(p.triangles.size());
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = make_quad_triangle(p.triangles[i]);
    quad_ = copa::gpu::DeviceArray<QuadTriangle>(q.size());
    copa::gpu::copy_to_device(quad_.data(), q.data(), q.size() * sizeof(QuadTriangle));
    copa::gpu::copy_to_device(rows_.data(), owned.rows.data(), owned.rows.size() * sizeof(int));
    copa::gpu::copy_to_device(cols_.data(), owned.cols.data(), owned.cols.size() * sizeof(int));
    copa::gpu::synchronize();
    copa::Region r(timer, "fill.owned");
    const std::size_t entries = std::size_t(lld_) * lc_;
    copa::gpu::fill_zero(a_.data(), entries * sizeof(Cplx));
    const long pairs = long(owned.rows.size()) * long(owned.cols.size());
    if (pairs > 0) {
      owned_pairs_kernel<<<copa::gpu::blocks_for(pairs, 128), 128>>>(tris_.data(), quad_.data(), rows_.data(), long(owned.rows.size()),
                                                                    cols_.data(), long(owned.cols.size()), row_of_.data(),
                                                                    col_of_.data(), p.k, a_.data(), lld_);
      COPA_GPU_CHECK_LAUNCH("owned_pairs_kernel");
    }
    if (entries > 0) {
      scale_kernel<<<copa::gpu::blocks_for(entries, 256), 256>>>(a_.data(), long(entries), 0.5);
      COPA_GPU_CHECK_LAUNCH("scale_kernel");
    }
    copa::gpu::synchronize();
  }

  std::vector<complex> solve(const std::vector<complex>& rhs, copa::RegionTimer& timer) override {
    if (lines_) return solve_2d(rhs, timer);
    copa::gpu::copy_to_device(y_.data(), rhs.data(), std::size_t(n_) * sizeof(Cplx));
    copa::gpu::synchronize();
    DeviceOps ops{solver_, blas_, z(reinterpret_cast<complex*>(work_.data())), info_.data(), broadcast_.get()};
    complex* a = reinterpret_cast<complex*>(a_.data());
    complex* y = reinterpret_cast<complex*>(y_.data());
    {
      copa::Region r(timer, "lu");
      char* const panels[2] = {panels_[0].data(), panels_[1].data()};
      pliris_factor_forward(layout_, ops, a, y, panels, lookahead_, times_);
    }
    std::vector<complex> x(n_);
    copa::Region r(timer, "solve");
    pliris_back_substitute(layout_, ops, a, y);
    if (copa::mpi::is_root()) copa::gpu::copy_to_host(x.data(), y, std::size_t(n_) * sizeof(Cplx));
    host_bcast(x.data(), std::size_t(n_) * sizeof(complex), 0);
    return x;
  }

  std::vector<complex> local_entries(const std::vector<std::array<long, 2>>& at) override {
    std::vector<complex> out(at.size());
    for (std::size_t e = 0; e < at.size(); ++e)
      copa::gpu::copy_to_host(&out[e], a_.data() + at[e][0] + at[e][1] * lld_, sizeof(Cplx));
    return out;
  }
  std::unique_ptr<copa::RegionTimer> make_timer(copa::Profile& profile) override {
    return std::make_unique<copa::HostTimer>(profile);  // the regions synchronise the device before they end
  }
  std::string lu_name() const override {
    return lines_ ? "Pliris-style PxQ LU on the GPU (host panels pivoted across process rows, cuBLAS ZTRSM/ZGEMM)"
                  : "Pliris-style 1xQ LU on the GPU (cuSOLVER zgetrf panels, cuBLAS ZTRSM/ZGEMM)";
  }
  nlohmann::json details() const override { return panel_details(lu_name(), transport_, lookahead_, times_); }
  // pliris_gpu_solve: a host block instead of the fill, and the panel figures of the solve
  void load(const complex* block) {
    copa::gpu::copy_to_device(a_.data(), block, std::size_t(lld_) * std::size_t(lc_) * sizeof(Cplx));
    copa::gpu::synchronize();
  }
  const PanelTimes& times() const { return times_; }

 private:
  BlockCyclic layout_;
  std::string transport_;
  bool lookahead_;
  long n_, nb_, lc_, lld_;
  cusolverDnHandle_t solver_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  copa::gpu::DeviceArray<Cplx> a_, y_, work_;
  copa::gpu::DeviceArray<char> panels_[2];
  copa::gpu::DeviceArray<int> info_, row_of_, col_of_, rows_, cols_;
  copa::gpu::DeviceArray<Triangle> tris_;
  copa::gpu::DeviceArray<QuadTriangle> quad_;
  std::size_t panel_bytes_ = 0;
  std::unique_ptr<PanelBroadcast> broadcast_;
  PanelTimes times_;
  std::unique_ptr<GridLines> lines_;  // P > 1 only
  copa::gpu::DeviceArray<Cplx> ublock_;
  RowStaging row_staging_;

  // P > 1 (pliris_lu_2d.hpp): y_ holds this rank's rows of the right-hand side.
  std::vector<complex> solve_2d(const std::vector<complex>& rhs, copa::RegionTimer& timer) {
    std::vector<complex> mine(std::size_t(layout_.local_rows));
    for (long i = 0; i < layout_.local_rows; ++i) mine[std::size_t(i)] = rhs[std::size_t(layout_.global_row(i))];
    copa::gpu::copy_to_device(y_.data(), mine.data(), mine.size() * sizeof(Cplx));
    copa::gpu::synchronize();
    DeviceOps ops{solver_, blas_, z(reinterpret_cast<complex*>(work_.data())), info_.data(), broadcast_.get(), &row_staging_};
    complex* a = reinterpret_cast<complex*>(a_.data());
    complex* y = reinterpret_cast<complex*>(y_.data());
    complex* ublock = reinterpret_cast<complex*>(ublock_.data());
    {
      copa::Region r(timer, "lu");
      char* const panels[2] = {panels_[0].data(), panels_[1].data()};
      pliris_factor_forward_2d(layout_, *lines_, ops, a, y, panels, ublock, lookahead_, times_);
    }
    copa::Region r(timer, "solve");
    return pliris_back_substitute_2d(layout_, *lines_, ops, a, y, ublock);
  }
};

}  // namespace

bool gpu_dist_built() { return true; }

std::unique_ptr<DistEngine> make_gpu_dist_engine(const BlockCyclic& layout, const std::string& transport, bool lookahead) {
  return std::make_unique<GpuDistEngine>(layout, transport, lookahead);
}

std::vector<complex> pliris_gpu_solve(const BlockCyclic& layout, const complex* block, const std::vector<complex>& rhs,
                                      const std::string& transport, bool lookahead, PanelTimes& times, copa::RegionTimer& timer) {
  copa::select_device(-1);
  gpu_dist_require_memory(layout, "the Pliris-style LU of pliris_gpu_solve");
  GpuDistEngine engine(layout, transport, lookahead);
  engine.load(block);
  std::vector<complex> x = engine.solve(rhs, timer);
  times = engine.times();
  return x;
}

// The matrix block, the two panel buffers (N x nb each) and the ipc transport's two exposed
// buffers (counted whatever the transport), the right-hand side, an allowance for the
// triangle data and maps (about 300 B per unknown) and cuSOLVER's panel workspace (64 MiB), and
// for P > 1 the received U12 block (nb x (local_cols + 1)) and the interchanges' device scratch
// (a panel's w interchanges move at most 2w rows of local_cols + 1 numbers: twice the U12 block).
double gpu_dist_device_bytes(const BlockCyclic& layout) {
  const double n = double(layout.n), nb = double(layout.nb);
  const double ublock = layout.grid.p > 1 ? 3 * 16.0 * double(pliris_2d_ublock_elements(layout)) : 0.0;
  return 16.0 * double(layout.lld()) * double(layout.local_cols) + 4 * 16.0 * n * nb + 16.0 * n + 300.0 * n + 64.0 * 1024 * 1024 +
         ublock;
}

void gpu_dist_require_memory(const BlockCyclic& layout, const std::string& what) {
  copa::gpu::require_device_memory(std::size_t(gpu_dist_device_bytes(layout)), what);
}

}  // namespace efie::dist
