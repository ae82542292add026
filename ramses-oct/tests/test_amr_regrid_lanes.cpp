// The regrid bodies the device runs with more threads (issue 13, a cheaper device regrid): the
// per-cell lists bodies (a lane per cell, amr_lists_body.hpp) and the per-(oct, face) neighbour
// body of the one-launch link (amr_rebuild_body.hpp). Each is called here in an order no per-oct
// or per-level loop would take (cells outer, octs inner, from the last oct and face), as the
// lanes of a launch may run, and must give the host's tables: build_step_lists's lists, the
// linked tree's neighbours. (The per-(row, source) body runs in emulate_device_rebuild, which
// test_amr_device_rebuild.cpp compares with rebuild_tree's map.)
#include <iostream>
#include <string>

#include "amr/amr_driver.hpp"
#include "amr/amr_lists_body.hpp"
#include "amr/amr_plan.hpp"
#include "amr/amr_rebuild_body.hpp"
#include "copa/testing.hpp"
#include "test_amr_plan_cases.hpp"
#include "test_amr_plan_compare.hpp"
#include "test_amr_rebuild_compare.hpp"

using namespace ro;
using namespace ro::amr_test;

TEST(Amr, amr_lists_per_cell_bodies_equal_host_lists) {
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::Tree t = case_tree(c, base);
    SCOPED_TRACE(std::string(c.problem) + " bc " + std::to_string(int(c.bc)));
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
      SCOPED_TRACE(std::string(c.problem) + " bc " + std::to_string(int(c.bc)) + " flags " + kind);
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
