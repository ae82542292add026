// AMR specification, device = host emulation: the device step's bodies, layouts and launch
// premises checked on the host, and the device paths (flags, lists, plan, rebuild, dt, scan,
// subcycling) run on the host in the kernels' order equal the host build and the serial oracle.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "amr/amr_clock.hpp"
#include "amr/amr_driver.hpp"
#include "amr/amr_flags_body.hpp"
#include "amr/amr_interp.hpp"
#include "amr/amr_leaf_block.hpp"
#include "amr/amr_plan.hpp"
#include "amr/amr_rebuild.hpp"
#include "amr/amr_regrid_body.hpp"
#include "copa/errors.hpp"
#include "copa/testing.hpp"
#include "hydro/reference.hpp"
#include "hydro/verification.hpp"
#include "test_amr_device_dt_cases.hpp"
#include "test_amr_emulated_step.hpp"
#include "test_amr_flags_cases.hpp"
#include "test_amr_helpers.hpp"
#include "test_amr_plan_cases.hpp"
#include "test_amr_plan_compare.hpp"
#include "test_amr_rebuild_compare.hpp"
#include "test_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;

// The GPU step's bodies emulated on the host against serial.
TEST(Amr, amr_gpu_body_emulation_equals_serial) {
  // The GPU step's body (amr_leaf_block.hpp) and its plan, run on the host, against the oracle's
  // step on the same trees: Sedov periodic on three levels and Sod reflecting (HLLC, MC) on two,
  // taken after some steps with regrids (ghost slots, reflux faces and boundaries all present).
  // The plan with sibling groups (4^3 blocks) and without (every leaf oct alone) must give the
  // same state to round-off: a group does each face's and each predictor cell's operations as its
  // octs would, bit for bit where the host compiler contracts no multiply-add; with FMA
  // contraction (-march=native on an FMA host, as the cuda preset on the H200 machine) the two
  // template instantiations (unit 2 and 4) may contract differently: 3827 of 46720 Sedov values
  // differed there in their last bits.
  struct Case {
    const char* problem;
    std::array<int, 3> base;
    Boundary bc;
    int levels, slope, riemann;
    double tend;
  };
  const Case cases[] = {{"sedov", {8, 8, 8}, Boundary::periodic, 2, 1, riemann_hll, 0.01},
                        {"sod", {32, 4, 4}, Boundary::reflecting, 1, 2, riemann_hllc, 0.05}};
  for (const Case& c : cases) {
    const OctMesh base = build_mesh(c.base, {c.bc, c.bc, c.bc});
    RunConfig cfg = amr_config(c.problem, c.tend, 100000, c.slope);
    cfg.hydro.riemann = c.riemann;
    amr::AmrResult r = amr::run_amr(copa::Backend::serial, base, cfg, amr_levels(c.levels, "gradient", 2));
    const amr::StepLists lists = amr::build_step_lists(r.tree);
    const amr::StepPlan plan = amr::build_step_plan(r.tree, lists, true);
    const amr::StepPlan per_oct = amr::build_step_plan(r.tree, lists, true, 0);
    EXPECT_TRUE(!plan.ghost_flip.empty() && !lists.faces.empty());
    EXPECT_FALSE(plan.groups.empty());
    const auto loops = amr::make_serial_loops();
    amr::Stepper stepper(*loops, cfg.hydro, true);
    std::vector<double> u = r.u, v = r.u, w = r.u, unew = r.u, vnew, wnew;
    for (int s = 0; s < 4; ++s) {
      const double dt = amr::cfl_dt(r.tree, amr::scan_leaves(r.tree, u, cfg.hydro.gamma, *loops), cfg.courant);
      stepper.update(r.tree, lists, u, unew, dt);
      stepper.reflux(r.tree, lists, unew, dt);
      amr::restrict_all(r.tree, unew, *loops);
      u.swap(unew);
      amr::emulate_plan_step(r.tree, plan, lists, cfg.hydro, true, v, vnew, dt);
      v.swap(vnew);
      amr::emulate_plan_step(r.tree, per_oct, lists, cfg.hydro, true, w, wnew, dt);
      w.swap(wnew);
    }
    const double l2 = relative_l2(v, u), l2_groups = relative_l2(v, w);
    std::size_t differ = 0;
    for (std::size_t k = 0; k < v.size(); ++k) differ += v[k] != w[k];
    std::cerr << c.problem << ": emulated GPU step vs oracle, relative L2 " << l2 << " (" << plan.ghost_flip.size() / 7
              << " ghost slots, " << lists.faces.size() << " reflux faces, " << plan.groups.size() << " groups and "
              << plan.singles.size() << " single octs of " << lists.leaf_octs.size() << "); groups vs per oct: "
              << differ << " values differ, relative L2 " << l2_groups << "\n";
    EXPECT_TRUE(l2 < 1e-12);
    EXPECT_LT(l2_groups, 1e-14);
    EXPECT_TRUE(u != r.u);
  }
}

// The index maps of the GPU AMR step's leaf block (amr_leaf_block.hpp) and its dt scan, checked
// on the host: the compact gather list is exactly the subgrid cells the predictor reads, the
// predictor index inverts predictor_cell, and the scan's per-cell body maximised as bits gives
// the oracle's per-level speeds (to an ulp of FMA contraction) and its bad cell.
namespace block = ro::amr::block;

namespace {

// For a unit of T^3 cells: every gathered cell once, its index its position in the list, never in
// a corner oct slot (those get no ghost), and the cells the predictor reads (each predictor cell
// and its six face neighbours) exactly the gathered ones.
template <int T>
void expect_gather_list_is_predictor_stencil() {
  using U = block::Unit<T>;
  std::set<int> gathered;
  const int S = T + 4;
  for (int m = 0; m < U::Q; ++m) {
    int tc[3];
    block::gather_cell<T>(m, tc);
    for (int d = 0; d < 3; ++d) ASSERT_TRUE(tc[d] >= 0 && tc[d] < S) << "T " << T << " m " << m;
    EXPECT_EQ(block::gather_index<T>(tc), m) << "T " << T;
    int outside = 0;
    for (int d = 0; d < 3; ++d) outside += tc[d] / 2 == 0 || tc[d] / 2 == U::S - 1;
    EXPECT_LT(outside, 3) << "T " << T << " m " << m;
    gathered.insert(tc[0] + S * (tc[1] + S * tc[2]));
  }
  EXPECT_EQ(gathered.size(), std::size_t(U::Q));
  std::set<int> read;
  ASSERT_EQ(predictor_cells(T), U::P);
  for (int m = 0; m < U::P; ++m) {
    int e[3];
    predictor_cell(m, T, e[0], e[1], e[2]);
    for (int n = 0; n < 7; ++n) {
      int tc[3] = {e[0] + 1, e[1] + 1, e[2] + 1};
      if (n > 0) tc[(n - 1) / 2] += (n - 1) % 2 ? 1 : -1;
      read.insert(tc[0] + S * (tc[1] + S * tc[2]));
    }
  }
  EXPECT_EQ(read, gathered);
}

}  // namespace

TEST(Amr, amr_gpu_leaf_block_index_maps) {
  for (const int T : {2, 4})
    for (int m = 0; m < predictor_cells(T); ++m) {
      int i, j, k;
      predictor_cell(m, T, i, j, k);
      EXPECT_EQ(predictor_index(i, j, k, T), m) << "T " << T << " m " << m;
    }
  expect_gather_list_is_predictor_stencil<2>();
  expect_gather_list_is_predictor_stencil<4>();
  // The oct unit's corner test is the plan's (amr::is_corner_slot).
  for (int m = 0; m < block::Q; ++m) {
    int tc[3];
    block::gather_cell<2>(m, tc);
    EXPECT_FALSE(amr::is_corner_slot(tc[0] / 2 + 3 * (tc[1] / 2) + 9 * (tc[2] / 2))) << m;
  }
  // The work per leaf cell the README quotes: per oct 80 gathered cells, 32 predictors and 36
  // faces; per sibling group 304, 160 and 240.
  EXPECT_EQ(block::Unit<2>::Q, 80);
  EXPECT_EQ(block::Unit<2>::P, 32);
  EXPECT_EQ(3 * block::Unit<2>::F, 36);
  EXPECT_EQ(block::Unit<4>::Q, 304);
  EXPECT_EQ(block::Unit<4>::P, 160);
  EXPECT_EQ(3 * block::Unit<4>::F, 240);
}

