// AMR specification, leaf update = oracle: full refinement equals the uniform run bit for bit,
// OpenMP equals serial, every plan unit shape gives the serial step, and the runs meet their
// references (a wave across a static band, Sedov, Sod).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>

#include <gtest/gtest.h>

#include "amr/amr_driver.hpp"
#include "amr/amr_interp.hpp"
#include "amr/amr_plan.hpp"
#include "amr/amr_subcycle.hpp"
#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "hydro/verification.hpp"
#include "test_amr_emulated_step.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"
#include "test_amr_plan_compare.hpp"
#include "test_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;

// Full refinement = the uniform run bit for bit, OpenMP = serial, a wave across a static refined
// band, Sedov and Sod against their references.
TEST(Amr, amr_full_refinement_equals_uniform_bitwise) {
  struct Case {
    const char* problem;
    std::array<int, 3> base;
    Boundary bc;
    int levels;
  };
  const Case cases[] = {{"sedov", {8, 8, 8}, Boundary::periodic, 1},
                        {"sedov", {4, 4, 4}, Boundary::reflecting, 2},
                        {"sod", {16, 4, 4}, Boundary::outflow, 1}};
  for (const Case& c : cases) {
    const OctMesh base = build_mesh(c.base, {c.bc, c.bc, c.bc});
    const RunConfig cfg = amr_config(c.problem, 1.0, 12);
    const auto r = amr::run_amr(copa::Backend::serial, base, cfg, amr_levels(c.levels, "everywhere", 3));
    std::array<int, 3> fc;
    for (int a = 0; a < 3; ++a) fc[a] = c.base[a] << c.levels;
    EXPECT_TRUE(r.tree.leaf_cells() == std::int64_t(fc[0]) * fc[1] * fc[2]);
    const OctMesh fine = build_mesh(fc, {c.bc, c.bc, c.bc});
    const auto uni = test::run_problem(copa::Backend::serial, c.problem, fc, c.bc, 12, 1.0);
    EXPECT_TRUE(r.steps == 12 && uni.steps == 12);
    EXPECT_TRUE(r.t == uni.t);
    const std::vector<double> p = amr::project_to_finest(r.tree, fine, r.u);
    double diff = 0;
    for (std::size_t i = 0; i < p.size(); ++i) diff = std::max(diff, std::fabs(p[i] - uni.u[i]));
    std::cerr << c.problem << " " << c.levels << " levels: max |amr - uniform| " << diff << "\n";
    EXPECT_TRUE(p == uni.u);
  }
}

TEST(Amr, amr_openmp_equals_serial) { expect_openmp_equals_serial(amr_levels(2, "gradient", 2), 20); }

