// Field-by-field comparison of two GPU step plans (test_amr_regrid.cpp: parallel against
// serial; test_amr_device_emulation.cpp: the device plan's emulation against the host plan) and of the
// parts of two step lists the device builds, leaf octs and reflux faces (the device lists, emulated
// or downloaded, against the host's; the parallel lists against the serial ones); and two states or
// fine-flux buffers of emulated steps, per value (test_amr_leaf_update.cpp).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "amr/amr_plan.hpp"

namespace ro::amr_test {

// The largest difference of a state (nvar blocks of stride values) from another, per variable
// relative to that variable's largest magnitude in b.
inline double state_difference(const std::vector<double>& a, const std::vector<double>& b, std::size_t stride) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (std::size_t f = 0; f * stride < b.size(); ++f) {
    double scale = 0, diff = 0;
    for (std::size_t k = f * stride; k < (f + 1) * stride; ++k) {
      scale = std::max(scale, std::fabs(b[k]));
      diff = std::max(diff, std::fabs(a[k] - b[k]));
    }
    if (scale > 0) worst = std::max(worst, diff / scale);
  }
  return worst;
}

// The fine-flux buffers: the same entries written (non-zero) and the values as state_difference.
inline double flux_difference(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double scale = 0, diff = 0;
  long long written_differently = 0;
  for (std::size_t k = 0; k < b.size(); ++k) {
    written_differently += (a[k] != 0) != (b[k] != 0);
    scale = std::max(scale, std::fabs(b[k]));
    diff = std::max(diff, std::fabs(a[k] - b[k]));
  }
  EXPECT_EQ(written_differently, 0);
  return scale > 0 ? diff / scale : diff;
}

inline void expect_same_plan(const amr::StepPlan& a, const amr::StepPlan& b) {
  EXPECT_EQ(a.leaf_octs, b.leaf_octs);
  EXPECT_EQ(a.slots, b.slots);
  EXPECT_EQ(a.edges, b.edges);
  EXPECT_EQ(a.skip, b.skip);
  EXPECT_EQ(a.keep, b.keep);
  EXPECT_EQ(a.head, b.head);
  EXPECT_EQ(a.ghost_src, b.ghost_src);
  EXPECT_EQ(a.ghost_flip, b.ghost_flip);
  EXPECT_EQ(a.ghost_begin, b.ghost_begin);
  EXPECT_EQ(a.singles, b.singles);
  EXPECT_EQ(a.groups, b.groups);
  EXPECT_EQ(a.group_members, b.group_members);
  EXPECT_EQ(a.group_edges, b.group_edges);
  EXPECT_EQ(a.group_slots, b.group_slots);
  EXPECT_EQ(a.restrict_cell, b.restrict_cell);
  EXPECT_EQ(a.restrict_son, b.restrict_son);
  EXPECT_EQ(a.restrict_begin, b.restrict_begin);
}

inline void expect_same_device_lists(const amr::StepLists& a, const amr::StepLists& b) {
  EXPECT_EQ(a.leaf_octs, b.leaf_octs);
  ASSERT_EQ(a.faces.size(), b.faces.size());
  for (std::size_t k = 0; k < b.faces.size(); ++k) {
    EXPECT_EQ(a.faces[k].cell, b.faces[k].cell) << "face " << k;
    EXPECT_EQ(a.faces[k].face, b.faces[k].face) << "face " << k;
    EXPECT_EQ(a.faces[k].fine_oct, b.faces[k].fine_oct) << "face " << k;
  }
}

}  // namespace ro::amr_test