TEST(Amr, amr_gpu_group_slot_map) {
  // Group slot (4^3) -> member and its own slot (3^3): the member is the one nearest the slot, the
  // slot lies at the same place (member position + offset = group slot position), and exactly the
  // 8 corners have none.
  const std::int32_t members[8] = {10, 11, 12, 13, 14, 15, 16, 17};
  int corners = 0;
  for (int s = 0; s < 64; ++s) {
    std::int32_t member;
    int s27;
    const bool used = amr::group_slot_member(members, s, member, s27);
    const int gs[3] = {s % 4, (s / 4) % 4, s / 16};
    bool corner = true;
    for (int a = 0; a < 3; ++a) corner = corner && (gs[a] == 0 || gs[a] == 3);
    corners += corner;
    EXPECT_EQ(used, !corner) << s;
    if (!used) continue;
    const int m = member - 10, pos[3] = {m & 1, (m >> 1) & 1, m >> 2};
    const int off[3] = {s27 % 3 - 1, (s27 / 3) % 3 - 1, s27 / 9 - 1};
    for (int a = 0; a < 3; ++a) {
      EXPECT_EQ(1 + pos[a] + off[a], gs[a]) << "slot " << s << " axis " << a;
      // Inside the group the member is the slot itself (offset 0).
      if (gs[a] == 1 || gs[a] == 2) {
        EXPECT_EQ(off[a], 0) << s;
      }
    }
    EXPECT_FALSE(amr::is_corner_slot(s27)) << s;
  }
  EXPECT_EQ(corners, 8);
}

TEST(Amr, amr_gpu_groups_in_the_plan) {
  // Sedov on three levels (periodic, reflecting, outflow): the groups' members are 8 leaf octs of
  // one level at the aligned 2 x 2 x 2 block's coordinates; singles and groups cover the leaf
  // list once; a group's slot equals its member's slot in the per-oct plan, and its ghost slot
  // the same coarse cell and neighbours (so the same prolongation).
  for (const Boundary bc : {Boundary::periodic, Boundary::reflecting, Boundary::outflow}) {
    const OctMesh base = build_mesh({8, 8, 8}, {bc, bc, bc});
    const auto r = amr::run_amr(copa::Backend::serial, base, amr_config("sedov", 1.0, 6), amr_levels(3, "gradient", 2));
    const amr::Tree& t = r.tree;
    const amr::StepLists lists = amr::build_step_lists(t);
    const amr::StepPlan p = amr::build_step_plan(t, lists, true, 8);  // complete groups only
    const amr::StepPlan q = amr::build_step_plan(t, lists, true, 0);
    ASSERT_GT(p.groups.size(), 0u);
    ASSERT_EQ(q.groups.size(), 0u);
    EXPECT_EQ(q.singles.size(), lists.leaf_octs.size());
    std::vector<int> covered(lists.leaf_octs.size(), 0);
    for (const std::int32_t i : p.singles) ++covered[i];
    int groups_above_0 = 0;
    for (std::size_t k = 0; k < p.groups.size(); ++k) {
      const std::int32_t i0 = p.groups[k], o0 = lists.leaf_octs[i0];
      const int l = t.level[o0];
      groups_above_0 += l > 0;
      for (int m = 0; m < 8; ++m) {
        ++covered[i0 + m];
        const std::int32_t o = lists.leaf_octs[i0 + m];
        ASSERT_EQ(t.level[o], l);
        EXPECT_EQ(t.coord[0][o], t.coord[0][o0] + (m & 1));
        EXPECT_EQ(t.coord[1][o], t.coord[1][o0] + ((m >> 1) & 1));
        EXPECT_EQ(t.coord[2][o], t.coord[2][o0] + (m >> 2));
        if (l > 0) {
          EXPECT_EQ(t.father[o], t.father[o0] + m);  // siblings: the 8 sons of one oct
        }
      }
      for (int s = 0; s < 64; ++s) {
        std::int32_t member;
        int s27;
        const std::int32_t got = p.group_slots[64 * k + s];
        if (!amr::group_slot_member(&lists.leaf_octs[i0], s, member, s27)) {
          EXPECT_EQ(got, amr::no_slot);
          continue;
        }
        const std::size_t mi = std::find(lists.leaf_octs.begin(), lists.leaf_octs.end(), member) - lists.leaf_octs.begin();
        const std::int32_t want = q.slots[27 * mi + s27];
        if (want >= 0) {
          EXPECT_EQ(got, want) << "group " << k << " slot " << s;
        } else {
          ASSERT_LT(got, 0) << "group " << k << " slot " << s;
          ASSERT_NE(got, amr::no_slot);
          for (int n = 0; n < 7; ++n) {
            EXPECT_EQ(p.ghost_src[7 * (-1 - got) + n], q.ghost_src[7 * (-1 - want) + n]);
            EXPECT_EQ(p.ghost_flip[7 * (-1 - got) + n], q.ghost_flip[7 * (-1 - want) + n]);
          }
        }
      }
    }
    for (const int c : covered) EXPECT_EQ(c, 1);
    EXPECT_GT(groups_above_0, 0);
    std::cerr << "bc " << int(bc) << ": " << p.groups.size() << " groups (" << groups_above_0 << " above level 0), "
              << p.singles.size() << " single octs of " << lists.leaf_octs.size() << "; ghost slots "
              << p.ghost_flip.size() / 7 << " (per oct alone: " << q.ghost_flip.size() / 7 << ")\n";
  }
}

TEST(Amr, amr_gpu_scan_body_equals_oracle_scan) {
  // Sedov on three levels (reflecting) after some steps: per-level maxima and no bad cell; then a
  // leaf cell of each level made unphysical: the lowest of them is the bad cell in both.
  const OctMesh base = build_mesh({8, 8, 8}, {Boundary::reflecting, Boundary::reflecting, Boundary::reflecting});
  auto r = amr::run_amr(copa::Backend::serial, base, amr_config("sedov", 1.0, 6), amr_levels(3, "gradient", 2));
  const amr::Tree& t = r.tree;
  ASSERT_GT(t.octs_at(3), 0);
  const double gamma = 1.4;
  const auto loops = amr::make_serial_loops();
  for (int round = 0; round < 2; ++round) {
    const amr::LeafScan want = amr::scan_leaves(t, r.u, gamma, *loops);
    const amr::LeafScan got = amr::emulate_leaf_scan(t, r.u, gamma);
    ASSERT_EQ(got.max_speed.size(), want.max_speed.size());
    for (std::size_t l = 0; l < want.max_speed.size(); ++l) {
      EXPECT_GT(want.max_speed[l], 0.0);
      // The same formula; the oracle's loop is compiled elsewhere (vectorised), and FMA contraction
      // differs by an ulp there (seen: level 3, 2.8e-14 of 224.03), as between host and device.
      EXPECT_NEAR(got.max_speed[l], want.max_speed[l], 1e-14 * want.max_speed[l]) << "level " << l;
    }
    EXPECT_EQ(got.bad_cell, want.bad_cell);
    if (round == 0) {
      EXPECT_EQ(want.bad_cell, -1);
      // One leaf cell per level past the first made unphysical (negative density).
      for (int l = 1; l <= t.max_level; ++l)
        for (std::int64_t g = t.level_begin[l] * 8; g < t.level_begin[l + 1] * 8; ++g)
          if (t.son[g] < 0) {
            r.u[g] = -1.0;
            break;
          }
    } else {
      EXPECT_GE(want.bad_cell, t.level_begin[1] * 8);
    }
  }
}

