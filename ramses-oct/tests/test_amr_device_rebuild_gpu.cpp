// The tree rebuilt and linked on the GPU (the regrid on the GPU; amr_rebuild_body.hpp),
// downloaded, must equal rebuild_tree's tree and map field by field (the hash by lookups: the
// device claims its slots by atomicCAS, so its layout may differ), on the device plan tests'
// trees with refining, derefining and mixed flags; the state moved through the device map equals
// the host's move to round-off, the leaf cells per level counted on the device equal the host's,
// and a tree over --max-octs is refused before it is built. gpu label: CUDA or HIP builds.
#include <iostream>
#include <string>

#include "amr/amr_driver.hpp"
#include "amr/amr_gpu.hpp"
#include "copa/errors.hpp"
#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "test_amr_plan_cases.hpp"
#include "test_amr_rebuild_compare.hpp"

using namespace ro;
using namespace ro::amr_test;

TEST(Amr, amr_device_rebuild_on_the_gpu_equals_host_rebuild) {
  const auto loops = amr::make_serial_loops();
  long rebuilt = 0;
  for (const PlanCase& c : plan_cases) {
    const OctMesh base = case_mesh(c);
    const RunConfig cfg = case_config(c);
    const amr::AmrResult r = amr::run_amr(copa::Backend::serial, base, cfg, case_amr(c, 2));
    for (const char* kind : {"gradient", "band", "everywhere", "derefine", "none"}) {
      SCOPED_TRACE(case_label(c) + " flags " + kind);
      const std::vector<char> flag = rebuild_case_flags(r.tree, r.u, kind);
      amr::Tree host = r.tree;
      const amr::RegridMap hm = amr::rebuild_tree(host, flag, 1 << 26, *loops);
      std::vector<double> hu;
      amr::move_state(hm, r.u, cfg.hydro.gamma, *loops, hu);
      const auto gpu = amr::make_gpu_amr_step(cfg.hydro, true);
      gpu->upload(r.tree, r.u);
      gpu->upload_flags(flag);
      const bool changed = gpu->rebuild(1 << 26);
      ASSERT_EQ(changed, !hm.unchanged());
      if (!changed) continue;
      gpu->link();
      amr::RegridMap dm;
      gpu->download_map(dm);
      gpu->adopt();
      amr::Tree dev;
      dev.base = &base;
      gpu->download_tree(dev);
      EXPECT_EQ(amr::check_father_son(dev), "");
      const long long absent = expect_same_rebuild(dev, dm, host, hm);
      EXPECT_EQ(gpu->level_begin(), host.level_begin);
      EXPECT_EQ(gpu->leaf_cells_per_level(), host.leaf_cells_per_level());
      std::vector<double> du;
      gpu->download(du);
      ASSERT_EQ(du.size(), hu.size());
      const double l2 = relative_l2(du, hu);
      EXPECT_LT(l2, 1e-13);
      ++rebuilt;
      std::cerr << c.problem << " bc " << int(c.bc) << " " << kind << ": " << r.tree.noct() << " -> " << dev.noct()
                << " octs, " << dm.src.size() / 7 << " created, " << absent
                << " absent coordinates: GPU rebuild = host rebuild; moved state relative L2 " << l2 << "\n";
    }
  }
  EXPECT_GT(rebuilt, 15);  // of 30 (case, flags): the others keep their tree
}

TEST(Amr, amr_device_rebuild_on_the_gpu_refuses_over_max_octs) {
  const auto loops = amr::make_serial_loops();
  const PlanCase& c = plan_cases[0];
  const OctMesh base = case_mesh(c);
  const RunConfig cfg = case_config(c);
  const amr::AmrResult r = amr::run_amr(copa::Backend::serial, base, cfg, case_amr(c, 2));
  const std::vector<char> flag = rebuild_case_flags(r.tree, r.u, "everywhere");
  amr::Tree host = r.tree;
  amr::rebuild_tree(host, flag, 1 << 26, *loops);
  const auto gpu = amr::make_gpu_amr_step(cfg.hydro, true);
  gpu->upload(r.tree, r.u);
  gpu->upload_flags(flag);
  EXPECT_THROW(gpu->rebuild(host.noct() - 1), copa::RuntimeError);
  // The refused rebuild left the current tree as it was.
  EXPECT_EQ(gpu->level_begin(), r.tree.level_begin);
  EXPECT_TRUE(gpu->rebuild(host.noct()));
}
