// The CPU distributed engine: the owned-entry fill on the host; ScaLAPACK's LU (the reference) or
// the Pliris-style LU of pliris_lu.hpp on the host (the GPU engine's algorithm, checked here on CPU
// ranks).
#include <cblas.h>
#include <lapacke.h>

#include <cstring>
#include <memory_resource>
#include <vector>

#include "copa/errors.hpp"
#include "copa/memory.hpp"
#include "distributed/dist_engine.hpp"
#include "distributed/owned_fill.hpp"
#include "distributed/pliris_lu.hpp"
#include "distributed/pliris_lu_2d.hpp"
#include "distributed/scalapack_solve.hpp"

namespace efie::dist {
namespace {

// pliris_lu.hpp's kernels on host memory: LAPACKE and CBLAS (OpenBLAS). lines: the grid's rows
// for the panel broadcast when P > 1 (null: MPI_COMM_WORLD, the 1 x Q grid's only row).
struct HostOps {
  const GridLines* lines = nullptr;

  void getrf(long m, long w, complex* a, long lda, int* pivots, long panel) {
    const int info = LAPACKE_zgetrf(LAPACK_COL_MAJOR, int(m), int(w), reinterpret_cast<lapack_complex_double*>(a), int(lda), pivots);
    if (info != 0)
      throw copa::RuntimeError("zgetrf on panel " + std::to_string(panel) + " failed (info " + std::to_string(info) +
                               "): singular EFIE matrix");
  }
  void copy2d(complex* dst, long lddst, const complex* src, long ldsrc, long rows, long cols) {
    for (long c = 0; c < cols; ++c) std::memcpy(dst + c * lddst, src + c * ldsrc, std::size_t(rows) * sizeof(complex));
  }
  void swap_rows(complex* a, long lda, long ncols, long k0, const int* pivots, long w) {
    for (long c = 0; c < ncols; ++c)
      for (long i = 0; i < w; ++i) std::swap(a[k0 + i + c * lda], a[k0 + pivots[i] - 1 + c * lda]);
  }
  void trsm_lower_unit(long w, long ncols, const complex* l, long ldl, complex* b, long ldb) {
    const complex one(1, 0);
    cblas_ztrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, int(w), int(ncols), &one, l, int(ldl), b, int(ldb));
  }
  void trsm_upper(long w, long ncols, const complex* u, long ldu, complex* b, long ldb) {
    const complex one(1, 0);
    cblas_ztrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, int(w), int(ncols), &one, u, int(ldu), b, int(ldb));
  }
  // C -= A B
  void gemm_minus(long m, long ncols, long k, const complex* a, long lda, const complex* b, long ldb, complex* c, long ldc) {
    const complex one(1, 0), minus_one(-1, 0);
    cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(m), int(ncols), int(k), &minus_one, a, int(lda), b, int(ldb), &one, c,
                int(ldc));
  }
  void synchronize() {}
  void stage(void*, std::size_t, int) {}
  // root: the panel's process column (on a 1 x Q grid also its world rank)
  void broadcast(void* data, std::size_t bytes, int root, int) {
    if (lines)
      lines->row_bcast(data, bytes, root);
    else
      host_bcast(data, bytes, root);
  }
  void to_host_2d(complex* dst, long lddst, const complex* src, long ldsrc, long rows, long cols) { copy2d(dst, lddst, src, ldsrc, rows, cols); }
  void to_engine_2d(complex* dst, long lddst, const complex* src, long ldsrc, long rows, long cols) { copy2d(dst, lddst, src, ldsrc, rows, cols); }
  void to_engine(void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
  void to_host(void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
  // interchange_rows_2d's packing: a row is its ncols entries from first_col on, then its y entry.
  complex* row_scratch(std::size_t elements) {
    if (scratch.size() < elements) scratch.resize(elements);
    return scratch.data();
  }
  void gather_rows(const complex* a, long lld, long first_col, long ncols, const complex* y, const long* rows, long count, complex* out) {
    for (long j = 0; j < count; ++j, out += ncols + 1) {
      for (long c = 0; c < ncols; ++c) out[c] = a[rows[j] + (first_col + c) * lld];
      out[ncols] = y[rows[j]];
    }
  }
  void scatter_rows(complex* a, long lld, long first_col, long ncols, complex* y, const long* rows, const long* slots, long count,
                    const complex* in) {
    for (long j = 0; j < count; ++j) {
      const complex* row = in + slots[j] * (ncols + 1);
      for (long c = 0; c < ncols; ++c) a[rows[j] + (first_col + c) * lld] = row[c];
      y[rows[j]] = row[ncols];
    }
  }
  void* staging(int slot, std::size_t bytes) {
    if (stages.size() <= std::size_t(slot)) stages.resize(std::size_t(slot) + 1);
    if (stages[std::size_t(slot)].size() < bytes) stages[std::size_t(slot)].resize(bytes);
    return stages[std::size_t(slot)].data();
  }

  std::vector<complex> scratch;
  std::vector<std::vector<char>> stages;
};

class HostDistEngine final : public DistEngine {
 public:
  HostDistEngine(const BlockCyclic& layout, int threads, const std::string& lu, bool lookahead)
      : layout_(layout), threads_(threads), pliris_(lu == "pliris"), lookahead_(lookahead),
        a_(std::size_t(layout.lld()) * layout.local_cols, &copa::host_pool()) {
    if (!pliris_) solver_ = std::make_unique<ScalapackSolver>(layout);
  }

  void fill(const Problem& p, copa::RegionTimer& timer) override {
    copa::Region r(timer, "fill.owned");
    fill_owned_host(p, layout_, a_.data(), threads_);
  }
  std::vector<complex> solve(const std::vector<complex>& rhs, copa::RegionTimer& timer) override {
    if (pliris_) return pliris_host_solve(layout_, a_.data(), rhs, lookahead_, times_, timer);
    solver_->factor(a_.data(), timer);
    std::vector<complex> b = owned_vector(rhs, layout_);
    solver_->solve(a_.data(), b, timer);
    copa::Region r(timer, "gather");
    return gather_vector(b, layout_);
  }
  std::vector<complex> local_entries(const std::vector<std::array<long, 2>>& at) override {
    std::vector<complex> out;
    for (const auto& e : at) out.push_back(a_[std::size_t(e[0]) + std::size_t(e[1]) * layout_.lld()]);
    return out;
  }
  std::string lu_name() const override {
    if (!pliris_) return "ScaLAPACK pzgetrf/pzgetrs";
    return layout_.grid.p > 1 ? "Pliris-style PxQ LU on the host (panels pivoted across process rows, CBLAS ZTRSM/ZGEMM)"
                  : "Pliris-style 1xQ LU on the host (LAPACKE zgetrf panels, CBLAS ZTRSM/ZGEMM)";
  }
  nlohmann::json details() const override {
    return pliris_ ? panel_details(lu_name(), "host", lookahead_, times_) : nlohmann::json::object();
  }

 private:
  BlockCyclic layout_;
  int threads_;
  bool pliris_, lookahead_;
  std::unique_ptr<ScalapackSolver> solver_;
  std::pmr::vector<complex> a_;
  PanelTimes times_;
};

}  // namespace