// The leaf block's shared-memory layout tables (amr_leaf_layout.cpp): decoded through the tables
// alone, every phase reads exactly the items the index maps name (so the layout can only move
// items, never change what a phase computes), and the modelled bank conflicts of the chosen
// orders are below those of the index order. The emulation tests (in this file) check the bodies
// that read these tables against the oracle.
namespace block = ro::amr::block;

namespace {

std::array<int, 3> unpack(int packed) { return {packed & 15, (packed >> 4) & 15, packed >> 8}; }

template <int T>
void expect_layout_reads_the_index_maps(bool spread) {
  using U = block::Unit<T>;
  const block::LeafLayout<T> L = block::make_leaf_layout<T>(spread);
  // Gather: the slots hold every gathered cell once.
  std::set<std::array<int, 3>> want, got;
  for (int m = 0; m < U::Q; ++m) {
    int tc[3];
    block::gather_cell<T>(m, tc);
    want.insert({tc[0], tc[1], tc[2]});
    got.insert(unpack(L.gather[m]));
  }
  EXPECT_EQ(got, want) << "T " << T;
  // Predict: slot p's first read is a predictor cell (each once), the others its face neighbours.
  std::set<std::array<int, 3>> pred_want, pred_got;
  std::array<std::array<int, 3>, U::P> centre;
  for (int m = 0; m < U::P; ++m) {
    int e[3];
    predictor_cell(m, T, e[0], e[1], e[2]);
    pred_want.insert({e[0] + 1, e[1] + 1, e[2] + 1});
  }
  for (int p = 0; p < U::P; ++p) {
    const auto c = unpack(L.gather[L.predict[p].at(0)]);
    centre[p] = c;
    pred_got.insert(c);
    for (int x = 0; x < 3; ++x)
      for (int side = 0; side < 2; ++side) {
        auto n = c;
        n[x] += side ? 1 : -1;
        EXPECT_EQ(unpack(L.gather[L.predict[p].at(1 + 2 * x + side)]), n) << "T " << T << " slot " << p;
      }
  }
  EXPECT_EQ(pred_got, pred_want) << "T " << T;
  // Fluxes: slot t of axis x joins two predictor cells one apart along x; per axis every face of
  // the (T + 1) x T x T faces once, and face_slot names the same slot.
  for (int x = 0; x < 3; ++x) {
    std::set<std::array<int, 3>> faces;
    for (int t = x * U::F; t < (x + 1) * U::F; ++t) {
      const auto l = centre[L.face[t] & 0xffffu], r = centre[L.face[t] >> 16];
      auto step = l;
      step[x] += 1;
      EXPECT_EQ(r, step) << "T " << T << " flux slot " << t;
      faces.insert(r);
      const int nx = x == 0 ? T + 1 : T, ny = x == 1 ? T + 1 : T;
      const int face = (r[0] - 2) + nx * ((r[1] - 2) + ny * (r[2] - 2));  // right cell - 2 = the face's (i, j, k)
      EXPECT_EQ(L.face_slot[x * U::F + face], t - x * U::F) << "T " << T << " axis " << x;
    }
    EXPECT_EQ(faces.size(), std::size_t(U::F)) << "T " << T << " axis " << x;
  }
  // Update: unit cell j's low face has j as its right cell, its high face as its left cell.
  for (int j = 0; j < T * T * T; ++j) {
    const std::array<int, 3> cell{2 + j % T, 2 + (j / T) % T, 2 + j / (T * T)};
    for (int x = 0; x < 3; ++x) {
      const std::uint32_t lo = L.face[x * U::F + L.cell[j].at(2 * x)], hi = L.face[x * U::F + L.cell[j].at(2 * x + 1)];
      EXPECT_EQ(centre[lo >> 16], cell) << "T " << T << " cell " << j << " axis " << x;
      EXPECT_EQ(centre[hi & 0xffffu], cell) << "T " << T << " cell " << j << " axis " << x;
    }
  }
}

}  // namespace

TEST(Amr, amr_gpu_leaf_layout_reads_the_index_maps) {
  for (const bool spread : {false, true}) {
    expect_layout_reads_the_index_maps<2>(spread);
    expect_layout_reads_the_index_maps<4>(spread);
  }
}

TEST(Amr, amr_gpu_leaf_layout_spreads_the_banks) {
  // The model of the H200's shared-memory wavefronts (8-byte loads, 16 banks per wavefront): the
  // index order of the sibling group gives 1470 wavefronts for an ideal 770 (48% excess, as Nsight
  // Compute measured: 47% of the group kernel's shared wavefronts were bank conflicts).
  const auto before4 = block::shared_wavefronts<4>(block::make_leaf_layout<4>(false));
  const auto after4 = block::shared_wavefronts<4>(block::leaf_layout<4>());
  const auto before2 = block::shared_wavefronts<2>(block::make_leaf_layout<2>(false));
  const auto after2 = block::shared_wavefronts<2>(block::leaf_layout<2>());
  auto total = [](const block::LayoutWavefronts& w) { return w.predict + w.fluxes + w.update; };
  auto ideal = [](const block::LayoutWavefronts& w) { return w.predict_ideal + w.fluxes_ideal + w.update_ideal; };
  for (const auto* w : {&before4, &after4, &before2, &after2})
    std::cerr << "wavefronts: predict " << w->predict << " (ideal " << w->predict_ideal << "), fluxes " << w->fluxes
              << " (" << w->fluxes_ideal << "), update " << w->update << " (" << w->update_ideal << ")\n";
  EXPECT_EQ(total(before4), 1470);
  EXPECT_EQ(ideal(before4), ideal(after4));
  EXPECT_LT(total(after4), total(before4));
  EXPECT_LE(after4.predict, before4.predict);
  EXPECT_LE(after4.fluxes, before4.fluxes);
  EXPECT_LE(after4.update, before4.update);
  // The group's conflicts at most an eighth of its wavefronts.
  EXPECT_LE(8 * (total(after4) - ideal(after4)), total(after4));
  EXPECT_LT(total(after2), total(before2));
}

// The GPU step's ghost prolongation per (ghost slot, son) (block::ghost_son, the eight sons'
// physical flags combined, block::put_ghost_son) against prolong_stencil, which computes the eight
// sons of a slot together (the regrid's move and the oracle's prolongation): the same bits, the
// fallback to the coarse value included.
namespace block = ro::amr::block;

namespace {

// Ghost slot g by sons, then the fallback decided over the eight: the values written, and whether
// any son was unphysical.
bool ghost_by_sons(const std::vector<double>& u, long long stride, long long g, const std::int64_t* src,
                   const std::uint8_t* flip, double* out) {
  double uc[8][nvar], son[8][nvar];
  bool all = true;
  for (int c = 0; c < 8; ++c) all = block::ghost_son(u.data(), stride, g, c, src, flip, 1.4, uc[c], son[c]) && all;
  for (int c = 0; c < 8; ++c) block::put_ghost_son(g, c, all, uc[c], son[c], out);
  return !all;
}

}  // namespace

