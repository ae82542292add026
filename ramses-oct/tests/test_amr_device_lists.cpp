// The step lists built on the device (issue 13, regrid on the GPU): the device passes run on the
// host in the kernels' order through the same bodies (emulate_device_lists: per-oct flags and face
// masks, exclusive scans where the device runs CUB scans, the fill) must give the host lists
// (build_step_lists: its serial prefix sums) field by field on the device plan tests' trees.
#include <iostream>
#include <string>

#include "amr/amr_plan.hpp"
#include "copa/testing.hpp"
#include "test_amr_plan_cases.hpp"
#include "test_amr_plan_compare.hpp"

using namespace ro;
using namespace ro::amr_test;

TEST(Amr, amr_device_lists_emulated_equal_host_lists) {
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::Tree t = case_tree(c, base);
    const amr::StepLists host = amr::build_step_lists(t);
    amr::StepLists dev;
    amr::emulate_device_lists(t, dev);
    SCOPED_TRACE(std::string(c.problem) + " bc " + std::to_string(int(c.bc)));
    ASSERT_FALSE(host.faces.empty());
    EXPECT_EQ(dev.leaf_octs_begin, host.leaf_octs_begin);
    expect_same_device_lists(dev, host);
    std::cerr << c.problem << " bc " << int(c.bc) << ": " << host.leaf_octs.size() << " leaf octs, "
              << host.faces.size() << " reflux faces: device lists = host lists\n";
  }
}
