// GPU variants against the serial oracle (relative Frobenius <= 1e-12) and the device LU against
// the host LU. Labelled gpu: run on the H200 only.
#include <cmath>
#include <iostream>

#include "copa/cli.hpp"
#include "copa/testing.hpp"
#include "kernels.hpp"
#include "variants.hpp"
#include "dielectric.hpp"
#include "reference.hpp"
#include "fixtures.hpp"

using namespace efie;

namespace {

using efie_test::gpu_backend;
using efie_test::rel_frobenius;

std::vector<complex> fill(copa::Backend b, const copa::Selection& variant, const Problem& p, const Formulation& f = {}) {
  return efie_test::fill_matrix(b, variant, p, f);
}

}  // namespace

TEST(Gpu, variants_match_serial) {
  copa::select_device(-1);
  // sizes not multiples of the 32-base tile, a sphere and an open plate
  for (const Problem& p : {make_problem(make_sphere(1.0, 5), 2.0, 1.0, PlaneWave{}),
                           make_problem(make_plate(1.0, 7), 2.0, 0.5, PlaneWave{})}) {
    const auto ref = fill(copa::Backend::serial, default_selection(copa::Backend::serial), p);
    for (const auto& v : engine_selections(gpu_backend())) {
      const double err = rel_frobenius(fill(gpu_backend(), v, p), ref);
      std::cout << "  " << v.label() << " (N = " << p.unknowns() << "): relative Frobenius vs serial " << err << "\n";
      EXPECT_TRUE(err <= 1e-12);
    }
  }
}

// Every device LU routine (--lu) against the host LU.
TEST(Gpu, lu_matches_host) {
  copa::select_device(-1);
  const Problem p = make_problem(make_sphere(1.0, 6), 2.0, 1.0, PlaneWave{});
  auto solve_with = [&](copa::Backend b, const std::string& lu) {
    return efie_test::solve_default(b, p, plane_wave_rhs(p), [&](Engine& e) { e.set_lu_method(lu); });
  };
  const auto host = solve_with(copa::Backend::serial, "getrf");
  for (const auto& lu : lu_methods()) {
    const auto dev = solve_with(gpu_backend(), lu);
    const double err = rel_frobenius(dev, host);
    std::cout << "  device LU (" << lu << ") vs host LU: relative 2-norm of the solution difference " << err << "\n";
    EXPECT_TRUE(err <= 1e-10);
    EXPECT_TRUE(rms_db_error(bistatic_rcs(p, dev), 2.0) <= 0.5);
  }
}

// The MFIE and CFIE fills (every variant: the variant fills the CFIE's EFIE part) against the
// serial oracle, on a sphere and a cube (closed surfaces only).
TEST(Gpu, mfie_cfie_match_serial) {
  copa::select_device(-1);
  for (const Problem& p : {make_problem(make_sphere(1.0, 5), 2.0, 1.0, PlaneWave{}),
                           make_problem(make_cube(1.0, 4), 2.0, 0.5, PlaneWave{})})
    for (const char* name : {"mfie", "cfie"}) {
      const Formulation form = make_formulation(name, 0.3);
      const auto ref = fill(copa::Backend::serial, default_selection(copa::Backend::serial), p, form);
      for (const auto& v : engine_selections(gpu_backend())) {
        const double err = rel_frobenius(fill(gpu_backend(), v, p, form), ref);
        std::cout << "  " << name << " " << v.label() << " (N = " << p.unknowns() << "): relative Frobenius vs serial " << err << "\n";
        EXPECT_TRUE(err <= 1e-12);
      }
    }
}

// The CFIE solved on the device at the interior resonance: RCS against Mie and against the host.
TEST(Gpu, cfie_resonance_device) {
  copa::select_device(-1);
  const Problem p = make_problem(make_sphere(1.0, 6), 2.7437, 1.0, PlaneWave{});
  const Formulation form = make_formulation("cfie", 0.5);
  auto solve_on = [&](copa::Backend b) {
    return efie_test::solve_default(b, p, excitation(p, form.alpha), [&](Engine& e) { e.set_formulation(form); });
  };
  const auto host = solve_on(copa::Backend::serial), dev = solve_on(gpu_backend());
  const double err = rel_frobenius(dev, host), rms = rms_db_error(bistatic_rcs(p, dev), 2.7437);
  std::cout << "  CFIE ka = 2.7437 on the device: solution vs host " << err << ", RMS vs Mie " << rms << " dB\n";
  EXPECT_TRUE(err <= 1e-10);
  EXPECT_TRUE(rms <= 0.5);
}

// PMCHWT and Mueller on the device (one fill for every variant; the default one) against the serial
// oracle, 2N x 2N, on a sphere and a cube (the app tests gpu.app-pmchwt / app-muller solve the
// eps_r = 4, ka = 1 sphere on every backend against the dielectric Mie series).
TEST(Gpu, dielectric_match_serial) {
  copa::select_device(-1);
  for (const Problem& p : {make_problem(make_sphere(1.0, 4), 1.0, 1.0, PlaneWave{}),
                           make_problem(make_cube(1.0, 3), 1.0, 0.5, PlaneWave{})})
    for (const char* name : {"pmchwt", "muller"}) {
      const Formulation form = make_formulation(name, 0.5, 3.0, 2.0);
      auto fill2 = [&](copa::Backend b) { return efie_test::fill_matrix(b, p, form, 2 * p.unknowns()); };
      const double err = rel_frobenius(fill2(gpu_backend()), fill2(copa::Backend::serial));
      std::cout << "  " << name << " (2N = " << 2 * p.unknowns() << "): relative Frobenius vs serial " << err << "\n";
      EXPECT_TRUE(err <= 1e-12);
    }
}