TEST(Amr, amr_gpu_ghost_sons_equal_prolong_stencil) {
  const OctMesh base = build_mesh({8, 8, 8}, {Boundary::reflecting, Boundary::reflecting, Boundary::reflecting});
  const auto r = amr::run_amr(copa::Backend::serial, base, amr_config("sedov", 1.0, 6), amr_levels(3, "gradient", 2));
  const amr::Tree& t = r.tree;
  const amr::StepLists lists = amr::build_step_lists(t);
  const amr::StepPlan p = amr::build_step_plan(t, lists, true);
  const long long stride = t.noct() * 8, nghost = static_cast<long long>(p.ghost_flip.size() / 7);
  ASSERT_GT(nghost, 0);
  std::vector<double> got(nghost * 8 * nvar), want(nghost * 8 * nvar);
  for (long long g = 0; g < nghost; ++g) {
    ghost_by_sons(r.u, stride, g, p.ghost_src.data(), p.ghost_flip.data(), got.data());
    double sons[8][nvar];
    amr::prolong_stencil(r.u.data(), stride, &p.ghost_src[7 * g], &p.ghost_flip[7 * g], 1.4, sons);
    std::memcpy(&want[g * 8 * nvar], sons, sizeof sons);
  }
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(double)), 0) << nghost << " ghost slots";

  // A coarse cell whose slopes would give a son negative energy: every son takes the coarse value,
  // in both. Seven cells in a row of a small state: the coarse cell, then -x, +x, -y, +y, -z, +z.
  const long long n = 7;
  std::vector<double> u(nvar * n, 0.0);
  // Density 1 and x-momentum 1.3 everywhere (kinetic energy 0.845); the coarse energy 1, its -x
  // neighbour 5, its +x neighbour 0: the limited slope -1 leaves the +x sons 0.75 < 0.845.
  const double e[7] = {1.0, 5.0, 0.0, 1.0, 1.0, 1.0, 1.0};
  for (int k = 0; k < 7; ++k) {
    u[0 * n + k] = 1.0;
    u[1 * n + k] = 1.3;
    u[4 * n + k] = e[k];
  }
  const std::int64_t src[7] = {0, 1, 2, 3, 4, 5, 6};
  const std::uint8_t flip[7] = {0, 0, 0, 0, 0, 0, 0};
  std::vector<double> out(8 * nvar);
  EXPECT_TRUE(ghost_by_sons(u, n, 0, src, flip, out.data())) << "the test stencil must trigger the fallback";
  double sons[8][nvar];
  amr::prolong_stencil(u.data(), n, src, flip, 1.4, sons);
  EXPECT_EQ(std::memcmp(out.data(), sons, sizeof sons), 0);
  for (int c = 0; c < 8; ++c)
    for (int f = 0; f < nvar; ++f) EXPECT_EQ(out[c * nvar + f], u[f * n]) << "son " << c << " field " << f;
  std::cerr << nghost << " ghost slots by sons equal prolong_stencil\n";
}

// The device step's shared launches rest on disjoint cells:
// reflux_restrict_kernel runs the reflux beside the finest restriction, so no cell a reflux face
// writes may be one that restriction writes or reads; restrict_scan_kernel runs the coarsest
// restriction beside the scan, so that restriction may write only covered cells (the scan reads
// leaves). The ranges are chosen as GpuAmrStep::advance chooses them: the levels' restriction
// ranges that hold pairs, finest first. Checked on the plan cases' trees (one to three levels).
// Checked that it can fail: the coarsest range in place of the finest shares 128-512 cells with
// the reflux on the two- and three-level trees (the restriction of level 0 reads refluxed
// level-1 leaves).
TEST(Amr, amr_device_step_shared_launches_touch_disjoint_cells) {
  for (const PlanCase& c : plan_cases) {
    const BuiltCase b(c);
    const amr::Tree& t = b.tree;
    const amr::StepLists& lists = b.lists;
    const amr::StepPlan& p = b.plan;
    const std::string& what = b.name;
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    for (std::size_t k = 0; k + 1 < p.restrict_begin.size(); ++k)
      if (p.restrict_begin[k + 1] > p.restrict_begin[k]) ranges.emplace_back(p.restrict_begin[k], p.restrict_begin[k + 1]);
    ASSERT_FALSE(ranges.empty()) << what;
    ASSERT_FALSE(lists.faces.empty()) << what;
    std::vector<char> refluxed(static_cast<std::size_t>(t.noct()) * 8, 0);
    for (const amr::RefluxFace& f : lists.faces) refluxed[f.cell] = 1;
    long long shared = 0, covered_written = 0, leaf_written = 0;
    for (std::int64_t e = ranges.front().first; e < ranges.front().second; ++e) {
      shared += refluxed[p.restrict_cell[e]];
      for (int k = 0; k < 8; ++k) shared += refluxed[p.restrict_son[e] * 8 + k];
    }
    for (std::int64_t e = ranges.back().first; e < ranges.back().second; ++e)
      (t.son[p.restrict_cell[e]] >= 0 ? covered_written : leaf_written) += 1;
    std::cerr << what << ": " << ranges.size() << " restriction launches' ranges, " << lists.faces.size()
              << " reflux faces; cells shared by the reflux and the finest restriction " << shared
              << ", leaf cells the coarsest restriction writes " << leaf_written << " (covered "
              << covered_written << ")\n";
    EXPECT_EQ(shared, 0) << what;
    EXPECT_EQ(leaf_written, 0) << what;
    EXPECT_GT(covered_written, 0) << what;
  }
}

// The refinement flags computed on the device (the regrid on the GPU): the device passes
// run on the host in launch order through the same bodies (emulate_device_flags: the criterion
// kernel, the son pass per level, the buffer storing 1 into a copy of the flags it reads, the
// balance storing 1 into the coarser level) must give the host regrid's criterion bytes and flags
// (criterion_flags, refinement_flags) byte for byte, for every criterion kind on the device plan
// tests' trees; an unbalanced tree must be reported by the device's error word with the host's
// messages.
// The criterion's division-free jump test (jump_exceeds) decides as RAMSES's quotient
// 2|a - b| / (|a| + |b|) > threshold wherever the quotient is not within rounding of the
// threshold, and leaves 0/0 and non-finite pairs unflagged as the quotient's test did.
TEST(Amr, amr_jump_exceeds_decides_as_the_relative_jump) {
  EXPECT_TRUE(amr::jump_exceeds(1.1, 1.0, 0.09));   // 0.0952...
  EXPECT_FALSE(amr::jump_exceeds(1.1, 1.0, 0.1));
  EXPECT_FALSE(amr::jump_exceeds(1.0, 1.1, 0.1));
  EXPECT_TRUE(amr::jump_exceeds(-1.0, 1.0, 1.9));   // 2
  EXPECT_FALSE(amr::jump_exceeds(-1.0, 1.0, 2.0));
  EXPECT_FALSE(amr::jump_exceeds(0.0, 0.0, 0.1));
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(amr::jump_exceeds(nan, 1.0, 0.1));
  EXPECT_FALSE(amr::jump_exceeds(inf, 1.0, 0.1));
  EXPECT_FALSE(amr::jump_exceeds(inf, inf, 0.1));
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> value(-2.0, 2.0), threshold(1e-3, 2.0);
  long decided = 0;
  for (int k = 0; k < 200000; ++k) {
    const double a = value(rng), b = k % 3 ? a * (1 + 0.3 * value(rng)) : value(rng), th = threshold(rng);
    const double s = std::fabs(a) + std::fabs(b);
    const double quotient = s > 0 ? 2 * std::fabs(a - b) / s : 0.0;
    if (std::fabs(quotient - th) <= 1e-12 * th) continue;
    ++decided;
    ASSERT_EQ(amr::jump_exceeds(a, b, th), quotient > th) << a << " " << b << " " << th;
  }
  EXPECT_GT(decided, 199000);
}

TEST(Amr, amr_device_flags_emulated_equal_host_flags) {
  std::int64_t added_gradient = 0, added_band = 0;
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::AmrResult r = case_run(c, base);
    const amr::Tree& t = r.tree;
    const double gamma = HydroParams{}.gamma;
    const std::int64_t ncoarse_cells = t.level_begin[t.max_level] * 8;
    for (const char* kind : criterion_kinds) {
      SCOPED_TRACE(case_label(c) + " " + kind);
      const amr::RefineCriterion rc = criterion_of(kind);
      std::vector<char> crit_host, crit_dev, flag_dev;
      const std::vector<char> flag_host = host_flags(t, r.u, rc, gamma, crit_host);
      const unsigned error = amr::emulate_device_flags(t, r.u, amr::criterion_params(rc, gamma, base.dx), crit_dev, flag_dev);
      EXPECT_EQ(error, 0u);
      EXPECT_EQ(crit_dev, crit_host);
      ASSERT_EQ(flag_dev, flag_host);
      // Not a trivial comparison: flags below the finest level, none on it; for the gradient and
      // the band, some leaves flagged by the buffer and balance, not by the criterion (counted
      // over the cases: where the tree already follows the criterion, they fall on refined cells).
      std::int64_t flagged = 0, added = 0;
      for (std::int64_t g = 0; g < t.noct() * 8; ++g) {
        flagged += flag_host[g];
        added += flag_host[g] && !crit_host[g] && t.son[g] < 0;
        if (g >= ncoarse_cells) {
          EXPECT_EQ(flag_host[g], 0);
        }
      }
      if (std::string(kind) == "everywhere") {
        EXPECT_EQ(flagged, ncoarse_cells);
      } else {
        EXPECT_GT(flagged, 0);
        EXPECT_LT(flagged, ncoarse_cells);
        (std::string(kind) == "band" ? added_band : added_gradient) += added;
      }
      std::cerr << c.problem << " bc " << int(c.bc) << " " << kind << ": " << flagged << " of " << ncoarse_cells
                << " cells flagged (" << added << " leaves by the buffer and balance): device flags = host flags\n";
    }
  }
  EXPECT_GT(added_gradient, 0);
  EXPECT_GT(added_band, 0);
}

