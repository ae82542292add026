// AMR over ranks, the partition (amr_ranks.hpp) in one process: the cuts balance the work and give
// every rank a base oct, the owned ranges tile every level with each oct on its father's rank, and
// the cases the mpi tests run hold what they are named for (a rank whose whole range is refined, a
// rank without refined octs, coarse-fine faces whose two sides are on different ranks). The mpi
// tests (tests/CMakeLists.txt) then require N ranks = 1 rank bit for bit on these trees.
#include <algorithm>
#include <vector>

#include "amr/amr_plan.hpp"
#include "amr/amr_ranks.hpp"
#include "copa/errors.hpp"
#include "copa/testing.hpp"
#include "test_amr_emulated_step.hpp"
#include "test_amr_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

// The initial tree of a run (no step).
amr::AmrResult initial_tree(const OctMesh& base, const std::string& problem, const amr::AmrConfig& ac) {
  return amr::run_amr(copa::Backend::serial, base, amr_config(problem, 1.0, 0), ac);
}

// Rank r's owned ranges set on t.
void own(amr::Tree& t, const amr::AmrPartition& p, int r) { amr::owned_ranges(t, p, r, t.owned_begin, t.owned_end); }

int owner_of(const amr::Tree& t, const amr::AmrPartition& p, std::int64_t o) {
  std::vector<std::int64_t> b, e;
  for (int r = 0; r < p.ranks(); ++r) {
    amr::owned_ranges(t, p, r, b, e);
    if (o >= b[t.level[o]] && o < e[t.level[o]]) return r;
  }
  return -1;
}

// The work per base oct through the father links (each oct's base oct is its father's): the
// oracle of base_work, which takes the base oct from the key (oct_work, base_oct_of; the device's
// reduction the same).
std::vector<std::int64_t> base_work_by_father(const amr::Tree& t, bool subcycle) {
  std::vector<std::int64_t> base(t.noct()), work(t.octs_at(0), 0);
  for (int l = 0; l <= t.max_level; ++l)
    for (std::int64_t o = t.level_begin[l]; o < t.level_begin[l + 1]; ++o) {
      base[o] = l == 0 ? o : base[t.father[o] / 8];
      std::int64_t leaves = 0;
      for (int c = 0; c < 8; ++c) leaves += t.son[o * 8 + c] < 0;
      work[base[o]] += leaves * (subcycle ? std::int64_t(1) << l : 1);
    }
  return work;
}

// The ghost octs of level l as the exchanges first computed them, from the tree's own lookups
// (find_oct, locate) and a sort: the oracle of ghost_octs (ghost_mark_slot over the view, marks
// compacted in index order) and of the device's lists.
std::vector<std::int32_t> ghost_octs_by_lookup(const amr::Tree& t, int l) {
  std::vector<std::int32_t> g;
  const auto add = [&](std::int64_t o) {
    if (!t.owns(o)) g.push_back(static_cast<std::int32_t>(o));
  };
  for (std::int64_t o = t.owned_first(l); o < t.owned_last(l); ++o)
    for (int s = 0; s < 27; ++s) {
      const int off[3] = {s % 3 - 1, (s / 3) % 3 - 1, s / 9 - 1};
      int c[3];
      for (int a = 0; a < 3; ++a) {
        const int n = t.cells_at(l, a) / 2;
        c[a] = t.coord[a][o] + off[a];
        if (c[a] < 0 || c[a] >= n) c[a] = t.base->bc[a] == Boundary::periodic ? (c[a] + n) % n : t.coord[a][o];
      }
      const std::int32_t so = t.find_oct(l, c[0], c[1], c[2]);
      if (so >= 0) {
        add(so);
        continue;
      }
      for (int k = 0; k < 7; ++k) {
        std::array<int, 3> q = {c[0], c[1], c[2]};
        if (k > 0) q[(k - 1) / 2] += (k - 1) % 2 ? 1 : -1;
        add(amr::locate(t, l - 1, q).cell / 8);
      }
    }
  std::sort(g.begin(), g.end());
  g.erase(std::unique(g.begin(), g.end()), g.end());
  return g;
}

