// The EFIE fill and solve on the CPU: reciprocity, OpenMP against the serial oracle, the entry
// formula against the oracle, RCS against Mie at ka = 1 and 2 with refinement.
#include <cmath>
#include <iostream>

#include "copa/testing.hpp"
#include "kernels.hpp"
#include "variants.hpp"
#include "reference.hpp"
#include "verify.hpp"
#include "fixtures.hpp"

using namespace efie;
using efie_test::rel_frobenius;
using efie_test::sphere;

namespace {

std::vector<complex> fill(copa::Backend b, const Problem& p) { return efie_test::fill_matrix(b, p); }

double rcs_error(const Problem& p) {
  auto e = make_engine(copa::Backend::openmp, default_selection(copa::Backend::openmp), p.unknowns(), p.triangle_count());
  e->upload(p);
  copa::Profile prof;
  copa::HostTimer t(prof);
  e->fill(t);
  e->factor(t);
  auto x = plane_wave_rhs(p);
  e->solve(x, t);
  return rms_db_error(bistatic_rcs(p, x), p.k * p.radius);
}


// The raw Galerkin matrix P (before A = (P + P^T)/2) with the given test rule: near pairs by
// singularity extraction, far pairs by quadrature; the production pair functions.
template <class TestRule>
std::vector<complex> raw_galerkin(const Problem& p) {
  const long n = p.unknowns(), nt = p.triangle_count();
  std::vector<complex> a(std::size_t(n) * n, 0.0);
  std::vector<char> near(nt, 0);
  for (long t = 0; t < nt; ++t) {
    for (int e = p.near_offsets[t]; e < p.near_offsets[t + 1]; ++e) near[p.near_pairs[e][1]] = 1;
    for (long s = 0; s < nt; ++s) {
      const Triangle &tt = p.triangles[t], &ss = p.triangles[s];
      Cplx b[3][3];
      if (near[s])
        pair_block<true, TestRule>(tt, ss, p.k, b);
      else
        pair_block<false, TestRule>(tt, ss, p.k, b);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          if (tt.basis[i] >= 0 && ss.basis[j] >= 0) a[tt.basis[i] + std::size_t(ss.basis[j]) * n] += complex(b[i][j].re, b[i][j].im);
    }
    for (int e = p.near_offsets[t]; e < p.near_offsets[t + 1]; ++e) near[p.near_pairs[e][1]] = 0;
  }
  return a;
}

// ||P - P^T||_F / ||P||_F
double rel_asymmetry(const std::vector<complex>& a, long n) {
  double d = 0, s = 0;
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) {
      d += std::norm(a[i + j * n] - a[j + i * n]);
      s += std::norm(a[i + j * n]);
    }
  return std::sqrt(d / s);
}

}  // namespace

// Reciprocity. With the same rule on both triangles the far-pair integral is symmetric under
// (test, source) exchange, so every far block must equal its mirror to round-off: this checks the
// kernel, the RWG factors and the geometry. Near pairs integrate the singular part analytically
// over the source triangle and by the rule over the test triangle, which is not symmetric: their
// asymmetry is the outer rule's quadrature error, and the 3 x 7 rule of the fill adds the
// mismatch of the two rules on far pairs. Both must be small and fall when the rule (7 x 7) or
// the mesh is refined. The filled A is (P + P^T)/2 of the 3 x 7 P (the symmetric rule).
TEST(Efie, reciprocity) {
  const Problem p = sphere(1.5, 3);
  const long nt = p.triangle_count(), n = p.unknowns();
  double far_asym = 0, far_max = 0;
  for (long t = 0; t < nt; ++t)
    for (long s = 0; s < nt; ++s) {
      const Triangle &tt = p.triangles[t], &ss = p.triangles[s];
      if (is_near(tt, ss)) continue;
      Cplx ts[3][3], st[3][3];
      pair_block<false, TestRule7>(tt, ss, p.k, ts);
      pair_block<false, TestRule7>(ss, tt, p.k, st);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          far_asym = std::max(far_asym, std::hypot(ts[i][j].re - st[j][i].re, ts[i][j].im - st[j][i].im));
          far_max = std::max(far_max, std::hypot(ts[i][j].re, ts[i][j].im));
        }
    }
  std::cout << "  far pairs, 7 x 7 rule: max |B(t,s) - B(s,t)^T| / max |B| = " << far_asym / far_max << "\n";
  EXPECT_TRUE(far_max > 0);
  EXPECT_TRUE(far_asym <= 1e-14 * far_max);

  const double a37 = rel_asymmetry(raw_galerkin<TestRule3>(p), n), a77 = rel_asymmetry(raw_galerkin<TestRule7>(p), n);
  const Problem fine = sphere(1.5, 6);
  const double a37_fine = rel_asymmetry(raw_galerkin<TestRule3>(fine), fine.unknowns());
  std::cout << "  raw P relative asymmetry ||P - P^T|| / ||P||: 3 x 7 rule " << a37 << ", 7 x 7 rule " << a77
            << "; 3 x 7 on the refined mesh (f = 6) " << a37_fine << "\n";
  EXPECT_TRUE(a37 > 0 && a37 <= 1e-2);
  EXPECT_TRUE(a77 < a37);
  EXPECT_TRUE(a37_fine < a37);

  const auto p37 = raw_galerkin<TestRule3>(p);
  const auto a = fill(copa::Backend::serial, p);
  double d = 0, mx = 0;
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) {
      d = std::max(d, std::abs(a[i + j * n] - 0.5 * (p37[i + j * n] + p37[j + i * n])));
      mx = std::max(mx, std::abs(a[i + j * n]));
    }
  EXPECT_TRUE(d <= 1e-14 * mx);
}