TEST(Amr, amr_device_flags_report_an_unbalanced_tree) {
  // The device's error word gives the host's RuntimeError: a missing face neighbour in the
  // gradient criterion (levels 2: the level-2 cells at the corner), a missing coarse cell in the
  // balance (levels 3, every cell flagged: the level-2 cells' neighbours lack level-1 holders).
  const OctMesh base = build_mesh({8, 8, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  const ProblemParams pp = amr_config("sedov", 1.0, 1).problem;
  struct Case {
    int levels;
    const char* kind;
    unsigned word;
  };
  for (const Case& k : {Case{2, "gradient", amr::flags_error_missing_neighbour},
                        Case{3, "everywhere", amr::flags_error_unbalanced}}) {
    SCOPED_TRACE(k.kind);
    const amr::Tree t = unbalanced_tree(base, k.levels);
    std::vector<double> u;
    amr::initial_state(t, pp, u);
    const amr::RefineCriterion rc = criterion_of(k.kind);
    std::vector<char> crit, flag;
    const std::string host = thrown_message([&] { host_flags(t, u, rc, pp.gamma, crit); });
    const unsigned word = amr::emulate_device_flags(t, u, amr::criterion_params(rc, pp.gamma, base.dx), crit, flag);
    EXPECT_EQ(word, k.word);
    EXPECT_FALSE(host.empty());
    EXPECT_EQ(thrown_message([&] { amr::check_flags_error(word); }), host);
    std::cerr << k.kind << " on the unbalanced tree of " << k.levels << " levels: error word " << word << ", \"" << host
              << "\"\n";
  }
  EXPECT_EQ(thrown_message([] { amr::check_flags_error(0); }), "");
}

// --refine-buffer (RAMSES's nexpand): b buffer passes. On a tree of one refined level the balance
// adds nothing, so the flags of level 0 after b + 1 passes are exactly those after b passes and
// their 26 neighbours (periodic wrap), checked cell by cell by coordinates; on the three-level
// trees of the plan cases the host and the emulated device agree for b = 0..3 and the flags grow
// with b (each pass keeps the flags before it and, summed over the cases, adds some).
TEST(Amr, amr_refine_buffer_passes_widen_the_flags) {
  {
    const OctMesh base = build_mesh({12, 8, 10}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
    const amr::AmrResult r = amr::run_amr(copa::Backend::serial, base, amr_config("sedov", 1.0, 6),
                                          amr_levels(1, "gradient", 2));
    const amr::Tree& t = r.tree;
    const int n[3] = {t.cells_at(0, 0), t.cells_at(0, 1), t.cells_at(0, 2)};
    // Level-0 cell index by cell coordinates.
    std::vector<std::int64_t> at(std::size_t(n[0]) * n[1] * n[2], -1);
    const auto index = [&](int i, int j, int k) {
      return ((std::size_t((k + n[2]) % n[2]) * n[1]) + (j + n[1]) % n[1]) * n[0] + (i + n[0]) % n[0];
    };
    std::vector<std::array<int, 3>> cell(t.octs_at(0) * 8);
    for (std::int64_t o = 0; o < t.octs_at(0); ++o)
      for (int c = 0; c < 8; ++c) {
        const std::array<int, 3> x = {2 * t.coord[0][o] + (c & 1), 2 * t.coord[1][o] + ((c >> 1) & 1),
                                      2 * t.coord[2][o] + ((c >> 2) & 1)};
        cell[o * 8 + c] = x;
        at[index(x[0], x[1], x[2])] = o * 8 + c;
      }
    amr::RefineCriterion rc = criterion_of("gradient");
    rc.buffer = 0;
    std::vector<char> crit;
    std::vector<char> before = host_flags(t, r.u, rc, HydroParams{}.gamma, crit);
    std::int64_t grown = 0;
    for (int b = 1; b <= 3; ++b) {
      rc.buffer = b;
      const std::vector<char> flag = host_flags(t, r.u, rc, HydroParams{}.gamma, crit);
      for (std::int64_t g = 0; g < t.octs_at(0) * 8; ++g) {
        bool near = false;
        for (int dk = -1; dk <= 1; ++dk)
          for (int dj = -1; dj <= 1; ++dj)
            for (int di = -1; di <= 1; ++di)
              near = near || before[at[index(cell[g][0] + di, cell[g][1] + dj, cell[g][2] + dk)]];
        ASSERT_EQ(bool(flag[g]), near) << "buffer " << b << ", level-0 cell " << g;
        grown += flag[g] && !before[g];
      }
      before = flag;
    }
    EXPECT_GT(grown, 0);
  }
  std::int64_t added[3] = {0, 0, 0};
  for (const PlanCase& c : plan_cases) {
    if (std::string(c.kind) != "gradient") continue;
    OctMesh base;
    const amr::AmrResult r = case_run(c, base);
    const double gamma = HydroParams{}.gamma;
    amr::RefineCriterion rc = criterion_of("gradient");
    std::vector<char> previous;
    for (int b = 0; b <= 3; ++b) {
      SCOPED_TRACE(case_label(c) + " buffer " + std::to_string(b));
      rc.buffer = b;
      std::vector<char> crit_host, crit_dev, flag_dev;
      const std::vector<char> flag_host = host_flags(r.tree, r.u, rc, gamma, crit_host);
      EXPECT_EQ(amr::emulate_device_flags(r.tree, r.u, amr::criterion_params(rc, gamma, base.dx), crit_dev, flag_dev), 0u);
      ASSERT_EQ(flag_dev, flag_host);
      if (b > 0) {
        for (std::size_t g = 0; g < flag_host.size(); ++g) {
          ASSERT_TRUE(!previous[g] || flag_host[g]) << "cell " << g << " lost its flag";
          added[b - 1] += flag_host[g] && !previous[g];
        }
      }
      previous = flag_host;
    }
  }
  for (int b = 0; b < 3; ++b) EXPECT_GT(added[b], 0) << "pass " << b + 1 << " added no flag";
  std::cerr << "flags added by the buffer passes 1, 2, 3 over the gradient cases: " << added[0] << ", " << added[1]
            << ", " << added[2] << "\n";
}

// The step lists built on the device (the regrid on the GPU): the device passes run on the
// host in the kernels' order through the same bodies (emulate_device_lists: per-oct flags and face
// masks, exclusive scans where the device runs CUB scans, the fill) must give the host lists
// (build_step_lists: its serial prefix sums) field by field on the device plan tests' trees.
TEST(Amr, amr_device_lists_emulated_equal_host_lists) {
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::Tree t = case_tree(c, base);
    const amr::StepLists host = amr::build_step_lists(t);
    amr::StepLists dev;
    amr::emulate_device_lists(t, dev);
    SCOPED_TRACE(case_label(c));
    ASSERT_FALSE(host.faces.empty());
    EXPECT_EQ(dev.leaf_octs_begin, host.leaf_octs_begin);
    expect_same_device_lists(dev, host);
    std::cerr << c.problem << " bc " << int(c.bc) << ": " << host.leaf_octs.size() << " leaf octs, "
              << host.faces.size() << " reflux faces: device lists = host lists\n";
  }
}

// The step plan built on the device (the regrid on the GPU): its passes run on the host in
// the kernels' order through the same bodies (emulate_device_plan: the parallel singles/groups
// split and exclusive scans of counts where the device runs CUB scans) must give the host plan
// (build_step_plan: the serial walk, the serial restriction list) field by field on the trees the
// other AMR tests use; the lookups the device plan makes through the uploaded coordinate hash
// must be the host tree's.
TEST(Amr, amr_device_plan_emulated_equals_host_plan) {
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::Tree t = case_tree(c, base);
    const amr::StepLists lists = amr::build_step_lists(t);
    ASSERT_GT(t.octs_at(c.levels), 0) << c.problem;
    for (const int groups : {amr::default_group_min, 8, 1, 0})
      for (const bool reflux : {true, false}) {
        const amr::StepPlan host = amr::build_step_plan(t, lists, reflux, groups);
        amr::StepPlan dev;
        amr::emulate_device_plan(t, lists, reflux, dev, groups);
        SCOPED_TRACE(case_label(c) + " groups " +
                     std::to_string(groups) + " reflux " + std::to_string(reflux));
        expect_same_plan(dev, host);
        EXPECT_FALSE(host.ghost_flip.empty());
        EXPECT_EQ(host.restrict_begin.size(), static_cast<std::size_t>(c.levels + 1));
        EXPECT_EQ(groups > 0, !host.groups.empty());
        if (groups == amr::default_group_min && reflux)
          std::cerr << c.problem << " bc " << int(c.bc) << ": " << host.leaf_octs.size() << " leaf octs, "
                    << host.singles.size() << " singles, " << host.groups.size() << " groups, "
                    << host.ghost_flip.size() / 7 << " ghosts, " << host.restrict_cell.size()
                    << " restriction pairs: device plan = host plan\n";
      }
  }
}

// The GPU regrid's queued build sizes the plan's arrays by
// bounds it has before the counts: leaf octs <= octs, singles + groups <= leaf octs, groups x
// group_min <= leaf octs (a group's members are a run of at least group_min leaf octs, runs
// disjoint), restriction pairs <= 8 per coarse oct. A count past its bound would write past the
// device arrays: every group_min and tree of the plan tests is checked.
TEST(Amr, amr_queued_plan_bounds_hold) {
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::Tree t = case_tree(c, base);
    const amr::StepLists lists = amr::build_step_lists(t);
    const long long noct = t.noct(), ncoarse = t.level_begin[t.max_level];
    for (int group_min = 0; group_min <= 9; ++group_min) {
      SCOPED_TRACE(case_label(c) + " group_min " +
                   std::to_string(group_min));
      const amr::StepPlan p = amr::build_step_plan(t, lists, true, group_min);
      const long long nleaf = static_cast<long long>(p.leaf_octs.size());
      const long long nsingle = static_cast<long long>(p.singles.size());
      const long long ngroup = static_cast<long long>(p.groups.size());
      EXPECT_LE(nleaf, noct);
      EXPECT_LE(nsingle + ngroup, nleaf);
      EXPECT_LE(ngroup, nleaf / std::clamp(group_min, 1, 8));
      EXPECT_LE(static_cast<long long>(p.restrict_cell.size()), 8 * ncoarse);
    }
  }
}

