// OpenMP fill written for CPUs. Threads take test triangles; for one test triangle the far blocks
// against all source triangles come from one `omp simd` loop whose lanes are source triangles:
// the source data are stored field by field (SoA: 36 arrays of N_T doubles: centroid, the 7 source
// points and the 3 vertices relative to it, the RWG factors), the arithmetic is far_block_local's
// (efie_pair.hpp: centroid-local moments, one 1/sqrt and one sincos per point pair) and the sincos
// is cpu_sincos (plain arithmetic, so the loop vectorises without -ffast-math). The 9 entries per
// source go to 18 thread-private arrays; the near pairs of the test triangle (its near-list row)
// then overwrite theirs with the singular formula; the 3 rows are accumulated (thread-private,
// contiguous) and added under a per-unknown lock. The rows go to columns of the column-major array
// (P^T is stored; A = (P + P^T)/2 is the same). LU: LAPACK (OpenBLAS threads).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory_resource>

#include "copa/errors.hpp"
#include "copa/memory.hpp"
#include "cpu_sincos.hpp"
#include "host_engine.hpp"
#include "kernels.hpp"
#include "dielectric.hpp"
#include "mfie_pair.hpp"

namespace efie {
namespace {

// Field offsets of the source SoA (each field an array of N_T doubles).
constexpr int f_centroid = 0, f_src = 3, f_vert = f_src + 3 * source_points, f_coef = f_vert + 9, f_count = f_coef + 3;

// Far blocks of test triangle t against sources [0, nt): lane s writes out[e * nt + s], e = 3 i + j.
void far_row(const QuadTriangle& t, const double* __restrict__ soa, long nt, double k, double* __restrict__ out_re,
             double* __restrict__ out_im) {
  const double k2q = 0.25 * k * k, scale = inv_four_pi / test_points;
#pragma omp simd
  for (long s = 0; s < nt; ++s) {
    auto f = [&](int field) { return soa[field * nt + s]; };
    const double d0 = t.c[0] - f(f_centroid), d1 = t.c[1] - f(f_centroid + 1), d2 = t.c[2] - f(f_centroid + 2);
    double s0r = 0, s0i = 0, ur = 0, ui = 0, s1r[3] = {0, 0, 0}, s1i[3] = {0, 0, 0}, t0r[3] = {0, 0, 0}, t0i[3] = {0, 0, 0};
    _Pragma("GCC unroll 8")
    for (int p = 0; p < test_points; ++p) {
      const double e0 = d0 + t.test[p][0], e1 = d1 + t.test[p][1], e2 = d2 + t.test[p][2];
      double g0r = 0, g0i = 0, g1r[3] = {0, 0, 0}, g1i[3] = {0, 0, 0};
      _Pragma("GCC unroll 8")
      for (int q = 0; q < source_points; ++q) {
        const double q0 = f(f_src + 3 * q), q1 = f(f_src + 3 * q + 1), q2 = f(f_src + 3 * q + 2);
        const double x0 = e0 - q0, x1 = e1 - q1, x2 = e2 - q2;
        const double r2 = x0 * x0 + x1 * x1 + x2 * x2;
        const double inv_r = 1.0 / std::sqrt(r2);
        double sn, cs;
        cpu_sincos(k * (r2 * inv_r), sn, cs);
        const double w = source_weight(q) * inv_r, gr = cs * w, gi = -sn * w;
        g0r += gr, g0i += gi;
        g1r[0] += q0 * gr, g1i[0] += q0 * gi;
        g1r[1] += q1 * gr, g1i[1] += q1 * gi;
        g1r[2] += q2 * gr, g1i[2] += q2 * gi;
      }
      s0r += g0r, s0i += g0i;
      _Pragma("GCC unroll 8")
      for (int c = 0; c < 3; ++c) {
        s1r[c] += g1r[c], s1i[c] += g1i[c];
        t0r[c] += t.test[p][c] * g0r, t0i[c] += t.test[p][c] * g0i;
        ur += t.test[p][c] * g1r[c], ui += t.test[p][c] * g1i[c];
      }
    }
    _Pragma("GCC unroll 8")
    for (int j = 0; j < 3; ++j) {
      const double vj0 = f(f_vert + 3 * j), vj1 = f(f_vert + 3 * j + 1), vj2 = f(f_vert + 3 * j + 2);
      const double vtr = vj0 * t0r[0] + vj1 * t0r[1] + vj2 * t0r[2], vti = vj0 * t0i[0] + vj1 * t0i[1] + vj2 * t0i[2];
      const double cj = scale * f(f_coef + j);
      _Pragma("GCC unroll 8")
      for (int i = 0; i < 3; ++i) {
        const double vsr = t.vert[i][0] * s1r[0] + t.vert[i][1] * s1r[1] + t.vert[i][2] * s1r[2];
        const double vsi = t.vert[i][0] * s1i[0] + t.vert[i][1] * s1i[1] + t.vert[i][2] * s1i[2];
        const double vv = t.vert[i][0] * vj0 + t.vert[i][1] * vj1 + t.vert[i][2] * vj2;
        const double c = cj * t.coef[i];
        out_re[(3 * i + j) * nt + s] = c * (k2q * (ur - vtr - vsr + vv * s0r) - s0r);
        out_im[(3 * i + j) * nt + s] = c * (k2q * (ui - vti - vsi + vv * s0i) - s0i);
      }
    }
  }
}

class OpenmpEngine final : public HostMatrixEngine {
 public:
  explicit OpenmpEngine(long n) : HostMatrixEngine(n, false), locks_(n) {
    for (auto& l : locks_) omp_init_lock(&l);
  }
  ~OpenmpEngine() override {
    for (auto& l : locks_) omp_destroy_lock(&l);
  }

