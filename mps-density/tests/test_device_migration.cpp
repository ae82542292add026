// The device rebuild of a distributed simulation (MpsKernels::migrate_on_device, README
// "Distributed runs") against a host reference of the same layout, in one process: the plan says
// this is rank 0 of 2 and its exchange plays rank 1, so the flags, scans and compactions of the
// leaving and ghost records, the merge of kept and arrived particles in global id order and the
// reload are checked without MPI. Only backends that migrate on the device run it (the gpu label);
// the host backends migrate on the host (skipped).
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "copa/backend.hpp"
#include "copa/testing.hpp"
#include "dist/migrate.hpp"
#include "dist/slabs.hpp"
#include "kernels.hpp"
#include "variants.hpp"

namespace {

// Fields that tell the particles apart: velocity and pressure from the global id.
mps::Problem labelled_dambreak() {
  auto pr = mps::dambreak_problem(2, 0.1, 0.005, 0);
  auto& ps = pr.particles;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    ps.u[i] = 1e-3 * static_cast<double>(i);
    ps.v[i] = -2e-3 * static_cast<double>(i);
    ps.p[i] = static_cast<double>(i) + 0.5;
  }
  return pr;
}

// Empty when got == want; otherwise the sizes (in items of `stride` values: records of
// dist::record_size doubles, or single indices) and the first item that differs, both sides.
template <class T>
std::string difference(const std::vector<T>& got, const std::vector<T>& want, std::size_t stride = 1) {
  if (got == want) return {};
  std::ostringstream s;
  s.precision(17);
  s << "sizes " << got.size() / stride << " got, " << want.size() / stride << " wanted";
  const std::size_t common = std::min(got.size(), want.size()) / stride;
  for (std::size_t k = 0; k < common; ++k) {
    if (std::equal(got.begin() + k * stride, got.begin() + (k + 1) * stride, want.begin() + k * stride)) continue;
    s << "; first difference at item " << k << ": got {";
    for (std::size_t f = 0; f < stride; ++f) s << (f ? " " : "") << got[k * stride + f];
    s << "} wanted {";
    for (std::size_t f = 0; f < stride; ++f) s << (f ? " " : "") << want[k * stride + f];
    s << "}";
    return s.str();
  }
  s << "; the first " << common << " items agree";
  return s.str();
}

}  // namespace