TEST(Amr, amr_device_plan_split_equals_serial_walk) {
  // Complete groups: the parallel split (plan_is_single) reproduces the serial walk "a head and
  // its 7 followers", heads at least 8 leaf octs apart.
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::Tree t = case_tree(c, base);
    const amr::StepPlan p = amr::build_step_plan(t, amr::build_step_lists(t), true, 8);  // complete groups
    long long last = -8;
    for (long long i = 0; i < static_cast<long long>(p.head.size()); ++i)
      if (p.head[i]) {
        EXPECT_GE(i - last, 8) << c.problem << " leaf " << i;
        last = i;
      }
    // Each leaf decides alone: single exactly when the serial walk put it in singles.
    ASSERT_FALSE(p.groups.empty());
    std::vector<bool> in_singles(p.head.size(), false);
    for (const std::int32_t i : p.singles) in_singles[i] = true;
    const amr::PlanView v = amr::plan_view(t);
    std::vector<bool> walked(p.head.size(), true);
    for (std::size_t i = 0; i < p.head.size(); ++i)
      if (p.head[i]) {
        EXPECT_EQ(p.head[i], amr::complete_group) << i;
        for (std::size_t m = i; m < i + 8 && m < walked.size(); ++m) walked[m] = false;
      }
    for (std::size_t i = 0; i < p.head.size(); ++i) {
      EXPECT_EQ(amr::plan_is_single(v, p.leaf_octs.data(), p.head.data(), i), in_singles[i]) << i;
      EXPECT_EQ(walked[i], in_singles[i]) << i;
    }
  }
}

TEST(Amr, amr_device_plan_hash_lookups_equal_tree) {
  // view_find_oct probes the concatenated hash the device receives: every oct is found where it
  // is, and absent coordinates are absent, as Tree::find_oct says.
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::Tree t = case_tree(c, base);
    const amr::PlanView v = amr::plan_view(t);
    long long absent = 0;
    for (int l = 0; l <= t.max_level; ++l) {
      for (std::int64_t o = t.level_begin[l]; o < t.level_begin[l + 1]; ++o)
        ASSERT_EQ(amr::view_find_oct(v, l, t.coord[0][o], t.coord[1][o], t.coord[2][o]), o);
      for (int z = 0; z < t.cells_at(l, 2) / 2; ++z)
        for (int y = 0; y < t.cells_at(l, 1) / 2; ++y)
          for (int x = 0; x < t.cells_at(l, 0) / 2; ++x) {
            const std::int32_t want = t.find_oct(l, x, y, z);
            ASSERT_EQ(amr::view_find_oct(v, l, x, y, z), want);
            absent += want < 0;
          }
    }
    EXPECT_GT(absent, 0) << c.problem;
  }
}

