#include <mpi.h>

#include <array>
#include <map>

#include "commbench.hpp"
#include "copa/mpi.hpp"

namespace copa::commbench {

PingPong ping_pong_links(std::int64_t elements) {
  PingPong p;
  p.field_elements = elements;
  std::vector<std::int64_t> all(static_cast<std::size_t>(elements));
  for (std::int64_t i = 0; i < elements; ++i) all[static_cast<std::size_t>(i)] = i;
  if (mpi::size() < 2) return p;
  if (mpi::rank() == 0) {
    p.ping = {halo::Link{1, all, {}}};
    p.pong = {halo::Link{1, {}, all}};
  } else if (mpi::rank() == 1) {
    p.ping = {halo::Link{0, {}, all}};
    p.pong = {halo::Link{0, all, {}}};
  }
  return p;
}

Halo3d halo3d_links(std::int64_t elements) {
  Halo3d h;
  const int ranks = mpi::size();
  h.dims[0] = h.dims[1] = h.dims[2] = 0;  // 0: let MPI choose
  MPI_Dims_create(ranks, 3, h.dims);
  // Rank r has grid coordinates (x, y, z), x fastest; the grid is periodic in every direction.
  auto coords = [&](int r) { return std::array<int, 3>{r % h.dims[0], (r / h.dims[0]) % h.dims[1], r / (h.dims[0] * h.dims[1])}; };
  auto rank_at = [&](std::array<int, 3> c) {
    for (int d = 0; d < 3; ++d) c[d] = ((c[d] % h.dims[d]) + h.dims[d]) % h.dims[d];
    return c[0] + h.dims[0] * (c[1] + h.dims[1] * c[2]);
  };
  auto neighbour = [&](int r, int o, int sign) {
    auto c = coords(r);
    const int offset[3] = {o % 3 - 1, (o / 3) % 3 - 1, o / 9 - 1};
    for (int d = 0; d < 3; ++d) c[d] += sign * offset[d];
    return rank_at(c);
  };
  // The field: 26 send slots then 26 receive slots of `elements` each. A rank lists the messages
  // to one peer in ascending offset order, and the receiver lists the slots of the same offsets
  // in the same order, so that each message lands in the receive slot of its direction.
  const int me = mpi::rank();
  std::map<int, halo::Link> by_peer;
  int slot = 0;
  for (int o = 0; o < 27; ++o) {
    if (o == 13) continue;  // (0, 0, 0): not a neighbour
    const std::int64_t send_base = slot * elements, recv_base = (26 + slot) * elements;
    halo::Link& to = by_peer[neighbour(me, o, +1)];
    for (std::int64_t i = 0; i < elements; ++i) to.send.push_back(send_base + i);
    halo::Link& from = by_peer[neighbour(me, o, -1)];
    for (std::int64_t i = 0; i < elements; ++i) from.recv.push_back(recv_base + i);
    ++slot;
  }
  for (auto& [peer, link] : by_peer) {
    link.peer = peer;
    h.links.push_back(std::move(link));
  }
  h.field_elements = 52 * elements;
  return h;
}

}  // namespace copa::commbench
