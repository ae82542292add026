// copa-commbench: the cost of moving halo data between ranks with each transport of the halo
// layer, so that every halo timer of an app can be read as a fraction of the link's bandwidth.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "copa/halo.hpp"

namespace copa::commbench {

// Ping-pong between ranks 0 and 1: `ping` carries `elements` doubles from 0 to 1, `pong` back.
// Other ranks take part with no links (every exchange is constructed collectively).
struct PingPong {
  std::vector<halo::Link> ping, pong;
  std::int64_t field_elements = 0;
};
PingPong ping_pong_links(std::int64_t elements);

// A periodic 3D process grid (MPI_Dims_create) in which every rank sends one message of
// `elements` doubles to each of its 26 neighbours and receives one from each. Neighbours that are
// the same rank (few ranks) share one link; messages to oneself are local copies.
struct Halo3d {
  std::vector<halo::Link> links;
  std::int64_t field_elements = 0;
  int dims[3] = {1, 1, 1};
};
Halo3d halo3d_links(std::int64_t elements);

struct Timing {
  double median_s = 0;   // of the per-repetition max over ranks
  std::size_t bytes_per_direction = 0;  // bytes this rank sends to other ranks per exchange
};

// Times exchanges (after warm-up) on a field in host or device memory: each repetition starts
// after a barrier and ends when the field is complete (stream synchronised for device fields);
// `exchanges` in sequence per repetition (2 for a ping-pong round trip).
Timing time_exchanges(const std::vector<std::vector<halo::Link>>& exchanges, std::int64_t field_elements,
                      halo::Transport transport, halo::Memory memory, int warmup, int reps);

// Bytes an exchange of a field of this many elements needs on the host and on the device, checked
// before the links are built (message_elements: sent plus received by one rank).
struct Footprint {
  std::size_t host = 0, device = 0;
};
Footprint footprint(std::int64_t field_elements, std::int64_t message_elements, halo::Memory memory);

}  // namespace copa::commbench
