// AMR over ranks on the GPU backends: the request lists and the work per base oct that the device
// builds (GpuAmrStep::rank_lists and base_work, amr_gpu_lists.cu) for each rank's owned octs
// equal the host's (rank_lists, base_work: the same bodies looped on the host) on trees with a
// rank that owns no refined oct, reflux faces across rank boundaries and ghosts of a coarser level.
// One process: the owned ranges of every rank are set in turn (gpu label: CUDA or HIP builds).
#include <memory>
#include <string>
#include <vector>

#include "amr/amr_gpu.hpp"
#include "amr/amr_ranks.hpp"
#include "copa/testing.hpp"
#include "test_amr_helpers.hpp"

using namespace ro;
using namespace ro::amr_test;

namespace {

bool same_faces(const std::vector<amr::RefluxFace>& a, const std::vector<amr::RefluxFace>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t e = 0; e < a.size(); ++e)
    if (a[e].cell != b[e].cell || a[e].face != b[e].face || a[e].fine_oct != b[e].fine_oct) return false;
  return true;
}

// Every rank of `ranks` on the initial tree of the case: the device's lists and work = the host's.
// Returns the requested reflux faces over all ranks.
std::int64_t check_case(const char* problem, std::array<int, 3> cells, Boundary bc, amr::AmrConfig ac, int ranks) {
  const OctMesh base = build_mesh(cells, {bc, bc, bc});
  auto r = amr::run_amr(copa::Backend::serial, base, amr_config(problem, 1.0, 0), ac);
  amr::Tree& t = r.tree;
  const amr::AmrPartition p = amr::partition_tree(t, ranks, false);
  std::int64_t fluxes = 0;
  for (int k = 0; k < ranks; ++k) {
    SCOPED_TRACE(std::string(problem) + ", rank " + std::to_string(k) + " of " + std::to_string(ranks));
    amr::owned_ranges(t, p, k, t.owned_begin, t.owned_end);
    const amr::RankLists host = amr::rank_lists(t, amr::build_step_lists(t));
    std::unique_ptr<amr::DeviceStep> dev = amr::make_gpu_amr_step(HydroParams{}, true);
    dev->set_owned(t);
    dev->upload(t, r.u);
    amr::RankLists on_device;
    dev->rank_lists(on_device);
    EXPECT_EQ(on_device.ghosts, host.ghosts);
    EXPECT_EQ(on_device.fluxes.size(), host.fluxes.size());
    for (std::size_t l = 0; l < host.fluxes.size() && l < on_device.fluxes.size(); ++l) {
      EXPECT_TRUE(same_faces(on_device.fluxes[l], host.fluxes[l])) << "level " << l;
      fluxes += static_cast<std::int64_t>(host.fluxes[l].size());
    }
    for (const bool sub : {false, true}) EXPECT_EQ(dev->base_work(sub), amr::base_work(t, sub));
  }
  return fluxes;
}

}  // namespace

TEST(AmrRanks, device_request_lists_and_work_on_the_gpu_equal_the_host) {
  amr::AmrConfig band = amr_levels(1, "band", 2);
  band.criterion.band_lo = 0.0;
  band.criterion.band_hi = 0.25;
  check_case("sod", {64, 4, 4}, Boundary::outflow, band, 4);
  amr::AmrConfig front = amr_levels(1, "gradient", 2);
  front.criterion.density = front.criterion.pressure = 0.05;
  EXPECT_GT(check_case("sod", {64, 4, 4}, Boundary::outflow, front, 3), 0);
  amr::AmrConfig two = amr_levels(2, "gradient", 2);
  two.criterion.density = two.criterion.pressure = 0.1;
  EXPECT_GT(check_case("sedov", {16, 16, 16}, Boundary::periodic, two, 3), 0);
  EXPECT_GT(check_case("sedov", {16, 16, 16}, Boundary::reflecting, two, 2) +
                check_case("sedov", {16, 16, 16}, Boundary::reflecting, two, 4),
            0);
}
