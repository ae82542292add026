// AMR specification, regrid: the regrid's parts (flags, map, lists, plan, state move) built in
// parallel, in finer decompositions or with more lanes equal the serial whole-oct build.
#include <algorithm>
#include <array>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "amr/amr_driver.hpp"
#include "amr/amr_flags_body.hpp"
#include "amr/amr_gpu.hpp"
#include "amr/amr_lists_body.hpp"
#include "amr/amr_plan.hpp"
#include "amr/amr_rebuild.hpp"
#include "amr/amr_rebuild_body.hpp"
#include "amr/amr_run.hpp"
#include "copa/report.hpp"
#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "test_amr_emulated_step.hpp"
#include "test_amr_flags_cases.hpp"
#include "test_amr_forwarding_step.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"
#include "test_amr_plan_compare.hpp"
#include "test_amr_rebuild_compare.hpp"

using namespace ro;
using namespace ro::amr_test;

// The regrid's parts that the GPU regrid rebuilt: the step lists, the GPU step plan,
// the flags and the old->new map built in parallel (and in place) equal the serial build; the
// criterion's neighbour lookup shared with the device equals locate(); the map-driven state move
// equals the direct prolongation; the GPU path's driver with the device emulated on the host
// equals the oracle.
namespace {

// Every field: what the device builds, and the host's per-oct reflux tables.
void expect_same_lists(const amr::StepLists& a, const amr::StepLists& b) {
  expect_same_device_lists(a, b);
  EXPECT_EQ(a.leaf_octs_begin, b.leaf_octs_begin);
  EXPECT_EQ(a.reflux_octs, b.reflux_octs);
  EXPECT_EQ(a.reflux_begin, b.reflux_begin);
}

}  // namespace

TEST(Amr, amr_parallel_plan_equals_serial) {
#if defined(COPA_HAVE_OPENMP)
  const auto loops = amr::make_openmp_loops();
#else
  const auto loops = amr::make_serial_loops();
#endif
  // Reused between the cases: the second and third builds overwrite a larger or smaller plan.
  amr::StepLists lists;
  amr::StepPlan plan;
  for (const Boundary bc : {Boundary::periodic, Boundary::reflecting, Boundary::outflow}) {
    const OctMesh base = build_mesh({12, 8, 10}, {bc, bc, bc});
    const auto r = amr::run_amr(copa::Backend::serial, base, amr_config("sedov", 1.0, 6 + 4 * int(bc)),
                                amr_levels(3, "gradient", 2));
    const amr::StepLists serial_lists = amr::build_step_lists(r.tree);
    const amr::StepPlan serial_plan = amr::build_step_plan(r.tree, serial_lists, true);
    // The plan sees ghost slots, reflux faces and restrictions on every level.
    ASSERT_GT(r.tree.octs_at(3), 0);
    EXPECT_FALSE(serial_plan.ghost_flip.empty());
    EXPECT_FALSE(serial_plan.groups.empty());
    EXPECT_FALSE(serial_lists.faces.empty());
    EXPECT_EQ(serial_plan.ghost_begin.back() * 7, static_cast<std::int64_t>(serial_plan.ghost_src.size()));
    amr::build_step_lists(r.tree, *loops, lists);
    amr::build_step_plan(r.tree, lists, true, *loops, plan);
    expect_same_lists(lists, serial_lists);
    expect_same_plan(plan, serial_plan);
  }
}

