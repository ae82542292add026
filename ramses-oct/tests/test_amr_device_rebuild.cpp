// The tree rebuild and link built as the device builds them (issue 13, regrid on the GPU): the
// passes of emulate_device_rebuild (the kernels' order, the bodies of amr_rebuild_body.hpp, host
// exclusive scans where the device runs CUB scans) must give rebuild_tree's tree (keys, levels,
// coordinates, level_begin, father, son, neighbours, hash by lookups) and map (source, src, flip)
// on the device plan tests' trees, with refining, derefining and mixed flags; and refuse a tree
// over --max-octs as rebuild_tree does.
#include <iostream>
#include <string>

#include "amr/amr_driver.hpp"
#include "amr/amr_rebuild.hpp"
#include "copa/errors.hpp"
#include "copa/testing.hpp"
#include "test_amr_plan_cases.hpp"
#include "test_amr_rebuild_compare.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

amr::AmrResult case_run(const PlanCase& c, OctMesh& base) {
  base = case_mesh(c);
  return amr::run_amr(copa::Backend::serial, base, case_config(c), case_amr(c, 2));
}

}  // namespace

TEST(Amr, amr_device_rebuild_emulated_equals_host_rebuild) {
  const auto loops = amr::make_serial_loops();
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::AmrResult r = case_run(c, base);
    for (const char* kind : {"gradient", "band", "everywhere", "derefine", "none"}) {
      SCOPED_TRACE(std::string(c.problem) + " bc " + std::to_string(int(c.bc)) + " flags " + kind);
      const std::vector<char> flag = rebuild_case_flags(r.tree, r.u, kind);
      amr::Tree host = r.tree;
      const amr::RegridMap hm = amr::rebuild_tree(host, flag, 1 << 26, *loops);
      amr::Tree dev;
      amr::RegridMap dm;
      amr::emulate_device_rebuild(r.tree, flag, 1 << 26, dev, dm);
      EXPECT_EQ(amr::check_father_son(dev), "");
      // Every coordinate of every level was looked up: the octs found, the others absent.
      const long long absent = expect_same_rebuild(dev, dm, host, hm);
      long long coordinates = 0;
      for (int l = 0; l <= dev.max_level; ++l)
        coordinates += 1LL * dev.cells_at(l, 0) / 2 * (dev.cells_at(l, 1) / 2) * (dev.cells_at(l, 2) / 2);
      EXPECT_EQ(absent + dev.noct(), coordinates);
      std::cerr << c.problem << " bc " << int(c.bc) << " " << kind << ": " << r.tree.noct() << " -> " << dev.noct()
                << " octs, " << dm.src.size() / 7 << " created, " << absent
                << " absent coordinates looked up: device rebuild = host rebuild\n";
    }
  }
}

TEST(Amr, amr_device_rebuild_refuses_over_max_octs) {
  // The limit one below the new tree's size is refused before anything is built (the message
  // of rebuild_tree); the size itself is accepted.
  const auto loops = amr::make_serial_loops();
  OctMesh base;
  const amr::AmrResult r = case_run(plan_cases[0], base);
  const std::vector<char> flag = rebuild_case_flags(r.tree, r.u, "everywhere");
  amr::Tree host = r.tree;
  amr::rebuild_tree(host, flag, 1 << 26, *loops);
  ASSERT_GT(host.noct(), r.tree.noct());
  amr::Tree dev;
  amr::RegridMap dm;
  try {
    amr::emulate_device_rebuild(r.tree, flag, host.noct() - 1, dev, dm);
    ADD_FAILURE() << "no refusal";
  } catch (const copa::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("--max-octs " + std::to_string(host.noct() - 1)), std::string::npos) << e.what();
  }
  EXPECT_TRUE(dev.key.empty());
  amr::Tree host_refused = r.tree;
  EXPECT_THROW(amr::rebuild_tree(host_refused, flag, host.noct() - 1, *loops), copa::RuntimeError);
  amr::emulate_device_rebuild(r.tree, flag, host.noct(), dev, dm);
  EXPECT_EQ(dev.noct(), host.noct());
}
