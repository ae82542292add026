// The split over ranks, run in one process: every "rank" has its own local mesh and kernels, the
// halo links are applied by copying between the local states (what copa::halo does over MPI), the
// dt is the max over the ranks. N ranks must reproduce one rank bit for bit.
#include <iostream>
#include <memory>
#include <set>

#include "copa/errors.hpp"
#include "copa/testing.hpp"
#include "uniform/decomposition.hpp"
#include "variants.hpp"
#include "uniform/kernels.hpp"
#include "hydro/reference.hpp"
#include "test_helpers.hpp"

using namespace ro;

namespace {

// Applies every rank's receive list from its peers' send lists.
void exchange(std::vector<LocalDomain>& doms, std::vector<std::unique_ptr<HydroKernels>>& ks) {
  for (std::size_t r = 0; r < doms.size(); ++r)
    for (const auto& link : doms[r].links) {
      const auto& peer_links = doms[link.peer].links;
      const auto back = std::find_if(peer_links.begin(), peer_links.end(), [&](const copa::halo::Link& l) {
        return l.peer == int(r);
      });
      EXPECT_TRUE(back != peer_links.end());
      EXPECT_TRUE(back->send.size() == link.recv.size());
      const std::int64_t nr = doms[r].mesh.ncell(), np = doms[link.peer].mesh.ncell();
      double* dst = ks[r]->state();
      const double* src = ks[link.peer]->state();
      for (int f = 0; f < nvar; ++f)
        for (std::size_t i = 0; i < link.recv.size(); ++i) dst[f * nr + link.recv[i]] = src[f * np + back->send[i]];
    }
}

struct Split {
  std::vector<double> u;  // gathered global state
  double t = 0;
};

Split run_split(copa::Backend b, const std::string& problem, std::array<int, 3> cells, Boundary bc, int ranks,
                long steps) {
  const OctMesh g = build_mesh(cells, {bc, bc, bc});
  ProblemParams pp;
  pp.name = problem;
  const Partition part = partition_mesh(g, ranks);
  std::vector<LocalDomain> doms;
  std::vector<std::unique_ptr<HydroKernels>> ks;
  copa::Profile prof;
  copa::HostTimer timer(prof);
  for (int r = 0; r < ranks; ++r) doms.push_back(build_local_domain(g, part, r));
  for (int r = 0; r < ranks; ++r) {
    SolverSetup s;
    s.mesh = &doms[r].mesh;
    s.variant = default_selection(registry(), b, ranks, doms[r].mesh);
    s.timer = &timer;
    ks.push_back(make_kernels(b, s));
    std::vector<double> u0;
    initialise(doms[r].mesh, pp, u0);
    ks[r]->load(u0);
  }
  auto global_speed = [&](bool advance, double dt) {
    double v = 0;
    for (auto& k : ks) v = std::max(v, (advance ? k->advance(dt) : k->scan()).max_speed);
    return v;
  };
  double speed = global_speed(false, 0), t = 0;
  const double tend = default_tend(g, pp);
  for (long s = 0; s < steps && t < tend; ++s) {
    double dt = 0.8 * g.dx / speed;
    if (t + dt > tend) dt = tend - t;
    exchange(doms, ks);
    speed = global_speed(true, dt);
    t += dt;
  }
  Split out;
  out.t = t;
  out.u.assign(g.ncell() * nvar, 0);
  for (int r = 0; r < ranks; ++r) {
    std::vector<double> u;
    ks[r]->store(u);
    const OctMesh& m = doms[r].mesh;
    for (int f = 0; f < nvar; ++f)
      for (std::int64_t c = 0; c < m.nowned_cells(); ++c) out.u[f * g.ncell() + m.first_global * 8 + c] = u[f * m.ncell() + c];
  }
  return out;
}

}  // namespace

