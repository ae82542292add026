// OpenMP fill for CPUs: threads take test triangles; each accumulates the 3 rows of its triangle
// (3 x N, thread-private, contiguous) over all source triangles, choosing the near formula from the
// triangle's near-list row, and then adds them under a per-unknown lock. The rows go to columns
// of the column-major array (P^T is stored; A = (P + P^T)/2 is the same). LU: LAPACK (OpenBLAS threads).
#include <omp.h>

#include <memory_resource>

#include "copa/memory.hpp"
#include "kernels.hpp"

namespace efie {
namespace {

class OpenmpEngine final : public Engine {
 public:
  explicit OpenmpEngine(long n) : n_(n), a_(std::size_t(n) * n, &copa::host_pool()), locks_(n) {
    for (auto& l : locks_) omp_init_lock(&l);
  }
  ~OpenmpEngine() override {
    for (auto& l : locks_) omp_destroy_lock(&l);
  }

  void upload(const Problem& p) override { p_ = &p; }

  void fill(copa::RegionTimer& timer) override {
    const auto& tris = p_->triangles;
    const long nt = long(tris.size()), n = n_;
    const double k = p_->k;
    {
      copa::Region r(timer, "fill.pairs");
      complex* a = a_.data();
#pragma omp parallel
      {
#pragma omp for schedule(static)
        for (long c = 0; c < n; ++c)
          for (long r2 = 0; r2 < n; ++r2) a[r2 + c * n] = 0;
        std::vector<complex> rows(3 * std::size_t(n));
        std::vector<char> near(nt, 0);
#pragma omp for schedule(dynamic, 4)
        for (long t = 0; t < nt; ++t) {
          const Triangle& tt = tris[t];
          std::fill(rows.begin(), rows.end(), complex(0));
          for (int e = p_->near_offsets[t]; e < p_->near_offsets[t + 1]; ++e) near[p_->near_pairs[e][1]] = 1;
          for (long s = 0; s < nt; ++s) {
            const Triangle& ss = tris[s];
            Cplx b[3][3];
            if (near[s])
              pair_block<true>(tt, ss, k, b);
            else
              pair_block<false>(tt, ss, k, b);
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j)
                if (ss.basis[j] >= 0) rows[i * std::size_t(n) + ss.basis[j]] += complex(b[i][j].re, b[i][j].im);
          }
          for (int e = p_->near_offsets[t]; e < p_->near_offsets[t + 1]; ++e) near[p_->near_pairs[e][1]] = 0;
          for (int i = 0; i < 3; ++i) {
            const int m = tt.basis[i];
            if (m < 0) continue;
            omp_set_lock(&locks_[m]);
            complex* col = a + std::size_t(m) * n;
            const complex* row = rows.data() + i * std::size_t(n);
            for (long c = 0; c < n; ++c) col[c] += row[c];
            omp_unset_lock(&locks_[m]);
          }
        }
      }
    }
    copa::Region r(timer, "fill.symmetrise");
    symmetrise_host(a_.data(), n_);
  }

  void factor(copa::RegionTimer& timer) override {
    copa::Region r(timer, "lu");
    host_lu_factor(a_.data(), n_, pivots_);
  }
  void solve(std::vector<complex>& b, copa::RegionTimer& timer) override {
    copa::Region r(timer, "solve");
    host_lu_solve(a_.data(), n_, pivots_, b);
  }
  std::vector<complex> matrix() override { return {a_.begin(), a_.end()}; }
  std::vector<complex> entries(const std::vector<std::array<long, 2>>& at) override {
    std::vector<complex> out;
    for (const auto& e : at) out.push_back(a_[std::size_t(e[0]) + std::size_t(e[1]) * n_]);
    return out;
  }

 private:
  long n_;
  const Problem* p_ = nullptr;
  std::pmr::vector<complex> a_;
  std::vector<omp_lock_t> locks_;
  std::vector<int> pivots_;
};

}  // namespace

std::unique_ptr<Engine> make_openmp_engine(long n) { return std::make_unique<OpenmpEngine>(n); }

}  // namespace efie
