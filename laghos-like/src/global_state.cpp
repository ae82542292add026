#include "global_state.hpp"

#include <cstdint>

#include "copa/errors.hpp"
#include "copa/mpi.hpp"

#if defined(COPA_HAVE_MPI)
#include <mpi.h>
#endif

namespace laghos {

namespace {

// H1 nodes and zones per axis of a box, and the state size they give.
struct BoxSizes {
  std::array<std::int64_t, 3> nodes{1, 1, 1}, zones{1, 1, 1};
  std::int64_t nh1 = 1, ne = 1;
};

BoxSizes sizes_of(const std::array<int, 3>& cells, int dim, int k) {
  BoxSizes s;
  for (int c = 0; c < dim; ++c) {
    s.zones[c] = cells[c];
    s.nodes[c] = static_cast<std::int64_t>(cells[c]) * k + 1;
  }
  s.nh1 = s.nodes[0] * s.nodes[1] * s.nodes[2];
  s.ne = s.zones[0] * s.zones[1] * s.zones[2];
  return s;
}

#if defined(COPA_HAVE_MPI)
// Copies rank `r`'s local state into the global one.
void place(const Partition& p, int k, int nl, int r, const double* local, std::vector<double>& global) {
  const int dim = p.dim;
  const CellBox box = p.box(r);
  std::array<int, 3> cells{1, 1, 1};
  for (int c = 0; c < dim; ++c) cells[c] = box.cells(c);
  const BoxSizes L = sizes_of(cells, dim, k), G = sizes_of(p.global_cells, dim, k);
  const std::int64_t lvs = dim * L.nh1, gvs = dim * G.nh1;
  std::array<std::int64_t, 3> i{0, 0, 0};
  for (i[2] = 0; i[2] < L.nodes[2]; ++i[2])
    for (i[1] = 0; i[1] < L.nodes[1]; ++i[1])
      for (i[0] = 0; i[0] < L.nodes[0]; ++i[0]) {
        const std::int64_t l = i[0] + L.nodes[0] * (i[1] + L.nodes[1] * i[2]);
        const std::int64_t g = (box.lo[0] * k + i[0]) +
                               G.nodes[0] * ((box.lo[1] * k + i[1]) + G.nodes[1] * (box.lo[2] * k + i[2]));
        for (int part = 0; part < 2; ++part)  // x, then v
          for (int c = 0; c < dim; ++c) global[part * gvs + c * G.nh1 + g] = local[part * lvs + c * L.nh1 + l];
      }
  for (i[2] = 0; i[2] < L.zones[2]; ++i[2])
    for (i[1] = 0; i[1] < L.zones[1]; ++i[1])
      for (i[0] = 0; i[0] < L.zones[0]; ++i[0]) {
        const std::int64_t l = i[0] + L.zones[0] * (i[1] + L.zones[1] * i[2]);
        const std::int64_t g = (box.lo[0] + i[0]) + G.zones[0] * ((box.lo[1] + i[1]) + G.zones[1] * (box.lo[2] + i[2]));
        for (int j = 0; j < nl; ++j) global[2 * gvs + g * nl + j] = local[2 * lvs + l * nl + j];
      }
}
#endif

}  // namespace

std::vector<double> gather_global_state(const Partition& p, int k, int nl, const std::vector<double>& local_state) {
  const int ranks = copa::mpi::size();
  if (ranks == 1) return local_state;
  const BoxSizes G = sizes_of(p.global_cells, p.dim, k);
  const std::int64_t global_size = 2 * p.dim * G.nh1 + G.ne * nl;
#if defined(COPA_HAVE_MPI)
  const int me = copa::mpi::rank();
  std::vector<int> counts(ranks, 0), offsets(ranks, 0);
  std::int64_t total = 0;
  for (int r = 0; r < ranks; ++r) {
    const CellBox box = p.box(r);
    std::array<int, 3> cells{1, 1, 1};
    for (int c = 0; c < p.dim; ++c) cells[c] = box.cells(c);
    const BoxSizes L = sizes_of(cells, p.dim, k);
    const std::int64_t n = 2 * p.dim * L.nh1 + L.ne * nl;
    if (n > INT32_MAX || total > INT32_MAX) throw copa::RuntimeError("state gather: a rank's state exceeds MPI's int counts");
    counts[r] = static_cast<int>(n);
    offsets[r] = static_cast<int>(total);
    total += n;
  }
  if (static_cast<std::int64_t>(local_state.size()) != counts[me])
    throw copa::RuntimeError("state gather: the local state does not match the partition's box");
  std::vector<double> all(me == 0 ? static_cast<std::size_t>(total) : 0);
  MPI_Gatherv(local_state.data(), counts[me], MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0,
              MPI_COMM_WORLD);
  if (me != 0) return {};
  std::vector<double> global(static_cast<std::size_t>(global_size), 0.0);
  for (int r = 0; r < ranks; ++r) place(p, k, nl, r, all.data() + offsets[r], global);
  return global;
#else
  (void)global_size;
  throw copa::RuntimeError("state gather: several ranks without MPI");
#endif
}

}  // namespace laghos