TEST(Decomposition, ranks_reproduce_one_rank_bitwise) {
  struct Case {
    std::string problem;
    std::array<int, 3> cells;
    Boundary bc;
    long steps;
  };
  const Case cases[] = {
      {"sedov", {16, 16, 16}, Boundary::periodic, 12},   // power-of-two cube: aligned sub-bricks on 2 ranks
      {"sedov", {12, 12, 12}, Boundary::reflecting, 10}, // even, not a power of two
      {"sod", {40, 4, 4}, Boundary::outflow, 20},        // brick, outflow
      {"sound", {10, 6, 6}, Boundary::periodic, 8},      // odd oct extents: no whole groups, wrap across ranks
  };
  std::vector<copa::Backend> backends = {copa::Backend::serial};
#if defined(COPA_HAVE_OPENMP)
  backends.push_back(copa::Backend::openmp);
#endif
  for (const Case& c : cases)
    for (copa::Backend b : backends) {
      const auto one = test::run_problem(copa::Backend::serial, c.problem, c.cells, c.bc, c.steps);
      for (int ranks : {2, 3}) {
        const Split s = run_split(b, c.problem, c.cells, c.bc, ranks, c.steps);
        const bool same = s.u == one.u && s.t == one.t;
        std::cout << c.problem << " " << c.cells[0] << "x" << c.cells[1] << "x" << c.cells[2] << " "
                  << copa::to_string(b) << " " << ranks << " ranks: " << (same ? "bitwise equal" : "DIFFERENT")
                  << " (relative L2 " << relative_l2(s.u, one.u) << ", checksums " << hex(state_checksum(s.u)) << " "
                  << hex(state_checksum(one.u)) << ")\n";
        EXPECT_TRUE(same);
      }
    }
}

TEST(Decomposition, partition_is_contiguous_and_ghosts_complete) {
  const OctMesh g = build_mesh({16, 16, 16}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  // 2^k ranks on a power-of-two cube: each range is an aligned sub-brick (its bounding box holds
  // exactly its octs, and starts at a multiple of its size; 4 ranks on 8^3 octs: 8 x 4 x 4).
  const Partition p4 = partition_mesh(g, 4);
  for (int r = 0; r < 4; ++r) {
    std::array<int, 3> lo = {1 << 30, 1 << 30, 1 << 30}, hi = {-1, -1, -1};
    for (std::int64_t o = p4.split[r]; o < p4.split[r + 1]; ++o)
      for (int a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], int(g.coord[a][o]));
        hi[a] = std::max(hi[a], int(g.coord[a][o]));
      }
    const std::int64_t box = std::int64_t(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
    EXPECT_TRUE(p4.owned(r) == g.noct / 4 && box == p4.owned(r));
    for (int a = 0; a < 3; ++a) EXPECT_TRUE(lo[a] % (hi[a] - lo[a] + 1) == 0);
  }
  // Every neighbour of an owned oct is stored locally, and every ghost has a sender.
  const Partition p3 = partition_mesh(g, 3);
  for (int r = 0; r < 3; ++r) {
    const LocalDomain d = build_local_domain(g, p3, r);
    std::int64_t nb[27];
    for (std::int64_t o = p3.split[r]; o < p3.split[r + 1]; ++o) {
      neighbourhood(g, o, nb);
      for (std::int64_t n : nb)
        EXPECT_TRUE((n >= p3.split[r] && n < p3.split[r + 1]) ||
                   std::binary_search(d.ghost_global.begin(), d.ghost_global.end(), n));
    }
    std::size_t received = 0;
    for (const auto& l : d.links) received += l.recv.size();
    EXPECT_TRUE(received == d.ghost_global.size() * 8);
  }
}

TEST(Decomposition, rank_without_cells_is_refused) {
  // 4 x 4 x 8 cells = 16 octs = 2 whole groups: 2 ranks get a group each, 3 ranks single octs
  // (6/5/5), 17 ranks are refused.
  const OctMesh g = build_mesh({4, 4, 8}, {Boundary::periodic, Boundary::periodic, Boundary::periodic});
  EXPECT_TRUE(partition_mesh(g, 2).owned(1) == 8);
  const Partition p3 = partition_mesh(g, 3);
  EXPECT_TRUE(p3.owned(0) == 5 && p3.owned(1) == 5 && p3.owned(2) == 6);
  bool refused = false;
  try {
    partition_mesh(g, 17);
  } catch (const copa::InputError& e) {
    refused = true;
    std::cout << e.what() << "\n";
  }
  EXPECT_TRUE(refused);
}