TEST(Amr, amr_parallel_regrid_flags_and_map_equal_serial) {
#if defined(COPA_HAVE_OPENMP)
  const auto loops = amr::make_openmp_loops();
#else
  const auto loops = amr::make_serial_loops();
#endif
  const auto serial = amr::make_serial_loops();
  const OctMesh base = build_mesh({8, 8, 8}, {Boundary::reflecting, Boundary::reflecting, Boundary::reflecting});
  const RunConfig cfg = amr_config("sedov", 1.0, 12);
  const auto r = amr::run_amr(copa::Backend::serial, base, cfg, amr_levels(3, "gradient", 0));
  std::vector<char> crit_s, crit_p;
  amr::criterion_flags(r.tree, r.u, amr::RefineCriterion{}, cfg.hydro.gamma, *serial, crit_s);
  amr::criterion_flags(r.tree, r.u, amr::RefineCriterion{}, cfg.hydro.gamma, *loops, crit_p);
  EXPECT_EQ(crit_s, crit_p);
  for (int buffer : {2, 0}) {
    EXPECT_EQ(amr::refinement_flags(r.tree, crit_s, buffer, *serial), amr::refinement_flags(r.tree, crit_s, buffer, *loops));
  }
  const std::vector<char> flag_s = amr::refinement_flags(r.tree, crit_s, 1, *serial);
  const std::vector<char> flag_p = amr::refinement_flags(r.tree, crit_s, 1, *loops);
  EXPECT_EQ(flag_s, flag_p);
  // The buffer and the balance added flags beyond the criterion's.
  long crit_count = 0, flag_count = 0;
  for (std::size_t g = 0; g < flag_s.size(); ++g) {
    crit_count += crit_s[g] && r.tree.son[g] < 0 && r.tree.level[g / 8] < r.tree.max_level;
    flag_count += flag_s[g] && r.tree.son[g] < 0;
  }
  EXPECT_GT(flag_count, crit_count);
  amr::Tree ts = r.tree, tp = r.tree;
  const amr::RegridMap ms = amr::rebuild_tree(ts, flag_s, 1 << 26, *serial);
  const amr::RegridMap mp = amr::rebuild_tree(tp, flag_p, 1 << 26, *loops);
  EXPECT_EQ(ms.source, mp.source);
  EXPECT_EQ(ms.src, mp.src);
  EXPECT_EQ(ms.flip, mp.flip);
  EXPECT_EQ(ts.key, tp.key);
}

TEST(Amr, amr_regrid_face_neighbour_through_father_is_locate) {
  // The criterion's neighbour lookup (shared with the device): same level through the tables,
  // else the father cell's neighbour; on balanced regridded trees it is the cell locate() finds.
  for (const Boundary bc : {Boundary::periodic, Boundary::reflecting, Boundary::outflow}) {
    const OctMesh base = build_mesh({12, 8, 10}, {bc, bc, bc});
    const auto r = amr::run_amr(copa::Backend::serial, base, amr_config("sedov", 1.0, 8), amr_levels(3, "gradient", 2));
    const amr::Tree& t = r.tree;
    ASSERT_GT(t.octs_at(3), 0);
    const amr::TreeView v = amr::tree_view(t);
    long coarser = 0;
    for (std::int64_t o = 0; o < t.noct(); ++o)
      for (int c = 0; c < 8; ++c)
        for (int a = 0; a < 3; ++a)
          for (int side = 0; side < 2; ++side) {
            std::array<int, 3> ic = t.cell_coords(o, c);
            ic[a] += side ? 1 : -1;
            const amr::Located s = amr::locate(t, t.level[o], ic);
            coarser += s.level < t.level[o];
            EXPECT_EQ(amr::view_face_neighbour(v, o, c, a, side), s.cell);
          }
    EXPECT_GT(coarser, 0);
  }
}