// The flux requests from the host lists' per-oct reflux layout (reflux_octs, reflux_begin): per
// coarse level the faces whose fine oct t does not own, in that order.
std::vector<std::vector<amr::RefluxFace>> flux_requests_by_oct(const amr::Tree& t, const amr::StepLists& lists) {
  std::vector<std::vector<amr::RefluxFace>> r(t.max_level + 1);
  for (std::size_t i = 0; i < lists.reflux_octs.size(); ++i)
    for (std::int64_t e = lists.reflux_begin[i]; e < lists.reflux_begin[i + 1]; ++e)
      if (!t.owns(lists.faces[e].fine_oct)) r[t.level[lists.reflux_octs[i]]].push_back(lists.faces[e]);
  return r;
}

bool same_faces(const std::vector<amr::RefluxFace>& a, const std::vector<amr::RefluxFace>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t e = 0; e < a.size(); ++e)
    if (a[e].cell != b[e].cell || a[e].face != b[e].face || a[e].fine_oct != b[e].fine_oct) return false;
  return true;
}

// Totals over the ranks of one tree and cut, for the cases to show they hold what they are named for.
struct RequestTotals {
  std::int64_t ghosts = 0, coarser_ghosts = 0, fluxes = 0;
  int ranks_without_refined_octs = 0;
};

// For every rank of cut p: the host's rank_lists (the bodies looped on the host) equal the oracles,
// and the emulated device's (set_owned, upload: its own lists, DeviceStep::rank_lists) equal the
// host's, level by level.
RequestTotals check_request_lists(amr::Tree& t, const std::vector<double>& u, const amr::AmrPartition& p,
                                  const std::string& what) {
  RequestTotals n;
  for (int k = 0; k < p.ranks(); ++k) {
    own(t, p, k);
    SCOPED_TRACE(what + ", rank " + std::to_string(k) + " of " + std::to_string(p.ranks()));
    const amr::StepLists lists = amr::build_step_lists(t);
    const amr::RankLists host = amr::rank_lists(t, lists);
    const std::vector<std::vector<amr::RefluxFace>> oracle_fluxes = flux_requests_by_oct(t, lists);
    EmulatedCounts counts;
    HostEmulatedStep dev(HydroParams{}, true, counts);
    dev.set_owned(t);
    dev.upload(t, u);
    amr::RankLists on_device;
    dev.rank_lists(on_device);
    for (const bool sub : {false, true}) EXPECT_EQ(dev.base_work(sub), base_work_by_father(t, sub));
    const std::size_t levels = std::size_t(t.max_level + 1);
    if (host.ghosts.size() != levels || host.fluxes.size() != levels || on_device.ghosts.size() != levels ||
        on_device.fluxes.size() != levels) {
      ADD_FAILURE() << "request lists without one entry per level";
      continue;
    }
    bool refined = false;
    for (int l = 0; l <= t.max_level; ++l) {
      EXPECT_EQ(host.ghosts[l], ghost_octs_by_lookup(t, l)) << "level " << l;
      EXPECT_EQ(on_device.ghosts[l], host.ghosts[l]) << "level " << l;
      EXPECT_TRUE(same_faces(host.fluxes[l], oracle_fluxes[l])) << "level " << l;
      EXPECT_TRUE(same_faces(on_device.fluxes[l], host.fluxes[l])) << "level " << l;
      n.ghosts += static_cast<std::int64_t>(host.ghosts[l].size());
      for (std::int32_t g : host.ghosts[l]) {
        EXPECT_FALSE(t.owns(g));
        n.coarser_ghosts += t.level[g] < l;
      }
      n.fluxes += static_cast<std::int64_t>(host.fluxes[l].size());
      if (l > 0) refined = refined || t.owned_last(l) > t.owned_first(l);
    }
    n.ranks_without_refined_octs += !refined;
  }
  t.owned_begin.clear();
  t.owned_end.clear();
  return n;
}

}  // namespace

