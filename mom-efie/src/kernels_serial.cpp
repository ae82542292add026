// The serial oracle: every (test, source) triangle pair in turn, near pairs (from the near list)
// by singularity extraction and the rest by the 7-point rule, each 3x3 block added to P; then
// A = (P + P^T) / 2. The MFIE part of the MFIE and CFIE (mfie_pair.hpp) in the same order.
// Plain loops, written to be read.
#include <dlfcn.h>

#include <limits>
#include <memory_resource>

#include <lapacke.h>

#include "copa/errors.hpp"
#include "copa/memory.hpp"
#include "host_engine.hpp"
#include "kernels.hpp"
#include "dielectric.hpp"
#include "mfie_pair.hpp"

namespace efie {

namespace {
using set_threads_fn = void (*)(int);
using get_threads_fn = int (*)();
int blas_last_set = 0;
}  // namespace

BlasThreads::BlasThreads(int threads) {
  if (threads <= 0) return;
  auto set = reinterpret_cast<set_threads_fn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  auto get = reinterpret_cast<get_threads_fn>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  if (!set || !get) return;
  restore_ = get();
  set(threads);
  blas_last_set = threads;
}

BlasThreads::~BlasThreads() {
  if (restore_ <= 0) return;
  reinterpret_cast<set_threads_fn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))(restore_);
}

int BlasThreads::last_set() { return blas_last_set; }

void host_lu_factor(complex* a, long n, std::vector<int>& pivots) {
  pivots.resize(n);
  const int info = LAPACKE_zgetrf(LAPACK_COL_MAJOR, int(n), int(n), reinterpret_cast<lapack_complex_double*>(a), int(n),
                                  pivots.data());
  if (info != 0) throw copa::RuntimeError("zgetrf failed (info " + std::to_string(info) + "): singular EFIE matrix");
}

void host_lu_solve(const complex* a, long n, const std::vector<int>& pivots, std::vector<complex>& b) {
  const int info = LAPACKE_zgetrs(LAPACK_COL_MAJOR, 'N', int(n), 1, reinterpret_cast<const lapack_complex_double*>(a),
                                  int(n), pivots.data(), reinterpret_cast<lapack_complex_double*>(b.data()), int(n));
  if (info != 0) throw copa::RuntimeError("zgetrs failed (info " + std::to_string(info) + ")");
}

double host_norm1(const complex* a, long n) {
  return LAPACKE_zlange(LAPACK_COL_MAJOR, '1', int(n), int(n), reinterpret_cast<const lapack_complex_double*>(a), int(n));
}

double host_condition_estimate(const complex* lu, long n, double norm1) {
  double rcond = 0;
  const int info = LAPACKE_zgecon(LAPACK_COL_MAJOR, '1', int(n), reinterpret_cast<const lapack_complex_double*>(lu), int(n), norm1, &rcond);
  if (info != 0) throw copa::RuntimeError("zgecon failed (info " + std::to_string(info) + ")");
  return rcond > 0 ? 1.0 / rcond : std::numeric_limits<double>::infinity();
}

void add_mfie_serial(const Problem& p, const Formulation& f, complex* a, long n) {
  const auto& tris = p.triangles;
  const long nt = long(tris.size());
  const complex w(0, -p.k * (1 - f.alpha));
  for (long e = 0; e < n * n; ++e) a[e] = f.alpha == 0 ? complex(0) : f.alpha * a[e];
  std::vector<char> near(nt, 0);
  for (long t = 0; t < nt; ++t) {
    for (int e = p.near_offsets[t]; e < p.near_offsets[t + 1]; ++e) near[p.near_pairs[e][1]] = 1;
    for (long s = 0; s < nt; ++s) {
      Cplx b[3][3];
      if (near[s])
        mfie_pair_block<true>(tris[t], tris[s], s == t, p.k, b);
      else
        mfie_pair_block<false>(tris[t], tris[s], false, p.k, b);
      for (int i = 0; i < 3; ++i) {
        if (tris[t].basis[i] < 0) continue;
        for (int j = 0; j < 3; ++j)
          if (tris[s].basis[j] >= 0) a[std::size_t(tris[t].basis[i]) + std::size_t(tris[s].basis[j]) * n] += w * complex(b[i][j].re, b[i][j].im);
      }
    }
    for (int e = p.near_offsets[t]; e < p.near_offsets[t + 1]; ++e) near[p.near_pairs[e][1]] = 0;
  }
}

void symmetrise_host(complex* a, long n) {
#pragma omp parallel for schedule(dynamic, 16)
  for (long c = 0; c < n; ++c)
    for (long r = c + 1; r < n; ++r) {
      const complex v = 0.5 * (a[r + c * n] + a[c + r * n]);
      a[r + c * n] = v;
      a[c + r * n] = v;
    }
}

namespace {

class SerialEngine final : public HostMatrixEngine {
 public:
  explicit SerialEngine(long n) : HostMatrixEngine(n, true) {}

  void upload(const Problem& p) override { p_ = &p; }

  void fill(copa::RegionTimer& timer) override {
    if (form_.dielectric()) {
      copa::Region r(timer, "fill.dielectric");
      dielectric_fill(*p_, {form_.eps_r, form_.mu_r}, form_.name == "muller", a_.data());
      return;
    }
    if (form_.alpha > 0) fill_efie(timer);
    if (form_.alpha < 1) {
      copa::Region r(timer, "fill.mfie");
      add_mfie_serial(*p_, form_, a_.data(), n_);
    }
  }

 private:
  void fill_efie(copa::RegionTimer& timer) {
    const auto& tris = p_->triangles;
    const long nt = long(tris.size());
    {
      copa::Region r(timer, "fill.pairs");
      std::fill(a_.begin(), a_.end(), complex(0));
      std::vector<char> near(nt, 0);
      for (long t = 0; t < nt; ++t) {
        for (int e = p_->near_offsets[t]; e < p_->near_offsets[t + 1]; ++e) near[p_->near_pairs[e][1]] = 1;
        for (long s = 0; s < nt; ++s) {
          Cplx b[3][3];
          if (near[s])
            pair_block<true>(tris[t], tris[s], p_->k, b);
          else
            pair_block<false>(tris[t], tris[s], p_->k, b);
          add_block(tris[t], tris[s], b);
        }
        for (int e = p_->near_offsets[t]; e < p_->near_offsets[t + 1]; ++e) near[p_->near_pairs[e][1]] = 0;
      }
    }
    copa::Region r(timer, "fill.symmetrise");
    symmetrise_serial();
  }

  void add_block(const Triangle& t, const Triangle& s, const Cplx b[3][3]) {
    for (int i = 0; i < 3; ++i) {
      if (t.basis[i] < 0) continue;
      for (int j = 0; j < 3; ++j) {
        if (s.basis[j] < 0) continue;
        a_[std::size_t(t.basis[i]) + std::size_t(s.basis[j]) * n_] += complex(b[i][j].re, b[i][j].im);
      }
    }
  }
  void symmetrise_serial() {
    for (long c = 0; c < n_; ++c)
      for (long r = c + 1; r < n_; ++r) {
        const complex v = 0.5 * (a_[r + c * n_] + a_[c + r * n_]);
        a_[r + c * n_] = v;
        a_[c + r * n_] = v;
      }
  }

  const Problem* p_ = nullptr;
};

}  // namespace

std::unique_ptr<Engine> make_serial_engine(long n) { return std::make_unique<SerialEngine>(n); }

}  // namespace efie