TEST(Amr, amr_wave_across_static_band) {
  // A density wave rho = 1 + 0.2 sin(2 pi x), u = 1, p = 1 advected by half its length,
  // with the band 0.25 <= x <= 0.5 refined one level (never regridded). Mass to round-off; away from
  // the band the error is second order (MC limiter): two resolutions give the observed order.
  double err[2];
  for (int r = 0; r < 2; ++r) {
    const int nx = 32 << r;
    const OctMesh base = build_mesh({nx, 4, 4}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
    amr::AmrConfig ac = amr_levels(1, "band", 0);
    ac.set_state = band_wave_state;
    const auto res = amr::run_amr(copa::Backend::serial, base, amr_config("sound", 0.5, 100000, 2), ac);
    EXPECT_TRUE(std::fabs(res.t - 0.5) < 1e-14);
    EXPECT_TRUE(rel_change(res.final.mass, res.initial.mass) < 1e-13);
    EXPECT_TRUE(res.tree.octs_at(1) > 0);
    err[r] = band_wave_error(res.tree, res.u, nullptr);
  }
  const double order = std::log2(err[0] / err[1]);
  std::cerr << "wave across band: L1 " << err[0] << " " << err[1] << " order " << order << "\n";
  EXPECT_TRUE(order > 1.8);
}

TEST(Amr, amr_sedov_16_one_level) {
  // The CI form of the full-size Sedov run (test_amr_slow.cpp): base 16^3 + 1 level (32^3
  // finest) to t = 0.03.
  const SedovOneLevel run(amr_levels(1, "gradient", 2));
  const amr::AmrResult& r = run.r;
  const OctMesh& fine = run.fine;
  const copa::Verification& v = run.v;
  std::cerr << "sedov 16+1: radius error " << v.value << ", leaf cells " << r.tree.leaf_cells() << " of " << fine.ncell() << "\n";
  EXPECT_TRUE(v.verified && v.passed);
  EXPECT_TRUE(r.tree.leaf_cells() < fine.ncell() * 6 / 10);
}

TEST(Amr, amr_sod_close_to_uniform_fine) {
  // Sod along x: base 64 x 4 x 4 + 1 level (128 x 8 x 8 finest) against the uniform runs at the
  // finest and the base resolution, t = 0.2.
  const OctMesh base = build_mesh({64, 4, 4}, {Boundary::outflow, Boundary::outflow, Boundary::outflow});
  RunConfig cfg = amr_config("sod", 0.2, 100000);
  amr::AmrConfig ac = amr_levels(1, "gradient", 2);
  ac.criterion.density = ac.criterion.pressure = 0.05;
  const auto r = amr::run_amr(copa::Backend::serial, base, cfg, ac);
  const OctMesh fine = build_mesh({128, 8, 8}, base.bc);
  const double e_amr = sod_l1_density_error(fine, amr::project_to_finest(r.tree, fine, r.u), 1.4, r.t);
  const auto uni = test::run_problem(copa::Backend::serial, "sod", {128, 8, 8}, Boundary::outflow, 100000, 0.2);
  const double e_uni = sod_l1_density_error(fine, uni.u, 1.4, uni.t);
  const auto coarse = test::run_problem(copa::Backend::serial, "sod", {64, 4, 4}, Boundary::outflow, 100000, 0.2);
  const double e_coarse = sod_l1_density_error(base, coarse.u, 1.4, coarse.t);
  std::cerr << "sod L1: amr " << e_amr << " uniform fine " << e_uni << " uniform coarse " << e_coarse << ", leaf cells "
            << r.tree.leaf_cells() << " of " << fine.ncell() << "\n";
  EXPECT_TRUE(e_amr < 1.25 * e_uni);
  EXPECT_TRUE(e_amr < 0.75 * e_coarse);
  EXPECT_TRUE(r.tree.leaf_cells() < fine.ncell() / 2);
}

// Partial sibling groups (tuning group-min): the plan's groups
// at group_min 1, 4 and 8 on the plan cases' trees (every leaf oct in exactly one unit, the
// members where the masks say, the device plan's emulation equal to the host plan), and the GPU
// step's emulation giving the same state and kept fine fluxes whatever the unit shapes (groups of
// any size, or every oct alone), global and subcycled, and the serial oracle's step to round-off.
//
// "The same" is bit for bit (state_difference and flux_difference 0, the same set of fine-flux
// entries written): every shape reads the same inputs in the same arithmetic, and the host code is
// compiled without FP contraction (ramses-oct/CMakeLists.txt), so the oct
// (T = 2) and group (T = 4) instances of the bodies round alike however they are inlined (with
// GCC's default contraction they differed in the last bits, and this bound was 1e-13).
// A wrong index map or a missing kept face moves a value by O(1).
namespace {

struct GroupStats {
  long long groups = 0, partial = 0, grouped_octs = 0, absent = 0, internal_kept = 0, unreached_slots = 0;
};

// Checks p's units against the tree (every leaf oct in exactly one unit; a group's leaf members
// are the octs of one aligned block of one level at the member positions of its mask, at least
// group_min of them; its block boundary kinds) and counts what the groups hold.
GroupStats check_units(const amr::Tree& t, const amr::StepPlan& p, int group_min) {
  GroupStats st;
  const std::size_t nleaf = p.leaf_octs.size();
  std::vector<int> units(nleaf, 0);
  for (const std::int32_t i : p.singles) ++units[i];
  EXPECT_EQ(p.group_members.size(), p.groups.size());
  EXPECT_EQ(p.group_edges.size(), 6 * p.groups.size());
  for (std::size_t k = 0; k < p.groups.size(); ++k) {
    const unsigned mask = p.group_members[k];
    const std::int32_t o0 = p.leaf_octs[p.groups[k]];
    const int l = t.level[o0];
    const int members = amr::member_rank(mask, 8);
    EXPECT_GE(members, group_min) << "group " << k;
    ++st.groups;
    st.partial += mask != amr::complete_group;
    st.grouped_octs += members;
    int block[3];
    for (int a = 0; a < 3; ++a) block[a] = (t.coord[a][o0] >> 1) << 1;
    for (int m = 0; m < 8; ++m) {
      const int c[3] = {block[0] + (m & 1), block[1] + ((m >> 1) & 1), block[2] + (m >> 2)};
      if (!((mask >> m) & 1u)) {
        st.absent += t.find_oct(l, c[0], c[1], c[2]) < 0;
        continue;
      }
      const std::int64_t i = p.groups[k] + amr::member_rank(mask, m);
      ++units[i];
      const std::int32_t o = p.leaf_octs[i];
      EXPECT_EQ(t.level[o], l);
      for (int a = 0; a < 3; ++a) EXPECT_EQ(t.coord[a][o], c[a]) << "group " << k << " member " << m;
      // A kept face inside the block: the member beside it along that axis is absent.
      for (int a = 0; a < 3; ++a) {
        const int side = ((m >> a) & 1) ? 0 : 1;  // the face towards the block's other half
        if ((p.keep[i] >> (2 * a + side)) & 1) ++st.internal_kept;
      }
    }
    for (int a = 0; a < 3; ++a) {
      const int n = t.cells_at(l, a) / 2;
      EXPECT_EQ(p.group_edges[6 * k + a], block[a] == 0 ? static_cast<std::int8_t>(t.base->bc[a]) : 0);
      EXPECT_EQ(p.group_edges[6 * k + 3 + a], block[a] + 1 == n - 1 ? static_cast<std::int8_t>(t.base->bc[a]) : 0);
    }
  }
  for (std::size_t i = 0; i < nleaf; ++i) EXPECT_EQ(units[i], 1) << "leaf " << i;
  // A group's slot next to one of its leaf octs holds that oct's own slot lookup (a ghost slot:
  // a leaf of level l - 1, 2:1 balance); one next to none of them (a partial group's, read only
  // for its absent octs' cells) holds no_slot, as the corners do.
  const long long nsingle = static_cast<long long>(p.singles.size());
  for (std::size_t k = 0; k < p.groups.size(); ++k) {
    const int l = t.level[p.leaf_octs[p.groups[k]]];
    for (int s = 0; s < 64; ++s) {
      const std::int32_t e = p.group_slots[64 * k + s];
      std::int32_t member = -1;
      int s27 = 0;
      if (!amr::group_slot_leaf_member(&p.leaf_octs[p.groups[k]], p.group_members[k], s, member, s27)) {
        EXPECT_EQ(e, amr::no_slot) << "group " << k << " corner slot " << s;
        continue;
      }
      if (member < 0) {
        EXPECT_EQ(e, amr::no_slot) << "group " << k << " slot " << s;
        ++st.unreached_slots;
        continue;
      }
      EXPECT_NE(e, amr::no_slot) << "group " << k << " slot " << s;
      if (!amr::plan_slot_is_ghost(e)) continue;
      EXPECT_EQ(t.level[p.ghost_src[7 * (-1 - e)] / 8], l - 1) << "group " << k << " slot " << s;
      EXPECT_GE(-1 - e, p.ghost_begin[nsingle + k]);
      EXPECT_LT(-1 - e, p.ghost_begin[nsingle + k + 1]);
    }
  }
  return st;
}

// One global step of the emulated GPU step with the plan of group_min (0: no groups).
void plan_step(const StateCase& c, int group_min, bool reflux, double dt, std::vector<double>& unew,
               std::vector<double>& fine_flux) {
  const amr::StepPlan p = amr::build_step_plan(c.run.tree, c.lists, reflux, group_min);
  amr::emulate_plan_step(c.run.tree, p, c.lists, HydroParams{}, reflux, c.run.u, unew, dt, &fine_flux);
}

}  // namespace

TEST(AmrPartialGroups, amr_partial_groups_in_the_plan) {
  GroupStats total[9];
  for (const PlanCase& pc : plan_cases) {
    OctMesh base;
    const amr::Tree t = case_tree(pc, base);
    const amr::StepLists lists = amr::build_step_lists(t);
    for (const int group_min : {1, 4, 8}) {
      SCOPED_TRACE(std::string(pc.problem) + " bc " + std::to_string(int(pc.bc)) + " group_min " +
                   std::to_string(group_min));
      for (const bool reflux : {true, false}) {
        const amr::StepPlan host = amr::build_step_plan(t, lists, reflux, group_min);
        amr::StepPlan dev;
        amr::emulate_device_plan(t, lists, reflux, dev, group_min);
        expect_same_plan(dev, host);
        if (!reflux) continue;
        const GroupStats st = check_units(t, host, group_min);
        GroupStats& tot = total[group_min];
        tot.groups += st.groups;
        tot.partial += st.partial;
        tot.grouped_octs += st.grouped_octs;
        tot.absent += st.absent;
        tot.internal_kept += st.internal_kept;
        tot.unreached_slots += st.unreached_slots;
        std::cerr << pc.problem << " bc " << int(pc.bc) << " group_min " << group_min << ": " << host.leaf_octs.size()
                  << " leaf octs, " << st.groups << " groups (" << st.partial << " partial, " << st.absent
                  << " absent members, " << st.internal_kept << " kept faces inside a block, " << st.unreached_slots
                  << " slots next to no leaf member), " << st.grouped_octs
                  << " grouped, " << host.singles.size() << " singles\n";
      }
    }
  }
  // Partial groups where expected: with 1 and 4, blocks with absent members and kept faces inside
  // them; with 8 only complete groups.
  for (const int group_min : {1, 4}) {
    EXPECT_GT(total[group_min].partial, 0) << group_min;
    EXPECT_GT(total[group_min].absent, 0) << group_min;
    EXPECT_GT(total[group_min].internal_kept, 0) << group_min;
    EXPECT_GT(total[group_min].unreached_slots, 0) << group_min;
    EXPECT_GT(total[group_min].grouped_octs, total[8].grouped_octs) << group_min;
  }
  EXPECT_GE(total[1].grouped_octs, total[4].grouped_octs);
  EXPECT_EQ(total[8].partial, 0);
  EXPECT_EQ(total[8].unreached_slots, 0);
  EXPECT_GT(total[8].groups, 0);
}

TEST(AmrPartialGroups, amr_partial_groups_step_equals_every_unit_shape) {
  // The predictor and every face flux read the same inputs whether an oct is updated alone, in a
  // complete group or in a partial one: the same unew and kept fine fluxes (the internal kept
  // faces of partial groups included), with and without reflux. And the serial
  // oracle's step to round-off.
  for (const PlanCase& pc : plan_cases) {
    const StateCase c(pc);
    SCOPED_TRACE(c.name);
    const amr::Tree& t = c.run.tree;
    const double dt = amr::cfl_dt(t, c.scan(), 0.5);
    for (const bool reflux : {true, false}) {
      std::vector<double> alone, alone_flux;
      plan_step(c, 0, reflux, dt, alone, alone_flux);
      double worst = 0;
      long long kept = 0;
      for (const double v : alone_flux) kept += v != 0;
      std::vector<double> complete, complete_flux;
      for (const int group_min : {1, 4, 8}) {
        std::vector<double> unew, fine_flux;
        plan_step(c, group_min, reflux, dt, unew, fine_flux);
        SCOPED_TRACE("group_min " + std::to_string(group_min) + " reflux " + std::to_string(reflux));
        const double du = state_difference(unew, alone, t.noct() * 8), df = flux_difference(fine_flux, alone_flux);
        EXPECT_EQ(du, 0.0);
        EXPECT_EQ(df, 0.0);
        worst = std::max({worst, du, df});
        if (group_min == 8) {
          complete = unew;
          complete_flux = fine_flux;
        } else if (!complete.empty()) {
          EXPECT_EQ(state_difference(unew, complete, t.noct() * 8), 0.0);
        }
      }
      amr::Stepper stepper(*c.loops, c.hp, reflux);
      std::vector<double> oracle = c.run.u;
      stepper.update(t, c.lists, c.run.u, oracle, dt);
      if (reflux) stepper.reflux(t, c.lists, oracle, dt);
      amr::restrict_all(t, oracle, *c.loops);
      const double l2 = relative_l2(alone, oracle);
      std::cerr << c.name << " reflux " << reflux << ": " << kept << " kept fine-flux values; unit shapes differ by "
                << worst << " at most; vs the oracle step relative L2 " << l2 << "\n";
      EXPECT_GT(kept, 0);
      EXPECT_LT(l2, 1e-12);
      EXPECT_TRUE(alone != c.run.u);
    }
  }
}

TEST(AmrPartialGroups, amr_partial_groups_subcycled_step_equals_complete_groups) {
  // One subcycled coarse step (the device's recursion, per-level ranges, fine-flux sums): the
  // same u and sums with partial groups (group_min 1) and complete ones only (8).
  for (const PlanCase& pc : plan_cases) {
    const StateCase c(pc);
    SCOPED_TRACE(c.name);
    const amr::Tree& t = c.run.tree;
    const double dt0 = amr::subcycle_dt(t, c.scan(), 0.5);
    std::vector<double> u[2], kept[2];
    long long partial = 0;
    for (int k = 0; k < 2; ++k) {
      const int group_min = k == 0 ? 1 : 8;
      const amr::StepPlan p = amr::build_step_plan(t, c.lists, true, group_min);
      for (const std::uint8_t m : p.group_members) partial += m != amr::complete_group;
      const amr::PlanLevels lv = amr::emulate_plan_levels(t, p);
      u[k] = c.run.u;
      std::vector<double> unew(u[k].size()), sums(t.noct() * amr::fine_flux_per_oct, 0.0);
      kept[k].assign(t.noct() * amr::fine_flux_per_oct, 0.0);
      amr::emulate_plan_subcycled_step(t, p, c.lists, lv, c.hp, true, u[k], unew, kept[k], sums, dt0);
    }
    EXPECT_EQ(state_difference(u[0], u[1], t.noct() * 8), 0.0);
    // The kept fluxes of the last substeps.
    EXPECT_EQ(flux_difference(kept[0], kept[1]), 0.0);
    EXPECT_TRUE(u[0] != c.run.u);
    if (pc.levels >= 2) {
      EXPECT_GT(partial, 0);
    }
  }
}

TEST(AmrPartialGroups, amr_partial_groups_emulated_device_path_equals_serial) {
  // The GPU path's driver (device regrid, plan rebuilt after every tree change) with the device
  // emulated at group_min 1 and 8, global dt and --subcycle: the serial oracle's tree, steps and
  // state to round-off, and the JSON's grouped share counted from the plans' masks.
  const PlanCase c{"sedov", {12, 8, 10}, Boundary::reflecting, 2, "gradient", 8};
  const OctMesh base = case_mesh(c);
  const RunConfig cfg = case_config(c);
  for (const bool subcycle : {false, true}) {
    amr::AmrConfig ac = case_amr(c, 1);
    ac.subcycle = subcycle;
    const auto oracle = amr::run_amr(copa::Backend::serial, base, cfg, ac);
    double share[2] = {0, 0};
    for (const int group_min : {1, 8}) {
      SCOPED_TRACE("subcycle " + std::to_string(subcycle) + " group_min " + std::to_string(group_min));
      EmulatedCounts n;
      ac.device = emulated_device(n, group_min);
      const auto dev = amr::run_amr(copa::Backend::serial, base, cfg, ac);
      ASSERT_EQ(dev.tree.key, oracle.tree.key);
      const double l2 = relative_l2(dev.u, oracle.u);
      std::cerr << "subcycle " << subcycle << " group_min " << group_min << ": " << n.moves << " tree changes, "
                << "grouped share " << dev.grouped_oct_updates / dev.leaf_oct_updates << ", vs serial relative L2 "
                << l2 << "\n";
      EXPECT_GT(n.moves, 0);
      EXPECT_EQ(dev.steps, oracle.steps);
      EXPECT_LT(l2, 1e-12);
      EXPECT_EQ(dev.grouped_oct_updates, double(n.grouped_oct_updates));
      // group_min 1: every block with a leaf oct is a group but the level-0 blocks that leave the
      // domain (5 base octs along z: the last layer).
      share[group_min == 1 ? 0 : 1] = dev.grouped_oct_updates / dev.leaf_oct_updates;
    }
    EXPECT_GT(share[0], share[1]);
    EXPECT_LT(share[0], 1.0);
  }
}