TEST(AmrRanks, partition_tiles_levels_and_balances_work) {
  const OctMesh base = build_mesh({16, 16, 16}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  for (const bool sub : {false, true}) {
    amr::AmrConfig ac = amr_levels(2, "gradient", 2);
    ac.subcycle = sub;
    const auto r = initial_tree(base, "sedov", ac);
    const amr::Tree& t = r.tree;
    ASSERT_GT(t.octs_at(2), 0);
    const std::vector<std::int64_t> work = amr::base_work(t, sub);
    EXPECT_EQ(work, base_work_by_father(t, sub));
    std::int64_t total = 0, heaviest = 0;
    for (auto w : work) {
      total += w;
      heaviest = std::max(heaviest, w);
    }
    for (int n : {2, 3, 4, 7}) {
      const amr::AmrPartition p = amr::partition_tree(t, n, sub);
      ASSERT_EQ(p.ranks(), n);
      for (int k = 0; k < n; ++k) {
        EXPECT_LT(p.cut[k], p.cut[k + 1]);
        std::int64_t w = 0;
        for (std::int64_t b = p.cut[k]; b < p.cut[k + 1]; ++b) w += work[b];
        // A greedy cut overshoots its share by at most one base oct's work.
        EXPECT_LE(double(w), double(total) / n + double(heaviest)) << "rank " << k << " of " << n;
      }
      EXPECT_LE(amr::work_imbalance(t, p, sub), 1.0 + double(heaviest) * n / double(total));
      // The ranges tile every level in rank order.
      for (int l = 0; l <= t.max_level; ++l) {
        std::int64_t next = t.level_begin[l];
        std::vector<std::int64_t> b, e;
        for (int k = 0; k < n; ++k) {
          amr::owned_ranges(t, p, k, b, e);
          EXPECT_EQ(b[l], next);
          next = e[l];
        }
        EXPECT_EQ(next, t.level_begin[l + 1]);
      }
      // A son oct lives on its father's rank.
      for (std::int64_t o = t.level_begin[1]; o < t.noct(); o += 7)
        EXPECT_EQ(owner_of(t, p, o), owner_of(t, p, t.father[o] / 8));
    }
  }
  const auto r = initial_tree(base, "sedov", amr_levels(1, "gradient", 2));
  EXPECT_THROW(amr::partition_tree(r.tree, int(base.noct) + 1, false), copa::InputError);
}

// Sod 64x4x4 with the band 0 <= x <= 0.25 refined, 4 ranks (the mpi test sod-band-4ranks): the
// refined quarter holds 8 times the work of an unrefined one, so ranks 0 and 1 own refined base
// octs only and rank 3 none.
TEST(AmrRanks, band_case_has_whole_refined_and_unrefined_ranks) {
  const OctMesh base = build_mesh({64, 4, 4}, {Boundary::outflow, Boundary::outflow, Boundary::outflow});
  amr::AmrConfig ac = amr_levels(1, "band", 2);
  ac.criterion.band_lo = 0.0;
  ac.criterion.band_hi = 0.25;
  const auto r = initial_tree(base, "sod", ac);
  const amr::Tree& t = r.tree;
  // The 32 base octs with x < 0.25 and the buffer's next x column: 34 of 128.
  ASSERT_EQ(t.octs_at(1), 8 * 34);
  const amr::AmrPartition p = amr::partition_tree(t, 4, false);
  const auto refined = [&](std::int64_t b) {
    int n = 0;
    for (int c = 0; c < 8; ++c) n += t.son[b * 8 + c] >= 0;
    return n;
  };
  for (int k : {0, 1})
    for (std::int64_t b = p.cut[k]; b < p.cut[k + 1]; ++b) EXPECT_EQ(refined(b), 8) << "rank " << k << " base oct " << b;
  for (std::int64_t b = p.cut[3]; b < p.cut[4]; ++b) EXPECT_EQ(refined(b), 0) << "rank 3 base oct " << b;
}

// Sod 64x4x4 + 1 level on 3 ranks and Sedov 16^3 + 1 on 3 ranks (the mpi tests sod-static-cut-3ranks
// and sedov-l1-3ranks): the refinement front crosses a rank boundary, so some reflux faces have their
// coarse cell on one rank and their fine oct on another, and some rank's ghosts include an oct of
// a coarser level (the coarse neighbours a coarse-fine face prolongs from).
TEST(AmrRanks, front_crosses_a_rank_boundary) {
  const auto check = [](const char* problem, std::array<int, 3> cells, Boundary bc, double threshold) {
    const OctMesh base = build_mesh(cells, {bc, bc, bc});
    amr::AmrConfig ac = amr_levels(1, "gradient", 2);
    ac.criterion.density = ac.criterion.pressure = threshold;
    auto r = initial_tree(base, problem, ac);
    amr::Tree& t = r.tree;
    ASSERT_GT(t.octs_at(1), 0) << problem;
    const amr::AmrPartition p = amr::partition_tree(t, 3, false);
    const amr::StepLists lists = amr::build_step_lists(t);
    int crossing = 0;
    for (std::size_t i = 0; i < lists.reflux_octs.size(); ++i)
      for (std::int64_t e = lists.reflux_begin[i]; e < lists.reflux_begin[i + 1]; ++e)
        crossing += owner_of(t, p, lists.reflux_octs[i]) != owner_of(t, p, lists.faces[e].fine_oct);
    EXPECT_GT(crossing, 0) << problem;
    bool coarser_ghost = false;
    for (int k = 0; k < 3; ++k) {
      own(t, p, k);
      for (std::int32_t g : amr::ghost_octs(t, 1)) coarser_ghost = coarser_ghost || t.level[g] == 0;
      for (std::int32_t g : amr::ghost_octs(t, 1)) EXPECT_FALSE(t.owns(g));
    }
    EXPECT_TRUE(coarser_ghost) << problem;
  };
  check("sod", {64, 4, 4}, Boundary::outflow, 0.05);
  check("sedov", {16, 16, 16}, Boundary::periodic, 0.1);
}

// The GPU backends over ranks: the device lists (emulate_device_lists, the kernels' passes with
// lists_owns) of a partitioned tree are the host's lists of the owned octs (build_step_lists with
// keep_owned), leaf octs and reflux faces in the same order, and the device scan covers the owned
// leaf cells only: its maxima are those of the owned cells' host scan.
TEST(AmrRanks, device_lists_and_scan_cover_the_owned_octs) {
  const OctMesh base = build_mesh({16, 16, 16}, {Boundary::reflecting, Boundary::reflecting, Boundary::reflecting});
  auto r = initial_tree(base, "sedov", amr_levels(2, "gradient", 2));
  amr::Tree& t = r.tree;
  ASSERT_GT(t.octs_at(2), 0);
  const amr::StepLists whole = amr::build_step_lists(t);
  const amr::AmrPartition p = amr::partition_tree(t, 3, false);
  std::size_t leaves = 0, faces = 0;
  std::vector<double> speeds(t.max_level + 1, 0.0);
  for (int k = 0; k < 3; ++k) {
    own(t, p, k);
    const amr::StepLists host = amr::build_step_lists(t);
    amr::StepLists dev;
    amr::emulate_device_lists(t, dev);
    EXPECT_EQ(dev.leaf_octs, host.leaf_octs) << "rank " << k;
    EXPECT_EQ(dev.leaf_octs_begin, host.leaf_octs_begin) << "rank " << k;
    ASSERT_EQ(dev.faces.size(), host.faces.size()) << "rank " << k;
    for (std::size_t e = 0; e < dev.faces.size(); ++e) {
      EXPECT_EQ(dev.faces[e].cell, host.faces[e].cell);
      EXPECT_EQ(dev.faces[e].face, host.faces[e].face);
      EXPECT_EQ(dev.faces[e].fine_oct, host.faces[e].fine_oct);
    }
    for (std::int32_t o : dev.leaf_octs) EXPECT_TRUE(t.owns(o));
    leaves += dev.leaf_octs.size();
    faces += dev.faces.size();
    const amr::LeafScan ds = amr::emulate_leaf_scan(t, r.u, 1.4);
    const amr::LeafScan hs = amr::scan_leaves(t, r.u, 1.4, *amr::make_serial_loops());
    EXPECT_EQ(ds.max_speed, hs.max_speed) << "rank " << k;
    for (int l = 0; l <= t.max_level; ++l) speeds[l] = std::max(speeds[l], ds.max_speed[l]);
  }
  // Every leaf oct and reflux face on exactly one rank; the ranks' maxima are the whole scan's.
  EXPECT_EQ(leaves, whole.leaf_octs.size());
  EXPECT_EQ(faces, whole.faces.size());
  t.owned_begin.clear();
  t.owned_end.clear();
  EXPECT_EQ(speeds, amr::emulate_leaf_scan(t, r.u, 1.4).max_speed);
}

// The request lists the exchanges are built from (rank_lists, amr_ranks_body.hpp; DeviceStep::
// rank_lists on the GPU path, which brings them up in place of the tree) on the cases of the tests
// above and below: equal to the lookups' and the per-oct reflux layout's (the oracles), and the
// emulated device's equal to the host's, on every rank of 2, 3 and 4 ranks; the cases include a
// rank owning no refined oct (the band on 4 ranks), reflux faces across a rank boundary and ghosts
// of a coarser level (the fronts on 3 ranks), reflecting, outflow and periodic boundaries.
TEST(AmrRanks, request_lists_on_the_device_equal_the_host_lists) {
  {
    const OctMesh base = build_mesh({64, 4, 4}, {Boundary::outflow, Boundary::outflow, Boundary::outflow});
    amr::AmrConfig ac = amr_levels(1, "band", 2);
    ac.criterion.band_lo = 0.0;
    ac.criterion.band_hi = 0.25;
    auto r = initial_tree(base, "sod", ac);
    const RequestTotals n = check_request_lists(r.tree, r.u, amr::partition_tree(r.tree, 4, false), "sod band");
    EXPECT_GT(n.ranks_without_refined_octs, 0);
    EXPECT_GT(n.ghosts, 0);
  }
  const auto front = [](const char* problem, std::array<int, 3> cells, Boundary bc, double threshold, int levels) {
    const OctMesh base = build_mesh(cells, {bc, bc, bc});
    amr::AmrConfig ac = amr_levels(levels, "gradient", 2);
    ac.criterion.density = ac.criterion.pressure = threshold;
    auto r = initial_tree(base, problem, ac);
    EXPECT_GT(r.tree.octs_at(levels), 0) << problem;
    RequestTotals all;
    for (int ranks : {2, 3, 4}) {
      const RequestTotals n = check_request_lists(r.tree, r.u, amr::partition_tree(r.tree, ranks, false),
                                                  std::string(problem) + " " + std::to_string(levels) + " levels");
      all.fluxes += n.fluxes;
      all.coarser_ghosts += n.coarser_ghosts;
    }
    EXPECT_GT(all.fluxes, 0) << problem;
    EXPECT_GT(all.coarser_ghosts, 0) << problem;
  };
  front("sod", {64, 4, 4}, Boundary::outflow, 0.05, 1);
  front("sedov", {16, 16, 16}, Boundary::periodic, 0.1, 1);
  front("sedov", {16, 16, 16}, Boundary::reflecting, 0.1, 2);
}