TEST(DeviceMigration, records_kept_sent_merged_and_ghosts_as_the_host_reference) {
  const auto global = labelled_dambreak();
  const auto& gp = global.particles;
  const mps::Grid& g = global.grid;
  mps::dist::Slabs slabs;
  slabs.axis = mps::dist::slab_axis(g);
  const int columns = mps::dist::column_count(g, slabs.axis);
  // The cut inside the water column, so that both sides hold particles near it.
  const int cut = mps::dist::column_of(g, slabs.axis, 0.5 * global.column_width + global.left_wall_face, 0.0);
  slabs.cuts = {0, cut, columns};
  const double width = global.re_lap + global.l0;
  auto column = [&](std::size_t i) { return mps::dist::column_of(g, slabs.axis, gp.x[i], gp.z[i]); };

  // Rank 0 holds the particles left of cut + 2 except every third id (some must now leave);
  // "rank 1" sends the third ids left of the cut (arrivals interleaved in id with the kept ones).
  mps::Problem local = global;
  local.particles = mps::Particles();
  local.particles.dim = gp.dim;
  std::vector<std::int64_t> ids;
  std::vector<double> leaving, arriving;
  std::vector<std::int64_t> owned_after;
  for (std::size_t i = 0; i < gp.size(); ++i) {
    const auto id = static_cast<std::int64_t>(i);
    if (column(i) < cut + 2 && i % 3 != 0) {
      mps::dist::copy_particle(gp, i, local.particles);
      ids.push_back(id);
      if (column(i) >= cut) mps::dist::append_record(gp, i, id, leaving);
    }
    if (column(i) < cut && i % 3 == 0) mps::dist::append_record(gp, i, id, arriving);
    if (column(i) < cut) owned_after.push_back(id);
  }
  double lo0, hi0, lo1, hi1;
  mps::dist::slab_bounds(g, slabs, 0, width, lo0, hi0);
  mps::dist::slab_bounds(g, slabs, 1, width, lo1, hi1);
  std::vector<double> ghosts_in;  // what rank 1 sends as ghosts: its particles inside rank 0's band
  std::vector<std::int64_t> ghost_ids;
  for (std::size_t i = 0; i < gp.size(); ++i)
    if (column(i) >= cut && gp.x[i] >= lo0 && gp.x[i] < hi0) {
      mps::dist::append_record(gp, i, static_cast<std::int64_t>(i), ghosts_in);
      ghost_ids.push_back(static_cast<std::int64_t>(i));
    }
  std::vector<double> ghosts_out;  // what rank 0 must send as ghosts (new owned order)
  std::vector<std::int64_t> ghost_send;
  for (std::size_t k = 0; k < owned_after.size(); ++k) {
    const auto i = static_cast<std::size_t>(owned_after[k]);
    if (gp.x[i] >= lo1 && gp.x[i] < hi1) {
      mps::dist::append_record(gp, i, owned_after[k], ghosts_out);
      ghost_send.push_back(static_cast<std::int64_t>(k));
    }
  }
  ASSERT_TRUE(!leaving.empty() && !arriving.empty() && !ghosts_in.empty() && !ghosts_out.empty());

  bool ran = false;
  for (auto be : copa::built_backends()) {
    // fine-lean and verlet search on a grid of their own (refined, widened): the cuts count
    // columns of the problem's grid all the same.
    for (const char* variant : {"fine-lean", "sorted-particle", "verlet"}) {
      SCOPED_TRACE(std::string(copa::to_string(be)) + " " + variant);
      mps::KernelOptions ko;
      ko.strategy = mps::strategy_named(variant);
      auto k = mps::make_kernels(be, ko);
      if (!k->migrates_on_device()) continue;
      ran = true;
      const double max_radius = std::max(local.re, local.re_lap);
      k->load(local, max_radius);
      k->set_global_ids(ids);
      k->prepare_neighbours(true);  // the storage in bucket order: the records follow the load order

      mps::DeviceRebuild plan;
      plan.frame = &local;
      plan.max_radius = max_radius;
      plan.rank = 0;
      plan.ranks = 2;
      plan.axis = slabs.axis;
      plan.cuts = slabs.cuts;
      plan.lo = {lo0, lo1};
      plan.hi = {hi0, hi1};
      int calls = 0;
      plan.exchange = [&](const std::vector<std::vector<double>>& out, std::vector<int>* from) {
        EXPECT_TRUE(out.size() == 2 && out[0].empty());
        const std::vector<double>& in = calls == 0 ? arriving : ghosts_in;
        const std::string d = difference(out[1], calls == 0 ? leaving : ghosts_out, mps::dist::record_size);
        EXPECT_TRUE(d.empty()) << (calls == 0 ? "leaving records: " : "ghost records: ") << d;
        ++calls;
        from->assign(in.size() / mps::dist::record_size, 1);
        return in;
      };
      const mps::RebuiltLayout layout = k->migrate_on_device(plan, ids.size());
      EXPECT_EQ(calls, 2);
      EXPECT_EQ(layout.owned, owned_after.size());
      EXPECT_EQ(layout.sent, static_cast<double>(leaving.size() / mps::dist::record_size));
      std::vector<std::int64_t> want_ids = owned_after;
      want_ids.insert(want_ids.end(), ghost_ids.begin(), ghost_ids.end());
      EXPECT_TRUE(layout.global_ids == want_ids) << "global ids: " << difference(layout.global_ids, want_ids);
      ASSERT_TRUE(layout.send.size() == 2 && layout.recv.size() == 2);
      EXPECT_TRUE(layout.send[0].empty() && layout.recv[0].empty());
      EXPECT_TRUE(layout.send[1] == ghost_send) << "ghost send list: " << difference(layout.send[1], ghost_send);
      std::vector<std::int64_t> want_recv;
      for (std::size_t k2 = 0; k2 < ghost_ids.size(); ++k2)
        want_recv.push_back(static_cast<std::int64_t>(owned_after.size() + k2));
      EXPECT_TRUE(layout.recv[1] == want_recv) << "ghost receive list: " << difference(layout.recv[1], want_recv);

      // The reloaded state holds every field of those particles, in that order (exact copies).
      mps::Particles now;
      k->store(now);
      ASSERT_EQ(now.size(), want_ids.size());
      std::size_t wrong = 0, first = want_ids.size();
      for (std::size_t j = 0; j < want_ids.size(); ++j) {
        const auto i = static_cast<std::size_t>(want_ids[j]);
        const bool differs = now.x[j] != gp.x[i] || now.y[j] != gp.y[i] || now.z[j] != gp.z[i] || now.u[j] != gp.u[i] ||
                             now.v[j] != gp.v[i] || now.w[j] != gp.w[i] || now.p[j] != gp.p[i] ||
                             now.type[j] != gp.type[i];
        if (differs && wrong++ == 0) first = j;
      }
      EXPECT_EQ(wrong, 0u) << "first wrong load index " << first;
      // And it runs: the neighbour sums work on the new layout.
      k->prepare_neighbours(true);
      k->number_density(local.re);
      const auto nd = k->get(mps::Field::n);
      ASSERT_EQ(nd.size(), want_ids.size());
      EXPECT_GT(nd[0], 0.0);
    }
  }
  if (!ran) GTEST_SKIP() << "no built backend migrates on the device";
}
