// The full-size AMR Sedov run (base 32^3 + 2 levels, t = 0.05): about 20 minutes on two CPU cores, so
// its own executable, labelled slow only (the CI runs the 16^3 + 1 level form in test_amr_leaf_update.cpp; the
// GPU runs this case as ramses-oct.gpu.amr-sedov-32-l2).
#include "amr/amr_driver.hpp"
#include "amr/amr_plan.hpp"
#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "test_amr_helpers.hpp"
#include "test_helpers.hpp"
#include "hydro/verification.hpp"

using namespace ro;
using namespace ro::amr_test;

TEST(Amr, amr_sedov_32_two_levels) {
  // The full-size run (slow): base 32^3 + 2 levels (128^3 finest), E = 1, t = 0.05, OpenMP.
  const OctMesh base = build_mesh({32, 32, 32}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  RunConfig cfg = amr_config("sedov", 0.05, 100000);
#if defined(COPA_HAVE_OPENMP)
  const copa::Backend b = copa::Backend::openmp;
#else
  const copa::Backend b = copa::Backend::serial;
#endif
  const auto r = amr::run_amr(b, base, cfg, amr_levels(2, "gradient", 2));
  const OctMesh fine = build_mesh({128, 128, 128}, base.bc);
  nlohmann::json extra;
  const copa::Verification v = reference_verdict(fine, cfg.problem, "minmod", amr::project_to_finest(r.tree, fine, r.u), r.t, extra);
  std::cerr << "sedov 32+2: radius error " << v.value << ", leaf cells " << r.tree.leaf_cells() << " of " << fine.ncell()
            << ", steps " << r.steps << "\n";
  EXPECT_TRUE(v.verified && v.passed);
  EXPECT_TRUE(r.tree.leaf_cells() < fine.ncell() / 4);
  EXPECT_TRUE(rel_change(r.final.mass, r.initial.mass) < 1e-12 && rel_change(r.final.energy, r.initial.energy) < 1e-12);
}

