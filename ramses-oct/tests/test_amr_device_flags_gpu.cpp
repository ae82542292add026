// The refinement flags computed on the GPU (DeviceStep::criterion, then refinement_flags), copied
// back by the download_flags hook, must equal the host regrid's byte for byte on the device plan
// tests' trees and states, for every criterion kind, and an unbalanced tree must throw the host's
// message. gpu label: CUDA or HIP builds. (The gradient criterion reads the same state on both
// sides; a jump within an ulp of the threshold could in principle differ by FMA contraction: the
// test prints the number of differing bytes per case.)
#include <cstdint>
#include <iostream>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "amr/amr_gpu.hpp"
#include "copa/testing.hpp"
#include "test_amr_flags_cases.hpp"

using namespace ro;
using namespace ro::amr_test;

TEST(Amr, amr_device_flags_on_the_gpu_equal_host_flags) {
  long compared = 0;
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::AmrResult r = case_run(c, base);
    const HydroParams hp;
    const auto gpu = amr::make_gpu_amr_step(hp, true);
    gpu->upload(r.tree, r.u);
    // Twice through the kinds: the device arrays are reused, the error word reset.
    for (int round = 0; round < 2; ++round)
      for (const char* kind : criterion_kinds) {
        SCOPED_TRACE(case_label(c) + " " + kind);
        const amr::RefineCriterion rc = criterion_of(kind);
        std::vector<char> crit, flag;
        const std::vector<char> host = host_flags(r.tree, r.u, rc, hp.gamma, crit);
        gpu->criterion(rc, hp.gamma);
        gpu->refinement_flags();
        gpu->download_flags(flag);
        ASSERT_EQ(flag.size(), host.size());
        std::int64_t differ = 0, flagged = 0;
        for (std::size_t g = 0; g < host.size(); ++g) {
          differ += flag[g] != host[g];
          flagged += host[g];
        }
        EXPECT_EQ(differ, 0);
        EXPECT_GT(flagged, 0);
        ++compared;
        if (round == 0)
          std::cerr << c.problem << " bc " << int(c.bc) << " " << kind << ": " << flagged << " flagged cells, " << differ
                    << " differ from the host's\n";
      }
  }
  EXPECT_EQ(compared, 2 * 3 * static_cast<long>(std::size(plan_cases)));
}

TEST(Amr, amr_device_flags_on_the_gpu_report_an_unbalanced_tree) {
  const OctMesh base = build_mesh({8, 8, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  const ProblemParams pp = amr_config("sedov", 1.0, 1).problem;
  const HydroParams hp;
  for (const int levels : {2, 3}) {
    const char* kind = levels == 2 ? "gradient" : "everywhere";
    SCOPED_TRACE(kind);
    const amr::Tree t = unbalanced_tree(base, levels);
    std::vector<double> u;
    amr::initial_state(t, pp, u);
    const amr::RefineCriterion rc = criterion_of(kind);
    std::vector<char> crit, flag;
    const std::string host = thrown_message([&] { host_flags(t, u, rc, hp.gamma, crit); });
    const auto gpu = amr::make_gpu_amr_step(hp, true);
    gpu->upload(t, u);
    gpu->criterion(rc, hp.gamma);
    // The error word comes up with the rebuild's counts (GpuAmrStep::rebuild), which throws.
    const std::string dev = thrown_message([&] {
      gpu->refinement_flags();
      gpu->rebuild(std::numeric_limits<std::int64_t>::max());
    });
    EXPECT_FALSE(host.empty());
    EXPECT_EQ(dev, host);
    std::cerr << kind << " on the unbalanced tree of " << levels << " levels: the GPU threw \"" << dev << "\"\n";
  }
}