namespace {

TEST(Efie, openmp_matches_serial) {
  for (const Problem& p : {sphere(2.0, 3), make_problem(make_plate(1.0, 5), 2.0, 1.0, PlaneWave{})}) {
    const double err = rel_frobenius(fill(copa::Backend::openmp, p), fill(copa::Backend::serial, p));
    std::cout << "  openmp vs serial: relative Frobenius " << err << "\n";
    EXPECT_TRUE(err <= 1e-12);
  }
}

TEST(Efie, entry_oracle) {
  const Problem p = sphere(2.0, 2);
  const auto a = fill(copa::Backend::serial, p);
  const long n = p.unknowns();
  double d = 0, mx = 0;
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) {
      d = std::max(d, std::abs(a[i + j * n] - reference_entry(p, i, j)));
      mx = std::max(mx, std::abs(a[i + j * n]));
    }
  EXPECT_TRUE(d <= 1e-13 * mx);
}

// Elements per wavelength of a geodesic sphere: wavelength / mean edge.
double epw(double ka, int frequency) { return 2 * M_PI / ka / check_mesh(make_sphere(1.0, frequency)).mean_edge; }

// ka = 1: 10 per wavelength is only 80 flat triangles (f = 2, RMS 0.86 dB from the faceting: the
// inscribed polyhedron is smaller than the sphere); f = 3 is 16 per wavelength.
void rcs_refinement(double ka, int coarse_f, int fine_f) {
  const double coarse = rcs_error(sphere(ka, coarse_f)), fine = rcs_error(sphere(ka, fine_f));
  std::cout << "  ka = " << ka << ": RMS dB error " << coarse << " (f=" << coarse_f << ", " << epw(ka, coarse_f)
            << " per wavelength), " << fine << " (f=" << fine_f << ", " << epw(ka, fine_f) << " per wavelength)\n";
  EXPECT_TRUE(epw(ka, coarse_f) >= 10);
  EXPECT_TRUE(coarse <= 0.5);
  EXPECT_TRUE(fine <= 0.5);
  EXPECT_TRUE(fine < coarse);
}

}  // namespace

TEST(Efie, rcs_ka1) { rcs_refinement(1.0, 3, 6); }

TEST(Efie, rcs_ka2_refinement) { rcs_refinement(2.0, 4, 8); }

TEST(Efie, plate_and_cube) {
  for (const Problem& p : {make_problem(make_cube(1.0, 3), 2.0, 0.5, PlaneWave{}),
                           make_problem(make_plate(1.0, 6), 2.0, 0.5, PlaneWave{{0, 0, -1}, {1, 0, 0}})}) {
    auto e = make_engine(copa::Backend::serial, default_selection(copa::Backend::serial), p.unknowns(), p.triangle_count());
    e->upload(p);
    copa::Profile prof;
    copa::HostTimer t(prof);
    e->fill(t);
    EXPECT_TRUE(sampled_entry_error(p, *e, 32) <= 1e-13);
    e->factor(t);
    auto x = plane_wave_rhs(p);
    e->solve(x, t);
    const auto cuts = bistatic_rcs(p, x);
    for (double s : cuts.e_plane) EXPECT_TRUE(std::isfinite(s) && s > 0);
  }
}

// Determinism: the same problem filled, factored and solved twice gives bit-identical matrices,
// currents and RCS on the serial and the OpenMP engines. The OpenMP fill is deterministic although
// threads add rows under locks in any order: every unknown's row receives exactly two additions
// (its T+ and T- test triangles) onto zero, and 0 + a + b = 0 + b + a exactly in IEEE arithmetic.
TEST(Efie, determinism) {
  const Problem p = sphere(2.0, 4);
  for (copa::Backend b : {copa::Backend::serial, copa::Backend::openmp}) {
    std::vector<complex> matrix[2], current[2];
    RcsCuts cuts[2];
    for (int run = 0; run < 2; ++run) {
      auto e = make_engine(b, default_selection(b), p.unknowns(), p.triangle_count());
      e->upload(p);
      copa::Profile prof;
      copa::HostTimer t(prof);
      e->fill(t);
      matrix[run] = e->matrix();
      e->factor(t);
      current[run] = plane_wave_rhs(p);
      e->solve(current[run], t);
      cuts[run] = bistatic_rcs(p, current[run]);
    }
    std::cout << "  " << copa::to_string(b) << ": matrix, current and RCS of two runs compared bit for bit\n";
    EXPECT_TRUE(matrix[0] == matrix[1]);
    EXPECT_TRUE(current[0] == current[1]);
    EXPECT_TRUE(cuts[0].e_plane == cuts[1].e_plane && cuts[0].h_plane == cuts[1].h_plane);
  }
}
