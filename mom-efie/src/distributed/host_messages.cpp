#include "distributed/host_messages.hpp"

#include <algorithm>

#include "copa/errors.hpp"
#if defined(COPA_HAVE_MPI)
#include <mpi.h>
#endif

namespace efie::dist {

#if defined(COPA_HAVE_MPI)
namespace {
constexpr std::size_t chunk = std::size_t(1) << 30;
}

void host_send(const void* data, std::size_t bytes, int peer, int tag) {
  const char* p = static_cast<const char*>(data);
  for (std::size_t off = 0; off < bytes; off += chunk)
    MPI_Send(p + off, int(std::min(chunk, bytes - off)), MPI_BYTE, peer, tag, MPI_COMM_WORLD);
}

void host_recv(void* data, std::size_t bytes, int peer, int tag) {
  char* p = static_cast<char*>(data);
  for (std::size_t off = 0; off < bytes; off += chunk)
    MPI_Recv(p + off, int(std::min(chunk, bytes - off)), MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

void host_bcast(void* data, std::size_t bytes, int root) {
  char* p = static_cast<char*>(data);
  for (std::size_t off = 0; off < bytes; off += chunk)
    MPI_Bcast(p + off, int(std::min(chunk, bytes - off)), MPI_BYTE, root, MPI_COMM_WORLD);
}
#else
void host_send(const void*, std::size_t, int, int) { throw copa::RuntimeError("host_send: this build has no MPI"); }
void host_recv(void*, std::size_t, int, int) { throw copa::RuntimeError("host_recv: this build has no MPI"); }
void host_bcast(void*, std::size_t, int) { throw copa::RuntimeError("host_bcast: this build has no MPI"); }
#endif

}  // namespace efie::dist