  // Set-up (untimed): the centroid-local quadrature data, per triangle and as the source SoA.
  void upload(const Problem& p) override {
    p_ = &p;
    const long nt = long(p.triangles.size());
    quad_.resize(nt);
    soa_.assign(std::size_t(f_count) * nt, 0.0);
    double extent = 0;
    for (long t = 0; t < nt; ++t) {
      const QuadTriangle& q = quad_[t] = make_quad_triangle(p.triangles[t]);
      for (int c = 0; c < 3; ++c) {
        soa_[(f_centroid + c) * nt + t] = q.c[c];
        for (int j = 0; j < 3; ++j) soa_[(f_vert + 3 * j + c) * nt + t] = q.vert[j][c];
        for (int r = 0; r < source_points; ++r) soa_[(f_src + 3 * r + c) * nt + t] = q.src[r][c];
        soa_[(f_coef + c) * nt + t] = q.coef[c];
        extent = std::max(extent, std::abs(q.c[c]) + p.triangles[t].diameter);
      }
    }
    // cpu_sincos is accurate below its limit; kR <= k * 2 sqrt(3) * extent.
    if (p.k * 4 * extent >= cpu_sincos_limit)
      throw copa::InputError("the OpenMP fill supports k R < " + std::to_string(cpu_sincos_limit) + " (the mesh is too large electrically)");
  }

  void fill(copa::RegionTimer& timer) override {
    if (form_.dielectric()) {
      copa::Region r(timer, "fill.dielectric");
      fill_dielectric();
      return;
    }
    if (form_.alpha > 0) fill_efie(timer);
    if (form_.alpha < 1) {
      copa::Region r(timer, "fill.mfie");
      add_mfie();
    }
  }