TEST(Amr, amr_regrid_move_equals_prolong_from) {
  // The regrid's map (3) and move (4), the parts the device runs, against the direct form: a kept
  // oct's cells copied, a new oct's sons = prolong_from on the old tree, bit for bit.
  for (const Boundary bc : {Boundary::periodic, Boundary::reflecting}) {
    const OctMesh base = build_mesh({8, 8, 8}, {bc, bc, bc});
    const RunConfig cfg = amr_config("sedov", 1.0, 12);
    // No regrid during the run: the blast has left the initial refinement, so the regrid below
    // both refines and derefines.
    const auto r = amr::run_amr(copa::Backend::serial, base, cfg, amr_levels(2, "gradient", 0));
    const amr::Tree old = r.tree;
    amr::Tree t = r.tree;
    const auto loops = amr::make_serial_loops();
    std::vector<char> crit;
    amr::criterion_flags(t, r.u, amr::RefineCriterion{}, cfg.hydro.gamma, *loops, crit);
    const amr::RegridMap m = amr::rebuild_tree(t, amr::refinement_flags(t, crit, 1, *loops), 1 << 26, *loops);
    std::vector<double> u;
    amr::move_state(m, r.u, cfg.hydro.gamma, *loops, u);
    ASSERT_EQ(static_cast<std::int64_t>(m.source.size()), t.noct());
    ASSERT_FALSE(m.src.empty());
    EXPECT_TRUE(t.noct() != old.noct() || t.key != old.key);
    EXPECT_EQ(amr::check_balance(t), "");
    EXPECT_EQ(amr::check_father_son(t), "");
    const std::int64_t stride = t.noct() * 8, old_stride = old.noct() * 8;
    long prolonged = 0, mismatches = 0;
    for (std::int64_t i = 0; i < t.noct(); ++i) {
      double sons[8][nvar];
      if (m.source[i] < 0) {
        const std::int64_t fc = m.src[7 * (-1 - std::int64_t(m.source[i]))];
        EXPECT_EQ(old.key[fc / 8], t.key[i] / 8);  // row r starts with the new oct's old father cell
        amr::prolong_from(old, r.u.data(), old_stride, t.level[i] - 1, old.cell_coords(fc / 8, int(fc % 8)),
                          cfg.hydro.gamma, sons);
        ++prolonged;
      }
      for (int f = 0; f < nvar; ++f)
        for (int c = 0; c < 8; ++c) {
          const double want = m.source[i] >= 0 ? r.u[f * old_stride + std::int64_t(m.source[i]) * 8 + c] : sons[c][f];
          mismatches += u[f * stride + i * 8 + c] != want;
        }
    }
    EXPECT_GT(prolonged, 0);
    EXPECT_EQ(mismatches, 0);
    EXPECT_FALSE(m.unchanged());
  }
}

TEST(Amr, amr_regrid_of_a_static_band_is_unchanged) {
  // The GPU path skips the move, the lists and the plan when the map says the tree is the same.
  const OctMesh base = build_mesh({16, 4, 4}, {Boundary::outflow, Boundary::outflow, Boundary::outflow});
  const RunConfig cfg = amr_config("sod", 1.0, 2);
  const auto r = amr::run_amr(copa::Backend::serial, base, cfg, amr_levels(2, "band", 0));
  const auto loops = amr::make_serial_loops();
  amr::Tree t = r.tree;
  std::vector<char> crit;
  amr::criterion_flags(t, r.u, amr::RefineCriterion{"band"}, cfg.hydro.gamma, *loops, crit);
  const amr::RegridMap m = amr::rebuild_tree(t, amr::refinement_flags(t, crit, 1, *loops), 1 << 26, *loops);
  ASSERT_GT(t.octs_at(2), 0);
  EXPECT_TRUE(m.unchanged());
  EXPECT_EQ(t.key, r.tree.key);
}

TEST(Amr, amr_device_regrid_path_emulated_equals_serial) {
  // The GPU path's driver (state kept by the device step, criterion and move there, the tree from
  // the criterion bytes, unchanged trees skipped) with the device emulated on the host, against
  // the serial oracle: the same trees, the state to round-off (the GPU body's emulation differs
  // from the oracle's update by FMA contraction only).
  const PlanCase cases[] = {{"sedov", {8, 8, 8}, Boundary::reflecting, 3, "gradient", 12},
                            {"sod", {16, 4, 4}, Boundary::outflow, 2, "gradient", 16},
                            // The ramses-oct.gpu.amr-sod-reflecting configuration: its trees (144 to 224
                            // octs) made the old staging size fall short of the packed tables.
                            {"sod", {32, 4, 4}, Boundary::reflecting, 1, "gradient", 30},
                            {"sedov", {8, 8, 8}, Boundary::periodic, 2, "band", 4}};
  for (const PlanCase& c : cases) {
    const OctMesh base = case_mesh(c);
    const RunConfig cfg = case_config(c);
    amr::AmrConfig ac = case_amr(c, 1);
    const auto oracle = amr::run_amr(copa::Backend::serial, base, cfg, ac);
    EmulatedCounts n;
    ac.device = emulated_device(n);
    const auto dev = amr::run_amr(copa::Backend::serial, base, cfg, ac);
    ASSERT_EQ(dev.tree.key, oracle.tree.key) << c.problem << " " << c.kind;
    EXPECT_EQ(dev.regrids, oracle.regrids);
    EXPECT_GT(dev.regrids, 2);
    const double l2 = relative_l2(dev.u, oracle.u);
    std::cerr << c.problem << " " << c.kind << ": emulated device path vs oracle, relative L2 " << l2 << ", "
              << n.moves << " state moves in " << dev.regrids << " regrids, " << n.group_updates << " sibling-group updates\n";
    EXPECT_GT(n.group_updates, 0);
    // The JSON's sibling_group_share counts the same updates.
    EXPECT_EQ(dev.grouped_oct_updates, double(n.grouped_oct_updates));
    EXPECT_LE(dev.grouped_oct_updates, dev.leaf_oct_updates);
    EXPECT_LT(l2, 1e-12);
    EXPECT_GT(oracle.tree.octs_at(c.levels), 0);
    if (std::string(c.kind) == "band") {
      EXPECT_EQ(n.moves, 0);  // a static band: every regrid keeps the tree
    } else {
      EXPECT_GT(n.moves, 0);
    }
  }
}

