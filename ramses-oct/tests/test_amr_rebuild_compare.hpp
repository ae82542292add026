// The flags a device rebuild test regrids with, and the field-by-field comparison of two rebuilt
// trees and maps (test_amr_device_emulation.cpp: the emulated device rebuild against rebuild_tree;
// test_amr_device_plan_gpu.cpp: the tree the GPU built, downloaded, against the host's).
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "amr/amr_regrid.hpp"
#include "amr/amr_tree.hpp"

namespace ro::amr_test {

// refinement_flags of a criterion kind on (t, u): "gradient" (thresholds 0.1), "band",
// "everywhere", "derefine" (gradient thresholds 0.5: most refined cells lose their sons) and
// "none" (every criterion byte 0: the whole tree derefines to level 0).
inline std::vector<char> rebuild_case_flags(const amr::Tree& t, const std::vector<double>& u, const std::string& kind) {
  const auto loops = amr::make_serial_loops();
  amr::RefineCriterion rc;
  rc.kind = kind == "band" || kind == "everywhere" ? kind : "gradient";
  if (kind == "derefine") rc.density = rc.pressure = 0.5;
  std::vector<char> crit;
  amr::criterion_flags(t, u, rc, 1.4, *loops, crit);
  if (kind == "none") crit.assign(crit.size(), 0);
  return amr::refinement_flags(t, crit, rc.buffer, *loops);
}

// The octs, their links and the map; the hashes by lookups (their slots may differ): every oct of
// a is found at its coordinates in both, and every coordinate of every level gives the same oct
// (or -1) in both. Returns the absent coordinates seen.
inline long long expect_same_rebuild(const amr::Tree& a, const amr::RegridMap& ma, const amr::Tree& b,
                                     const amr::RegridMap& mb) {
  EXPECT_EQ(a.level_begin, b.level_begin);
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(a.level, b.level);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(a.coord[k], b.coord[k]) << "axis " << k;
  EXPECT_EQ(a.father, b.father);
  EXPECT_EQ(a.son, b.son);
  for (int f = 0; f < 6; ++f) EXPECT_EQ(a.nbor[f], b.nbor[f]) << "face " << f;
  EXPECT_EQ(a.hash_begin, b.hash_begin);
  EXPECT_EQ(a.hash_shift, b.hash_shift);
  EXPECT_EQ(ma.old_noct, mb.old_noct);
  EXPECT_EQ(ma.source, mb.source);
  EXPECT_EQ(ma.src, mb.src);
  EXPECT_EQ(ma.flip, mb.flip);
  if (a.level_begin != b.level_begin || a.coord[0] != b.coord[0] || a.hash_begin != b.hash_begin) return 0;
  long long absent = 0;
  for (int l = 0; l <= a.max_level; ++l) {
    for (std::int64_t o = a.level_begin[l]; o < a.level_begin[l + 1]; ++o) {
      EXPECT_EQ(a.find_oct(l, a.coord[0][o], a.coord[1][o], a.coord[2][o]), o);
      EXPECT_EQ(b.find_oct(l, a.coord[0][o], a.coord[1][o], a.coord[2][o]), o);
    }
    for (int z = 0; z < a.cells_at(l, 2) / 2; ++z)
      for (int y = 0; y < a.cells_at(l, 1) / 2; ++y)
        for (int x = 0; x < a.cells_at(l, 0) / 2; ++x) {
          const std::int32_t want = b.find_oct(l, x, y, z);
          if (a.find_oct(l, x, y, z) != want) {
            ADD_FAILURE() << "level " << l << " oct coordinates " << x << "," << y << "," << z;
            return absent;
          }
          absent += want < 0;
        }
  }
  return absent;
}

}  // namespace ro::amr_test
