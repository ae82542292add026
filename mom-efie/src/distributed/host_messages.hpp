// Host MPI messages on MPI_COMM_WORLD for the distributed LU (messages over 1 GiB go in chunks).
// In builds without MPI they throw (the distributed path only runs on more than one rank).
#pragma once
#include <cstddef>

namespace efie::dist {

void host_send(const void* data, std::size_t bytes, int peer, int tag);
void host_recv(void* data, std::size_t bytes, int peer, int tag);
void host_bcast(void* data, std::size_t bytes, int root);

}  // namespace efie::dist