// The tree rebuild and link built as the device builds them (the regrid on the GPU): the
// passes of emulate_device_rebuild (the kernels' order, the bodies of amr_rebuild_body.hpp, host
// exclusive scans where the device runs CUB scans) must give rebuild_tree's tree (keys, levels,
// coordinates, level_begin, father, son, neighbours, hash by lookups) and map (source, src, flip)
// on the device plan tests' trees, with refining, derefining and mixed flags; and refuse a tree
// over --max-octs as rebuild_tree does.
TEST(Amr, amr_device_rebuild_emulated_equals_host_rebuild) {
  const auto loops = amr::make_serial_loops();
  for (const PlanCase& c : plan_cases) {
    OctMesh base;
    const amr::AmrResult r = case_run(c, base);
    for (const char* kind : {"gradient", "band", "everywhere", "derefine", "none"}) {
      SCOPED_TRACE(case_label(c) + " flags " + kind);
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

// The next step's dt scan carried from advance() to scan() (NextScan) on the GPU path's driver
// with the device emulated on the host: every carried scan equals a scan of the state it is used on, a scan runs again exactly after the start and after
// each regrid that changed the tree, and the run equals the serial oracle, with a regrid every 1,
// 2 and 3 steps. A regrid between two steps must drop the carried scan; the per-scan comparison
// is what sees a stale one (these regrids rarely change a level's largest speed, so a stale scan
// often gives the same dt and the same state).
namespace {

// The reflux and restriction work the driver counts for the roofline rows: from the device plan's
// counts on the GPU path and from the host tree and lists on the host, the same per run; reflux
// faces exactly when the reflux runs.
void expect_same_side_work(const amr::AmrResult& dev, const amr::AmrResult& oracle, bool reflux) {
  EXPECT_EQ(dev.reflux_face_updates, oracle.reflux_face_updates);
  EXPECT_EQ(dev.restricted_oct_updates, oracle.restricted_oct_updates);
  EXPECT_EQ(dev.finest_restricted_oct_updates, oracle.finest_restricted_oct_updates);
  EXPECT_EQ(oracle.reflux_face_updates > 0, reflux);
  EXPECT_GT(oracle.restricted_oct_updates, 0);
  EXPECT_LE(oracle.finest_restricted_oct_updates, oracle.restricted_oct_updates);
}

}  // namespace

TEST(Amr, amr_device_next_scan_emulated_equals_serial) {
  for (const PlanCase& c : next_scan_cases) {
    for (int every : {1, 2, 3}) {
      const OctMesh base = case_mesh(c);
      const RunConfig cfg = case_config(c);
      amr::AmrConfig ac = case_amr(c, every);
      const auto oracle = amr::run_amr(copa::Backend::serial, base, cfg, ac);
      EmulatedCounts n;
      ac.device = emulated_device(n);
      const auto dev = amr::run_amr(copa::Backend::serial, base, cfg, ac);
      const std::string what = std::string(c.problem) + " " + c.kind + " regrid every " + std::to_string(every);
      ASSERT_EQ(dev.tree.key, oracle.tree.key) << what;
      ASSERT_EQ(dev.steps, c.steps) << what;
      const double l2 = relative_l2(dev.u, oracle.u);
      std::cerr << what << ": " << n.scans_run << " scans run, " << n.scans_held << " carried from the step ("
                << n.scans_stale << " stale), " << n.moves << " state moves in " << dev.regrids
                << " regrids; vs oracle relative L2 " << l2 << "\n";
      EXPECT_EQ(n.scans_stale, 0) << what;
      EXPECT_EQ(n.scans_run, 1 + n.moves) << what;
      EXPECT_EQ(n.scans_run + n.scans_held, dev.steps) << what;
      EXPECT_EQ(dev.t, oracle.t) << what;
      EXPECT_LT(l2, 1e-12) << what;
      expect_same_side_work(dev, oracle, true);
      if (std::string(c.kind) == "band") {
        EXPECT_EQ(n.moves, 0) << what;  // a static band keeps the tree, the state and the scan
      } else {
        EXPECT_GT(n.moves, 1) << what;
      }
    }
  }
}

// The device dt's driver on the host emulation of the device step: a run
// whose steps are queued, each with the dt the emulated device clock computed (clock_after_scan, the
// device's function), gives the host-dt run's results bit for bit: the same state, time, steps,
// regrids and update counts, with regrids that change the tree or keep it, a last step clipped to
// tend and a run cut by --steps; a bad leaf cell stops it with the host-dt run's report; the step
// before each regrid and the last step are waited for, the others not. And the clock's formulas
// against the host's cfl_dt and tend clip.
namespace {

// The emulated device step with and without the device dt on one configuration: bitwise equal.
void expect_device_dt_as_host_dt(const std::string& what, const OctMesh& base, const RunConfig& cfg,
                                 amr::AmrConfig ac) {
  SCOPED_TRACE(what);
  EmulatedCounts host_n, device_n;
  ac.device = emulated_device(host_n);
  const auto host = amr::run_amr(copa::Backend::serial, base, cfg, ac);
  ac.device = emulated_device(device_n, amr::default_group_min, true);
  const auto device = amr::run_amr(copa::Backend::serial, base, cfg, ac);
  expect_same_run(device, host);
  EXPECT_EQ(device_n.moves, host_n.moves);
  if (ac.regrid_every > 0) {
    EXPECT_GT(host_n.moves, 0);  // the tree changed at some regrid
  }
  // Every step queued; each regrid after a wait for the step before it, and one wait at the end:
  // the other steps overlap the next one.
  EXPECT_EQ(device_n.queued_steps, device.steps);
  EXPECT_EQ(device_n.regrids_unwaited, 0);
  EXPECT_EQ(device_n.queued_waits, device.regrids + 1);
}

}  // namespace

TEST(AmrDeviceDt, cfl_dt_of_is_the_host_formula) {
  const double speed[3] = {1.5, 0.0, 7.25};
  const double dx0 = 1.0 / 24;
  // Level 1 has no leaf (0): skipped; level 2's dx is dx0 / 4.
  const double expect = std::min(0.8 * dx0 / 1.5, 0.8 * (dx0 / 4) / 7.25);
  EXPECT_TRUE(same_bits(amr::cfl_dt_of(speed, 3, dx0, 0.8), expect));
  const double none[2] = {0.0, 0.0};
  EXPECT_EQ(amr::cfl_dt_of(none, 2, dx0, 0.8), std::numeric_limits<double>::infinity());
  EXPECT_EQ(amr::clip_dt(0.25, std::numeric_limits<double>::infinity(), 1.0), 0.75);
  EXPECT_EQ(amr::clip_dt(0.25, 0.5, 1.0), 0.5);
  EXPECT_TRUE(same_bits(amr::clip_dt(0.7, 0.4, 1.0), 1.0 - 0.7));
}

TEST(AmrDeviceDt, clock_after_scan_moves_time_only_after_a_step) {
  amr::DeviceClock c;
  c.time = 0.5;
  c.dt = 0.125;
  c.courant = 0.5;
  c.tend = 0.7;
  c.dx0 = 0.25;
  const double speed[1] = {2.0};
  amr::clock_after_scan(c, speed, 1, false, false);  // an upload's or a regrid's scan
  EXPECT_EQ(c.time, 0.5);
  EXPECT_EQ(c.dt, 0.0625);
  amr::clock_after_scan(c, speed, 1, false, true);  // the end of a step of 0.0625
  EXPECT_EQ(c.time, 0.5625);
  EXPECT_EQ(c.dt, 0.0625);
  c.dt = 0.125;
  amr::clock_after_scan(c, speed, 1, false, true);  // 0.6875: the next dt clipped to tend
  EXPECT_TRUE(same_bits(c.dt, 0.7 - 0.6875));
  EXPECT_EQ(c.halt, 0);
  amr::clock_after_scan(c, speed, 1, true, true);  // a bad cell halts the next step
  EXPECT_EQ(c.halt, 1);
  EXPECT_EQ(c.dt, 0.0);
}

TEST(AmrDeviceDt, emulated_device_dt_equals_host_dt_bitwise) {
  const Boundary p = Boundary::periodic, r = Boundary::reflecting;
  // Regrids every 1 and 2 steps (trees that change and trees that stay), runs cut by --steps; and
  // a static grid, every step queued before the one before it is waited for.
  expect_device_dt_as_host_dt("sedov 8^3 + 2 every 1", build_mesh({8, 8, 8}, {p, p, p}), amr_config("sedov", 1.0, 6),
                              amr_levels(2, "gradient", 1));
  expect_device_dt_as_host_dt("sod 16 x 4 x 4 + 2 every 2", build_mesh({16, 4, 4}, {r, r, r}),
                              amr_config("sod", 1.0, 8), amr_levels(2, "gradient", 2));
  expect_device_dt_as_host_dt("sedov 8^3 + 2 static", build_mesh({8, 8, 8}, {p, p, p}), amr_config("sedov", 1.0, 8),
                              amr_levels(2, "gradient", 0));
  // A run that ends at tend: the last dt clipped (tend reached well before the step cap).
  const RunConfig short_run = amr_config("sedov", 2e-3, 200);
  EmulatedCounts n;
  amr::AmrConfig ac = amr_levels(2, "gradient", 2);
  ac.device = emulated_device(n, amr::default_group_min, true);
  const auto clipped = amr::run_amr(copa::Backend::serial, build_mesh({8, 8, 8}, {p, p, p}), short_run, ac);
  EXPECT_LT(clipped.steps, 200);
  EXPECT_DOUBLE_EQ(clipped.t, short_run.tend);
  expect_device_dt_as_host_dt("sedov 8^3 + 2 to tend", build_mesh({8, 8, 8}, {p, p, p}), short_run,
                              amr_levels(2, "gradient", 2));
}

TEST(AmrDeviceDt, emulated_device_dt_bad_cell_report_as_host_dt) {
  BadCellCase c;
  EmulatedCounts host_n, device_n;
  c.ac.device = emulated_device(host_n);
  const std::string host = run_error(c.base, c.cfg, c.ac);
  c.ac.device = emulated_device(device_n, amr::default_group_min, true);
  const std::string device = run_error(c.base, c.cfg, c.ac);
  expect_bad_cell_report_as_host(device, host);
}

// Level subcycling on the device step (--subcycle on cuda/hip, GpuAmrStep::advance_subcycled),
// checked where there is no GPU: (1) the plan's per-level ranges, as the device derives them from
// its scans (plan_level_ranges through emulate_plan_levels), against what the host lists and plan
// hold level by level; (2) the device's subcycled coarse step emulated on the host (the same
// recursion, per-level slices, sums, reflux factor, commit and restriction, through the GPU
// bodies: emulate_plan_subcycled_step) driven by the GPU path's driver (device regrid, the leaf
// updates counted from the device's leaf cells per level) against the serial oracle's subcycled run.
namespace {

// The number of entries of sorted v below x.
long long below(const std::vector<std::int32_t>& v, long long x) {
  return std::lower_bound(v.begin(), v.end(), x) - v.begin();
}

}  // namespace

TEST(AmrSubcycle, amr_subcycle_device_level_ranges_equal_host_lists_and_plan) {
  for (const PlanCase& c : plan_cases) {
    const BuiltCase b(c);
    const amr::Tree& t = b.tree;
    const amr::StepLists& lists = b.lists;
    const amr::StepPlan& p = b.plan;
    const amr::PlanLevels lv = amr::emulate_plan_levels(t, p);
    SCOPED_TRACE(b.name);
    const int L = t.max_level;
    ASSERT_EQ(lv.leaf_begin.size(), std::size_t(L + 2));
    ASSERT_EQ(lv.face_begin.size(), std::size_t(L + 1));
    const long long nsingle = static_cast<long long>(p.singles.size());
    EXPECT_EQ(lv.ghosts, p.ghost_begin.back());
    // The ends: every list whole, the singles' ghosts before the groups'.
    EXPECT_EQ(lv.single_begin[L + 1], nsingle);
    EXPECT_EQ(lv.group_begin[L + 1], static_cast<long long>(p.groups.size()));
    EXPECT_EQ(lv.single_ghost_begin[0], 0);
    EXPECT_EQ(lv.single_ghost_begin[L + 1], lv.group_ghost_begin[0]);
    EXPECT_EQ(lv.group_ghost_begin[L + 1], lv.ghosts);
    EXPECT_EQ(lv.face_begin[0], 0);
    EXPECT_EQ(lv.face_begin[L], static_cast<long long>(lists.faces.size()));
    long long ghosts_seen = 0;
    for (int l = 0; l <= L; ++l) {
      // Leaf octs: the serial host lists' level bounds, and every entry in range of level l.
      EXPECT_EQ(lv.leaf_begin[l], lists.leaf_octs_begin[l]);
      for (long long i = lv.leaf_begin[l]; i < lv.leaf_begin[l + 1]; ++i) EXPECT_EQ(t.level[p.leaf_octs[i]], l);
      // Singles and groups (the serial walk's): the units whose leaf index lies in level l's range.
      EXPECT_EQ(lv.single_begin[l], below(p.singles, lv.leaf_begin[l]));
      EXPECT_EQ(lv.group_begin[l], below(p.groups, lv.leaf_begin[l]));
      for (long long j = lv.single_begin[l]; j < lv.single_begin[l + 1]; ++j)
        EXPECT_EQ(t.level[p.leaf_octs[p.singles[j]]], l);
      for (long long j = lv.group_begin[l]; j < lv.group_begin[l + 1]; ++j)
        for (int m = 0; m < amr::member_rank(p.group_members[j], 8); ++m) EXPECT_EQ(t.level[p.leaf_octs[p.groups[j] + m]], l);
      // Ghosts: exactly those of level l's units, each prolonged from a cell of level l - 1.
      EXPECT_EQ(lv.single_ghost_begin[l], p.ghost_begin[lv.single_begin[l]]);
      EXPECT_EQ(lv.group_ghost_begin[l], p.ghost_begin[nsingle + lv.group_begin[l]]);
      for (const auto& [first, last] : {std::pair{lv.single_ghost_begin[l], lv.single_ghost_begin[l + 1]},
                                        std::pair{lv.group_ghost_begin[l], lv.group_ghost_begin[l + 1]}}) {
        EXPECT_LE(first, last);
        ghosts_seen += last - first;
        for (long long g = first; g < last; ++g) EXPECT_EQ(t.level[p.ghost_src[7 * g] / 8], l - 1);
      }
      // Reflux faces of level l's coarse cells.
      if (l < L) {
        for (long long e = lv.face_begin[l]; e < lv.face_begin[l + 1]; ++e)
          EXPECT_EQ(t.level[lists.faces[e].cell / 8], l);
      }
    }
    EXPECT_EQ(ghosts_seen, lv.ghosts);
    std::cerr << c.problem << " bc " << int(c.bc) << ": per level leaf octs";
    for (int l = 0; l <= L; ++l) std::cerr << " " << lv.leaf_begin[l + 1] - lv.leaf_begin[l];
    std::cerr << ", ghosts " << lv.ghosts << ", reflux faces " << lists.faces.size() << ": ranges = host lists/plan\n";
  }
}

TEST(AmrSubcycle, amr_subcycle_emulated_device_step_equals_serial) {
  // Sedov base 8^3 + 2 levels (periodic), and Sod base 16 x 4 x 4 + 2 levels with reflecting
  // (mirrored ghost cells on every y and z face) and outflow faces, a regrid every 2 coarse steps
  // (the device regrid's emulation in between), with and without refluxing.
  const PlanCase cases[] = {{"sedov", {8, 8, 8}, Boundary::periodic, 2, "gradient", 8},
                            {"sod", {16, 4, 4}, Boundary::reflecting, 2, "gradient", 12},
                            {"sod", {16, 4, 4}, Boundary::outflow, 2, "gradient", 12}};
  for (const PlanCase& c : cases)
    for (const bool reflux : {true, false}) {
      const OctMesh base = case_mesh(c);
      const RunConfig cfg = case_config(c);
      amr::AmrConfig ac = case_amr(c, 2);
      ac.subcycle = true;
      ac.reflux = reflux;
      const auto oracle = amr::run_amr(copa::Backend::serial, base, cfg, ac);
      EmulatedCounts n;
      ac.device = emulated_device(n);
      const auto dev = amr::run_amr(copa::Backend::serial, base, cfg, ac);
      const std::string what = case_label(c) + " reflux " +
                               std::to_string(reflux);
      SCOPED_TRACE(what);
      ASSERT_TRUE(dev.tree.key == oracle.tree.key);
      ASSERT_EQ(dev.u.size(), oracle.u.size());
      const double diff = relative_l2(dev.u, oracle.u);
      std::cerr << what << ": " << dev.steps << " coarse steps, " << n.moves << " tree changes, octs per level "
                << dev.tree.octs_at(0) << "/" << dev.tree.octs_at(1) << "/" << dev.tree.octs_at(2)
                << ", emulated device - serial relative L2 " << diff << ", mass change "
                << rel_change(dev.final.mass, dev.initial.mass) << "\n";
      EXPECT_LT(diff, 1e-13);
      EXPECT_EQ(dev.steps, oracle.steps);
      EXPECT_EQ(n.subcycled_steps, dev.steps);
      EXPECT_GT(n.moves, 0);
      EXPECT_GT(dev.tree.octs_at(2), 0);
      // The driver counts the substeps' leaf updates from the device's leaf cells per level, and
      // the sibling groups' share from the per-level ranges (level l's groups 2^l times).
      EXPECT_EQ(dev.leaf_cell_updates, oracle.leaf_cell_updates);
      expect_same_side_work(dev, oracle, reflux);
      EXPECT_EQ(dev.grouped_oct_updates, double(n.grouped_oct_updates));
      EXPECT_GT(n.group_updates, 0);
      EXPECT_LE(dev.grouped_oct_updates, dev.leaf_oct_updates);
      COPA_EXPECT_NEAR_REL(dev.t, oracle.t, 1e-13);
    }
}