std::vector<complex> pliris_host_solve(const BlockCyclic& layout, complex* block, const std::vector<complex>& rhs, bool lookahead,
                                       PanelTimes& times, copa::RegionTimer& timer) {
  std::vector<char> panels_memory[2];
  for (auto& p : panels_memory) p.resize(pliris_panel_bytes(layout));
  char* const panels[2] = {panels_memory[0].data(), panels_memory[1].data()};
  HostOps ops;
  if (layout.grid.p == 1) {
    std::vector<complex> y = rhs;
    {
      copa::Region r(timer, "lu");
      pliris_factor_forward(layout, ops, block, y.data(), panels, lookahead, times);
    }
    copa::Region r(timer, "solve");
    pliris_back_substitute(layout, ops, block, y.data());
    host_bcast(y.data(), y.size() * sizeof(complex), 0);
    return y;
  }
  // y: this rank's rows of the right-hand side
  const GridLines lines(layout.myrow, layout.mycol);
  ops.lines = &lines;
  std::vector<complex> y(std::size_t(std::max(layout.local_rows, 1L))), ublock(pliris_2d_ublock_elements(layout));
  for (long i = 0; i < layout.local_rows; ++i) y[std::size_t(i)] = rhs[std::size_t(layout.global_row(i))];
  {
    copa::Region r(timer, "lu");
    pliris_factor_forward_2d(layout, lines, ops, block, y.data(), panels, ublock.data(), lookahead, times);
  }
  copa::Region r(timer, "solve");
  return pliris_back_substitute_2d(layout, lines, ops, block, y.data(), ublock.data());
}

nlohmann::json panel_details(const std::string& lu, const std::string& transport, bool lookahead, const PanelTimes& t) {
  double total = 0, mx = 0;
  for (double s : t.broadcast_seconds) {
    total += s;
    mx = std::max(mx, s);
  }
  const double panels = double(t.broadcast_seconds.size());
  return {{"lu", lu},
          {"transport", transport},
          {"panels", t.broadcast_seconds.size()},
          {"panel_broadcast_seconds_total", total},
          {"panel_broadcast_seconds_mean", panels > 0 ? total / panels : 0.0},
          {"panel_broadcast_seconds_max", mx},
          {"panel_broadcast_bytes_total", t.bytes},
          {"lookahead", lookahead},
          {"pivot_seconds_total", t.pivot_seconds},
          {"interchange_seconds_total", t.interchange_seconds},
          {"ublock_broadcast_seconds_total", t.ublock_seconds},
          {"row_interchanges", t.interchanges},
          {"row_interchanges_across_process_rows", t.cross_row_interchanges},
          {"note", "rank 0's figures of the last repetition, host clock around each broadcast call (host transport: the "
                   "root waits for its staging copy, then MPI_Bcast; the H2D copy is queued behind the update; nccl and "
                   "cuda-aware: device synchronised before and after)"}};
}

std::unique_ptr<DistEngine> make_host_dist_engine(const BlockCyclic& layout, int threads, const std::string& lu, bool lookahead) {
  return std::make_unique<HostDistEngine>(layout, threads, lu, lookahead);
}

#if !defined(COPA_MOM_DIST_GPU)
bool gpu_dist_built() { return false; }
std::unique_ptr<DistEngine> make_gpu_dist_engine(const BlockCyclic&, const std::string&, bool) {
  throw copa::InputError("this build has no distributed GPU LU (it needs a CUDA + MPI build)");
}
std::vector<complex> pliris_gpu_solve(const BlockCyclic&, const complex*, const std::vector<complex>&, const std::string&, bool,
                                      PanelTimes&, copa::RegionTimer&) {
  throw copa::RuntimeError("pliris_gpu_solve: this build has no distributed GPU LU (it needs a CUDA + MPI build)");
}
double gpu_dist_device_bytes(const BlockCyclic&) { return 0; }
void gpu_dist_require_memory(const BlockCyclic&, const std::string&) {}
#endif

}  // namespace efie::dist