namespace {

// The emulated device step reporting every regrid that adopts a new tree as fallen back to the
// exact rebuild (the GPU step's count, which the host cannot force).
class FallingBackStep final : public ForwardingStep {
 public:
  using ForwardingStep::ForwardingStep;
  void adopt() override {
    ++adopts_;
    inner().adopt();
  }
  long long regrid_fallbacks() const override { return adopts_; }

 private:
  long long adopts_ = 0;
};

// The run.fallbacks entries and "fallback: " lines of a report given an AMR run's regrid counts.
std::pair<nlohmann::json, std::string> regrid_record(const amr::AmrResult& r) {
  copa::Report rep("ramses-oct", "test");
  amr::add_regrid_fallbacks(rep, r.regrid_fallbacks, r.regrids);
  std::ostringstream os;
  rep.print_verdict(os);
  return {rep.to_json()["run"]["fallbacks"], os.str()};
}

}  // namespace

TEST(Amr, amr_regrid_fallbacks_are_recorded_with_their_count) {
  // The driver takes the device step's count into the result, and the report records it once,
  // with the count, as run.fallbacks and a "fallback: regrid: " line; a run without any has none.
  const PlanCase c{"sedov", {8, 8, 8}, Boundary::reflecting, 3, "gradient", 12};
  const OctMesh base = case_mesh(c);
  const RunConfig cfg = case_config(c);
  amr::AmrConfig ac = case_amr(c, 1);
  EmulatedCounts n;
  ac.device = emulated_device(n);
  const auto plain = amr::run_amr(copa::Backend::serial, base, cfg, ac);
  EXPECT_EQ(plain.regrid_fallbacks, 0);
  const auto [none, none_lines] = regrid_record(plain);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none_lines.find("fallback: "), std::string::npos);

  ac.device = [inner = emulated_device(n)](const HydroParams& hp, bool reflux) {
    return std::unique_ptr<amr::DeviceStep>(new FallingBackStep(inner(hp, reflux)));
  };
  const auto fell = amr::run_amr(copa::Backend::serial, base, cfg, ac);
  ASSERT_GT(fell.regrid_fallbacks, 0);
  EXPECT_LE(fell.regrid_fallbacks, fell.regrids);
  const auto [entries, lines] = regrid_record(fell);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["kind"], "regrid");
  const std::string count = std::to_string(fell.regrid_fallbacks) + " of " + std::to_string(fell.regrids) + " regrids";
  EXPECT_NE(entries[0]["reason"].get<std::string>().find(count), std::string::npos) << entries.dump();
  EXPECT_EQ(lines, copa::fallback_line(entries[0]) + "\n");
  EXPECT_EQ(lines.rfind("fallback: regrid: ", 0), 0u) << lines;
}

