// What the device dt's cpu (emulated step) and gpu tests share: bitwise comparison, the same-run
// checks of a device-dt run against its host-dt run, and the bad-cell set-up and its report.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "amr/amr_driver.hpp"
#include "copa/errors.hpp"
#include "test_amr_helpers.hpp"

namespace ro::amr_test {

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A device-dt run against its host-dt run: the same tree, state and time bit for bit, the same
// steps, regrids and update counts.
inline void expect_same_run(const amr::AmrResult& device, const amr::AmrResult& host) {
  EXPECT_TRUE(device.tree.key == host.tree.key);
  EXPECT_TRUE(same_bits(device.u, host.u));
  EXPECT_TRUE(same_bits(device.t, host.t)) << device.t << " against " << host.t;
  EXPECT_EQ(device.steps, host.steps);
  EXPECT_EQ(device.regrids, host.regrids);
  EXPECT_EQ(device.leaf_cell_updates, host.leaf_cell_updates);
  EXPECT_EQ(device.leaf_oct_updates, host.leaf_oct_updates);
  EXPECT_EQ(device.grouped_oct_updates, host.grouped_oct_updates);
}

// A negative pressure in the last leaf cell (of the finest level that has octs).
inline void put_bad_cell(const amr::Tree& t, std::vector<double>& u) {
  const std::int64_t stride = t.noct() * 8;
  for (std::int64_t g = stride - 1; g >= 0; --g)
    if (t.son[g] < 0) {
      u[4 * stride + g] = -1.0;  // E < kinetic energy: p < 0
      return;
    }
}

// Sedov 8^3 + 2 levels (a regrid every 2 steps, at most 4) whose initial state holds put_bad_cell's
// cell: both dt paths must stop before the first step with the same report.
struct BadCellCase {
  OctMesh base = build_mesh({8, 8, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  RunConfig cfg = amr_config("sedov", 1.0, 4);
  amr::AmrConfig ac = amr_levels(2, "gradient", 2);
  BadCellCase() {
    ac.set_state = [](const amr::Tree& t, std::vector<double>& u) { put_bad_cell(t, u); };
  }
};

inline void expect_bad_cell_report_as_host(const std::string& device, const std::string& host) {
  EXPECT_NE(host.find("non-physical state after step 0"), std::string::npos) << host;
  EXPECT_EQ(device, host);
}

// The message a run stops with (exit 3's RuntimeError), or "(no error)".
inline std::string run_error(const OctMesh& base, const RunConfig& cfg, const amr::AmrConfig& ac) {
  try {
    amr::run_amr(copa::Backend::serial, base, cfg, ac);
  } catch (const copa::RuntimeError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace ro::amr_test