 private:
  // C = alpha C - j k (1 - alpha) M with the plain pair formula (mfie_pair.hpp; not vectorised).
  // Deterministic without locks: in phase 0 each test triangle adds the rows of the unknowns it is
  // T+ of, in phase 1 those it is T- of, so within a phase every row has one writer, and its
  // entries receive their source-triangle terms in a fixed order. A pair whose triangle holds
  // T+ and T- rows is evaluated in both phases (at most 2x the MFIE pair work).
  void add_mfie() {
    const auto& tris = p_->triangles;
    const long nt = long(tris.size()), n = n_;
    const double k = p_->k;
    const complex w(0, -k * (1 - form_.alpha));
    complex* a = a_.data();
#pragma omp parallel for schedule(static)
    for (long c = 0; c < n; ++c)
      for (long r = 0; r < n; ++r) a[r + c * n] = form_.alpha == 0 ? complex(0) : form_.alpha * a[r + c * n];
    for (int phase = 0; phase < 2; ++phase) {
#pragma omp parallel
      {
        std::vector<char> near(nt, 0);
#pragma omp for schedule(dynamic, 4)
        for (long t = 0; t < nt; ++t) {
          const Triangle& tt = tris[t];
          bool mine[3], any = false;
          for (int i = 0; i < 3; ++i) {
            const int m = tt.basis[i];
            mine[i] = m >= 0 && p_->rwg[m].tri[phase] == int(t);
            any = any || mine[i];
          }
          if (!any) continue;
          for (int e = p_->near_offsets[t]; e < p_->near_offsets[t + 1]; ++e) near[p_->near_pairs[e][1]] = 1;
          for (long s = 0; s < nt; ++s) {
            Cplx b[3][3];
            if (near[s])
              mfie_pair_block<true>(tt, tris[s], s == t, k, b);
            else
              mfie_pair_block<false>(tt, tris[s], false, k, b);
            for (int i = 0; i < 3; ++i) {
              if (!mine[i]) continue;
              for (int j = 0; j < 3; ++j)
                if (tris[s].basis[j] >= 0) a[std::size_t(tt.basis[i]) + std::size_t(tris[s].basis[j]) * n] += w * complex(b[i][j].re, b[i][j].im);
            }
          }
          for (int e = p_->near_offsets[t]; e < p_->near_offsets[t + 1]; ++e) near[p_->near_pairs[e][1]] = 0;
        }
      }
    }
  }

  // PMCHWT / Mueller (dielectric.hpp) by the serial oracle's per-triangle rows, in the two phases
  // of add_mfie (rows of the unknowns a triangle is T+ of, then T- of): one writer per row and
  // phase, deterministic. The engine's matrix is 2N x 2N (n_ = 2N).
  void fill_dielectric() {
    const long nt = long(p_->triangles.size());
    const Dielectric body{form_.eps_r, form_.mu_r};
    const bool muller = form_.name == "muller";
    complex* a = a_.data();
#pragma omp parallel for schedule(static)
    for (long c = 0; c < n_; ++c)
      for (long r = 0; r < n_; ++r) a[r + c * n_] = 0;
    for (int phase = 0; phase < 2; ++phase) {
#pragma omp parallel for schedule(dynamic, 4)
      for (long t = 0; t < nt; ++t) {
        bool mine[3], any = false;
        for (int i = 0; i < 3; ++i) {
          const int m = p_->triangles[t].basis[i];
          mine[i] = m >= 0 && p_->rwg[m].tri[phase] == int(t);
          any = any || mine[i];
        }
        if (any) dielectric_rows(*p_, body, muller, t, mine, a);
      }
    }
  }

  void fill_efie(copa::RegionTimer& timer) {
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
        std::vector<double> out_re(9 * std::size_t(nt)), out_im(9 * std::size_t(nt));
#pragma omp for schedule(dynamic, 4)
        for (long t = 0; t < nt; ++t) {
          const Triangle& tt = tris[t];
          far_row(quad_[t], soa_.data(), nt, k, out_re.data(), out_im.data());
          for (int e = p_->near_offsets[t]; e < p_->near_offsets[t + 1]; ++e) {
            const int s = p_->near_pairs[e][1];
            Cplx b[3][3];
            pair_block<true>(tt, tris[s], k, b);
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j) out_re[(3 * i + j) * nt + s] = b[i][j].re, out_im[(3 * i + j) * nt + s] = b[i][j].im;
          }
          std::fill(rows.begin(), rows.end(), complex(0));
          for (long s = 0; s < nt; ++s)
            for (int j = 0; j < 3; ++j) {
              const int col = tris[s].basis[j];
              if (col < 0) continue;
              for (int i = 0; i < 3; ++i) rows[i * std::size_t(n) + col] += complex(out_re[(3 * i + j) * nt + s], out_im[(3 * i + j) * nt + s]);
            }
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

  const Problem* p_ = nullptr;
  std::vector<omp_lock_t> locks_;
  std::vector<QuadTriangle> quad_;
  std::vector<double> soa_;  // source fields, f_count x N_T
};

}  // namespace

std::unique_ptr<Engine> make_openmp_engine(long n) { return std::make_unique<OpenmpEngine>(n); }

}  // namespace efie
