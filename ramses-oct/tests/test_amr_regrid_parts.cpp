// The regrid's parts that issue 13's GPU regrid work rebuilt: the step lists and the GPU step plan
// built in parallel and in place (reused vectors) equal the serial build, field by field.
#include "amr_driver.hpp"
#include "amr_plan.hpp"
#include "copa/testing.hpp"
#include "test_amr_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

void expect_same_lists(const amr::StepLists& a, const amr::StepLists& b) {
  EXPECT_EQ(a.leaf_octs, b.leaf_octs);
  EXPECT_EQ(a.leaf_octs_begin, b.leaf_octs_begin);
  EXPECT_EQ(a.reflux_octs, b.reflux_octs);
  EXPECT_EQ(a.reflux_begin, b.reflux_begin);
  ASSERT_EQ(a.faces.size(), b.faces.size());
  for (std::size_t i = 0; i < a.faces.size(); ++i) {
    EXPECT_EQ(a.faces[i].cell, b.faces[i].cell);
    EXPECT_EQ(a.faces[i].face, b.faces[i].face);
    EXPECT_EQ(a.faces[i].fine_oct, b.faces[i].fine_oct);
  }
}

void expect_same_plan(const amr::StepPlan& a, const amr::StepPlan& b) {
  EXPECT_EQ(a.leaf_octs, b.leaf_octs);
  EXPECT_EQ(a.slots, b.slots);
  EXPECT_EQ(a.edges, b.edges);
  EXPECT_EQ(a.skip, b.skip);
  EXPECT_EQ(a.keep, b.keep);
  EXPECT_EQ(a.ghost_src, b.ghost_src);
  EXPECT_EQ(a.ghost_flip, b.ghost_flip);
  EXPECT_EQ(a.ghost_begin, b.ghost_begin);
  EXPECT_EQ(a.restrict_cell, b.restrict_cell);
  EXPECT_EQ(a.restrict_son, b.restrict_son);
  EXPECT_EQ(a.restrict_begin, b.restrict_begin);
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
    EXPECT_FALSE(serial_lists.faces.empty());
    EXPECT_EQ(serial_plan.ghost_begin.back() * 7, static_cast<std::int64_t>(serial_plan.ghost_src.size()));
    amr::build_step_lists(r.tree, *loops, lists);
    amr::build_step_plan(r.tree, lists, true, *loops, plan);
    expect_same_lists(lists, serial_lists);
    expect_same_plan(plan, serial_plan);
  }
}
