// AMR level subcycling (--subcycle, amr_subcycle.hpp): conservation with and without refluxing,
// Sedov's radius, the band wave's order, closeness to the global-dt run, OpenMP = serial (the
// device step's subcycling: test_amr_device_emulation.cpp, test_amr_subcycle_gpu.cpp).
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "amr/amr_driver.hpp"
#include "amr/amr_plan.hpp"
#include "amr/amr_subcycle.hpp"
#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "hydro/verification.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"
#include "test_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;

TEST(AmrSubcycle, amr_subcycle_dt_is_the_coarse_step_of_every_level) {
  // Per level l the substep dt_0 / 2^l must meet level l's CFL limit, and one level sets it.
  const OctMesh base = build_mesh({8, 8, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  const amr::Tree t = amr::base_tree(base, 2);
  amr::LeafScan s;
  s.max_speed = {1.0, 3.0, 5.0};
  const double dt0 = amr::subcycle_dt(t, s, 0.5);
  for (int l = 0; l <= 2; ++l) EXPECT_LE(dt0 / double(1 << l), 0.5 * t.dx(l) / s.max_speed[l] * (1 + 1e-15));
  COPA_EXPECT_NEAR_REL(dt0, 0.5 * t.dx(0) / 5.0, 1e-15);
  // The global dt is the finest level's: dt_0 is 2^2 times it here.
  COPA_EXPECT_NEAR_REL(dt0, 4 * amr::cfl_dt(t, s, 0.5), 1e-15);
}

TEST(AmrSubcycle, amr_subcycle_openmp_equals_serial) { expect_openmp_equals_serial(subcycled(2, "gradient", 2), 8); }

TEST(AmrSubcycle, amr_subcycle_sedov_16_one_level) {
  // Sedov base 16^3 + 1 level (32^3 finest) to t = 0.03: the radius within 3%, as the global dt.
  const SedovOneLevel run(subcycled(1, "gradient", 2));
  const amr::AmrResult& r = run.r;
  const OctMesh& fine = run.fine;
  const copa::Verification& v = run.v;
  std::cerr << "subcycled sedov 16+1: radius error " << v.value << ", " << r.steps << " coarse steps, leaf cells "
            << r.tree.leaf_cells() << " of " << fine.ncell() << "\n";
  EXPECT_TRUE(v.verified && v.passed);
  EXPECT_TRUE(std::fabs(r.t - 0.03) < 1e-14);
  EXPECT_TRUE(r.tree.leaf_cells() < fine.ncell() * 6 / 10);
  EXPECT_TRUE(rel_change(r.final.mass, r.initial.mass) < 1e-12 && rel_change(r.final.energy, r.initial.energy) < 1e-12);
}

TEST(AmrSubcycle, amr_subcycle_wave_across_static_band) {
  // The band wave of test_amr_leaf_update.cpp with subcycling: the band's level takes two
  // substeps per coarse step. Mass to round-off; second order away from the band; and the
  // subcycled run is close to the global-dt run: their difference is well below either's error
  // against the exact solution, and the two errors are within a factor 2. They differ because the
  // coarse level steps at twice the global dt (Courant number C instead of C / 2: MUSCL-Hancock's
  // error on an advected wave changes with the Courant number) and because the band's ghost cells
  // see the coarse level at its old time in both substeps (no time interpolation, as RAMSES).
  double err[2], err_global = 0, diff = 0;
  for (int r = 0; r < 2; ++r) {
    const int nx = 32 << r;
    const OctMesh base = build_mesh({nx, 4, 4}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
    amr::AmrConfig ac = subcycled(1, "band", 0);
    ac.set_state = band_wave_state;
    const RunConfig cfg = amr_config("sound", 0.5, 100000, 2);
    const auto res = amr::run_amr(copa::Backend::serial, base, cfg, ac);
    EXPECT_TRUE(std::fabs(res.t - 0.5) < 1e-14);
    EXPECT_TRUE(rel_change(res.final.mass, res.initial.mass) < 1e-13);
    EXPECT_TRUE(res.tree.octs_at(1) > 0);
    err[r] = band_wave_error(res.tree, res.u, nullptr);
    if (r == 0) {
      ac.subcycle = false;
      const auto glob = amr::run_amr(copa::Backend::serial, base, cfg, ac);
      EXPECT_TRUE(glob.tree.key == res.tree.key);
      EXPECT_TRUE(glob.steps > res.steps);
      err_global = band_wave_error(glob.tree, glob.u, nullptr);
      diff = band_wave_error(res.tree, res.u, &glob.u);
      std::cerr << "band wave 32: " << res.steps << " coarse steps subcycled, " << glob.steps << " global\n";
    }
  }
  const double order = std::log2(err[0] / err[1]);
  std::cerr << "subcycled wave across band: L1 " << err[0] << " " << err[1] << " order " << order
            << "; global dt L1 " << err_global << ", |subcycled - global| L1 " << diff << "\n";
  EXPECT_TRUE(order > 1.8);
  EXPECT_TRUE(diff > 0);
  EXPECT_TRUE(diff < 0.5 * std::min(err[0], err_global));
  EXPECT_TRUE(err[0] < 2 * err_global && err_global < 2 * err[0]);
}

// The premises of the device's fused subcycled launches,
// on the plan cases' trees (one to three levels; periodic, reflecting and outflow faces):
// (1) the commit of level l (unew -> u on its leaf cells) and the restriction of level l + 1 into
// level l's covered cells share one launch, so the cells one writes are neither written nor read
// by the other; (2) nothing zeroes the fine-flux sums: a level's first substep starts every sum
// element it keeps (block::flux_sum_add), which serves the reflux only if every reflux face of
// level l - 1 reads a kept face of a leaf oct of level l (written by each substep), and every kept
// face is read by exactly one reflux face (none is summed for nothing or refluxed twice).
TEST(AmrSubcycle, amr_subcycle_commit_and_restriction_touch_disjoint_cells) {
  for (const PlanCase& c : plan_cases) {
    const BuiltCase b(c);
    const amr::Tree& t = b.tree;
    const amr::StepPlan& p = b.plan;
    const amr::PlanLevels lv = amr::emulate_plan_levels(t, p);
    SCOPED_TRACE(b.name);
    long long committed_total = 0, restricted_total = 0;
    for (int l = 0; l < t.max_level; ++l) {
      if (t.octs_at(l + 1) == 0) continue;
      // The cells the commit writes (and reads in unew): level l's leaf cells.
      std::vector<char> committed(static_cast<std::size_t>(t.noct()) * 8, 0);
      for (long long i = lv.leaf_begin[l]; i < lv.leaf_begin[l + 1]; ++i)
        for (int k = 0; k < 8; ++k) {
          const std::int64_t g = std::int64_t(p.leaf_octs[i]) * 8 + k;
          if (t.son[g] < 0) committed[g] = 1, ++committed_total;
        }
      // The restriction pairs advance_subcycled takes for level l.
      const std::size_t k = static_cast<std::size_t>(t.max_level - 1 - l);
      long long shared = 0;
      for (std::int64_t e = p.restrict_begin[k]; e < p.restrict_begin[k + 1]; ++e) {
        const std::int64_t cell = p.restrict_cell[e], son = p.restrict_son[e];
        EXPECT_EQ(t.level[cell / 8], l);
        EXPECT_GE(t.son[cell], 0);
        EXPECT_EQ(t.level[son], l + 1);
        shared += committed[cell];
        for (int s = 0; s < 8; ++s) shared += committed[son * 8 + s];
        ++restricted_total;
      }
      EXPECT_EQ(shared, 0) << "level " << l;
    }
    std::cerr << b.name << ": " << committed_total << " committed leaf cells and " << restricted_total
              << " restricted cells on the refined levels' visits, none shared\n";
    EXPECT_GT(committed_total, 0);
    EXPECT_GT(restricted_total, 0);
  }
}

TEST(AmrSubcycle, amr_subcycle_every_kept_fine_face_is_read_by_one_reflux_face) {
  for (const PlanCase& c : plan_cases) {
    const BuiltCase b(c);
    const amr::Tree& t = b.tree;
    const amr::StepLists& lists = b.lists;
    const amr::StepPlan& p = b.plan;
    SCOPED_TRACE(b.name);
    // Per (oct, face): the reflux faces that read its sums, and whether a leaf oct keeps it.
    std::vector<int> reads(static_cast<std::size_t>(t.noct()) * 6, 0);
    std::vector<char> kept(static_cast<std::size_t>(t.noct()) * 6, 0);
    for (const amr::RefluxFace& f : lists.faces) {
      EXPECT_EQ(t.level[f.fine_oct], t.level[f.cell / 8] + 1);
      ++reads[std::size_t(f.fine_oct) * 6 + (f.face ^ 1)];
    }
    long long kept_faces = 0, unread = 0, read_twice = 0, read_not_kept = 0;
    for (std::size_t i = 0; i < p.leaf_octs.size(); ++i)
      for (int f = 0; f < 6; ++f)
        if ((p.keep[i] >> f) & 1) {
          const std::size_t at = std::size_t(p.leaf_octs[i]) * 6 + f;
          kept[at] = 1;
          ++kept_faces;
          unread += reads[at] == 0;
          read_twice += reads[at] > 1;
        }
    for (std::size_t at = 0; at < reads.size(); ++at) read_not_kept += reads[at] > 0 && !kept[at];
    std::cerr << b.name << ": " << kept_faces << " kept fine faces, " << lists.faces.size()
              << " reflux faces; unread " << unread << ", read twice " << read_twice << ", read but not kept "
              << read_not_kept << "\n";
    EXPECT_GT(kept_faces, 0);
    EXPECT_EQ(kept_faces, static_cast<long long>(lists.faces.size()));
    EXPECT_EQ(unread, 0);
    EXPECT_EQ(read_twice, 0);
    EXPECT_EQ(read_not_kept, 0);
  }
}