// The regrid kernels' finer decompositions: the device runs the
// buffer and the 2:1 balance one thread per (oct, slot) and the plan's unit slots one warp per
// unit. The parts must do per oct exactly what the whole-oct bodies do: the same set of cells
// set (not only the same flags after the pass, where a cell set by two octs hides one of them),
// the same error, on the device plan tests' trees and states.
namespace {

std::vector<long long> sorted_unique(std::vector<long long> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

TEST(Amr, amr_flags_slot_parts_equal_whole_oct) {
  std::int64_t octs_setting = 0, balance_sets = 0;
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::AmrResult r = case_run(c, base);
    const amr::Tree& t = r.tree;
    const amr::PlanView v = amr::plan_view(t);
    std::vector<char> crit;
    const std::vector<char> flag = host_flags(t, r.u, criterion_of("gradient"), HydroParams{}.gamma, crit);
    // Two flag arrays as the passes' input: the criterion bytes (also on the finest level) and the
    // flags after a regrid's flags (many flagged cells, as the balance reads them).
    for (const std::vector<char>* in : {static_cast<const std::vector<char>*>(&crit), &flag}) {
      SCOPED_TRACE(case_label(c));
      for (std::int64_t o = 0; o < t.level_begin[t.max_level]; ++o) {
        std::vector<long long> whole, parts;
        amr::flags_buffer_oct(v, in->data(), o, [&](long long g) { whole.push_back(g); });
        for (int q = 0; q < 27; ++q) amr::flags_buffer_slot(v, in->data(), o, q, [&](long long g) { parts.push_back(g); });
        ASSERT_EQ(sorted_unique(parts), sorted_unique(whole)) << "buffer, oct " << o;
        octs_setting += !whole.empty();
      }
      for (std::int64_t o = t.level_begin[1]; o < t.noct(); ++o) {
        std::vector<long long> whole, parts;
        const bool ok = amr::flags_balance_oct(v, in->data(), o, [&](long long g) { whole.push_back(g); });
        bool ok_parts = true;
        for (int q = 0; q < 27; ++q)
          ok_parts = amr::flags_balance_slot(v, in->data(), o, q, [&](long long g) { parts.push_back(g); }) && ok_parts;
        ASSERT_EQ(ok_parts, ok) << "balance, oct " << o;
        ASSERT_EQ(sorted_unique(parts), sorted_unique(whole)) << "balance, oct " << o;
        balance_sets += static_cast<std::int64_t>(whole.size());
      }
    }
  }
  // Not vacuous: octs whose buffer sets cells, balance stores.
  EXPECT_GT(octs_setting, 0);
  EXPECT_GT(balance_sets, 0);
  std::cerr << octs_setting << " octs whose buffer sets cells, " << balance_sets
            << " balance stores: slot parts = whole-oct bodies\n";
}

TEST(Amr, amr_flags_slot_parts_report_an_unbalanced_tree) {
  // The hand-made three-level tree with every cell flagged: the whole-oct balance fails on some
  // level-2 oct, and so must the union of its slot parts (the device's error word).
  const OctMesh base = build_mesh({8, 8, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  const amr::Tree t = unbalanced_tree(base, 3);
  const amr::PlanView v = amr::plan_view(t);
  const std::vector<char> all(t.noct() * 8, 1);
  int broken = 0;
  for (std::int64_t o = t.level_begin[1]; o < t.noct(); ++o) {
    const bool ok = amr::flags_balance_oct(v, all.data(), o, [](long long) {});
    bool ok_parts = true;
    for (int q = 0; q < 27; ++q) ok_parts = amr::flags_balance_slot(v, all.data(), o, q, [](long long) {}) && ok_parts;
    EXPECT_EQ(ok_parts, ok) << "oct " << o;
    broken += !ok;
  }
  EXPECT_GT(broken, 0);
}

// The regrid bodies the device runs with more threads (a cheaper device regrid): the
// per-cell lists bodies (a lane per cell, amr_lists_body.hpp) and the per-(oct, face) neighbour
// body of the one-launch link (amr_rebuild_body.hpp). Each is called here in an order no per-oct
// or per-level loop would take (cells outer, octs inner, from the last oct and face), as the
// lanes of a launch may run, and must give the host's tables: build_step_lists's lists, the
// linked tree's neighbours. (The per-(row, source) body runs in emulate_device_rebuild, which
// test_amr_device_emulation.cpp compares with rebuild_tree's map.)
TEST(Amr, amr_lists_per_cell_bodies_equal_host_lists) {
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::Tree t = case_tree(c, base);
    SCOPED_TRACE(case_label(c));
    const amr::StepLists host = amr::build_step_lists(t);
    const amr::TreeView v = amr::tree_view(t);
    const std::int32_t* son = t.son.data();
    const long long n = t.noct(), ncoarse = t.level_begin[t.max_level];
    // Pass 1 by cells: the leaf flag and face mask of an oct are the OR of its cells', and a
    // cell's bits lie in its own window 6 c .. 6 c + 5 (so the OR of the lanes loses nothing).
    std::vector<long long> leaf_scan(n + 1, 0), face_scan(n + 1, 0);
    std::vector<std::uint64_t> face_mask(ncoarse, 0);
    long long masked_cells = 0;
    for (int cell = 7; cell >= 0; --cell)
      for (long long o = n - 1; o >= 0; --o) {
        leaf_scan[o] |= amr::lists_cell_is_leaf(son, o, cell);
        if (o >= ncoarse) continue;
        const std::uint64_t m = amr::lists_cell_face_mask(v, son, o, cell);
        ASSERT_EQ(m & ~(std::uint64_t(63) << (6 * cell)), 0u) << "oct " << o << " cell " << cell;
        masked_cells += m != 0;
        face_mask[o] |= m;
      }
    for (long long o = 0; o < ncoarse; ++o) face_scan[o] = amr::lists_popcount(face_mask[o]);
    amr::exclusive_scan(leaf_scan);
    amr::exclusive_scan(face_scan);
    EXPECT_GT(masked_cells, 0);
    // Pass 2 by cells in the same scrambled order; the scans one length (n + 1), as the device's
    // pair scan has them.
    amr::StepLists dev;
    dev.leaf_octs.assign(leaf_scan[n], -1);
    dev.faces.assign(face_scan[n], amr::RefluxFace{-1, -1, -1});
    for (int cell = 7; cell >= 0; --cell)
      for (long long o = n - 1; o >= 0; --o)
        amr::lists_fill_cell(v, son, o, cell, ncoarse, leaf_scan.data(), face_scan.data(), face_mask.data(),
                             dev.leaf_octs.data(), dev.faces.data());
    EXPECT_EQ(face_scan[n], face_scan[ncoarse]);
    expect_same_device_lists(dev, host);
    std::cerr << c.problem << " bc " << int(c.bc) << ": " << dev.leaf_octs.size() << " leaf octs, " << dev.faces.size()
              << " reflux faces from " << masked_cells << " cells: per-cell lists = host lists\n";
  }
}

TEST(Amr, amr_link_per_face_body_equals_linked_tree) {
  const auto loops = amr::make_serial_loops();
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    base = case_mesh(c);
    const amr::AmrResult r =
        amr::run_amr(copa::Backend::serial, base, case_config(c), case_amr(c, 2));
    for (const char* kind : {"none", "gradient", "everywhere", "derefine"}) {
      SCOPED_TRACE(case_label(c) + " flags " + kind);
      // "none": the run's tree; the others: rebuild_tree's tree, linked on the host.
      amr::Tree t = r.tree;
      if (std::string(kind) != "none") amr::rebuild_tree(t, rebuild_case_flags(r.tree, r.u, kind), 1 << 26, *loops);
      const amr::PlanView pv = amr::plan_view(t);
      long long self = 0, missing = 0;
      for (long long o = t.noct() - 1; o >= 0; --o)
        for (int f = 5; f >= 0; --f) {
          const std::int32_t nb = amr::rebuild_nbor_face(pv, o, f);
          ASSERT_EQ(nb, t.nbor[f][o]) << "oct " << o << " level " << int(t.level[o]) << " face " << f;
          self += nb == o;
          missing += nb < 0;
        }
      // Reflecting and outflow trees link domain faces to the oct itself; the run's adaptive
      // tree has fine octs next to coarser leaves (no same-level neighbour).
      if (c.bc != Boundary::periodic) {
        EXPECT_GT(self, 0);
      }
      if (std::string(kind) == "none") {
        EXPECT_GT(missing, 0);
      }
      std::cerr << c.problem << " bc " << int(c.bc) << " " << kind << ": " << t.noct() << " octs, " << self
                << " faces to self, " << missing << " absent: per-face link = linked tree\n";
    }
  }
}
