#include "distributed/host_messages.hpp"

#include <algorithm>
#include <cstring>

#include "copa/errors.hpp"
#if defined(COPA_HAVE_MPI)
#include <mpi.h>
#endif

namespace efie::dist {

#if defined(COPA_HAVE_MPI)
namespace {
constexpr std::size_t chunk = std::size_t(1) << 30;

void bcast_on(MPI_Comm comm, void* data, std::size_t bytes, int root) {
  char* p = static_cast<char*>(data);
  for (std::size_t off = 0; off < bytes; off += chunk) MPI_Bcast(p + off, int(std::min(chunk, bytes - off)), MPI_BYTE, root, comm);
}

// MPI_User_function of column_maxloc: one element is the whole candidate (w + 1 complex numbers as
// 2 (w + 1) doubles), so the winner's row travels with its magnitude.
void maxloc_candidate(void* in, void* inout, int* len, MPI_Datatype* type) {
  int bytes = 0;
  MPI_Type_size(*type, &bytes);
  const double* a = static_cast<const double*>(in);
  double* b = static_cast<double*>(inout);
  for (int e = 0; e < *len; ++e, a += bytes / sizeof(double), b += bytes / sizeof(double)) {
    const bool a_wins = a[0] > b[0] || (a[0] == b[0] && a[1] >= 0 && (b[1] < 0 || a[1] < b[1]));
    if (a_wins) std::memcpy(b, a, std::size_t(bytes));
  }
}
}  // namespace

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

void host_bcast(void* data, std::size_t bytes, int root) { bcast_on(MPI_COMM_WORLD, data, bytes, root); }

void host_sum(double* data, std::size_t count) {
  MPI_Allreduce(MPI_IN_PLACE, data, int(count), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

struct GridLines::Comms {
  MPI_Comm row = MPI_COMM_NULL, column = MPI_COMM_NULL;
  MPI_Op maxloc = MPI_OP_NULL;
};

GridLines::GridLines(int myrow, int mycol) : comms_(std::make_unique<Comms>()) {
  MPI_Comm_split(MPI_COMM_WORLD, myrow, mycol, &comms_->row);
  MPI_Comm_split(MPI_COMM_WORLD, mycol, myrow, &comms_->column);
  MPI_Op_create(&maxloc_candidate, 1, &comms_->maxloc);
}

GridLines::~GridLines() {
  MPI_Op_free(&comms_->maxloc);
  MPI_Comm_free(&comms_->column);
  MPI_Comm_free(&comms_->row);
}

void GridLines::row_bcast(void* data, std::size_t bytes, int root_col) const { bcast_on(comms_->row, data, bytes, root_col); }
void GridLines::column_bcast(void* data, std::size_t bytes, int root_row) const { bcast_on(comms_->column, data, bytes, root_row); }

void GridLines::column_maxloc(complex* candidate, long w) const {
  MPI_Datatype type;
  MPI_Type_contiguous(int(2 * (w + 1)), MPI_DOUBLE, &type);
  MPI_Type_commit(&type);
  MPI_Allreduce(MPI_IN_PLACE, candidate, 1, type, comms_->maxloc, comms_->column);
  MPI_Type_free(&type);
}

void GridLines::column_exchange(const std::vector<Message>& sends, const std::vector<Message>& recvs) const {
  std::vector<MPI_Request> requests;
  for (const Message& m : recvs) {
    if (m.bytes > chunk) throw copa::RuntimeError("row interchange message over 1 GiB");
    requests.emplace_back();
    MPI_Irecv(m.data, int(m.bytes), MPI_BYTE, m.row, 11, comms_->column, &requests.back());
  }
  for (const Message& m : sends) {
    if (m.bytes > chunk) throw copa::RuntimeError("row interchange message over 1 GiB");
    requests.emplace_back();
    MPI_Isend(m.data, int(m.bytes), MPI_BYTE, m.row, 11, comms_->column, &requests.back());
  }
  MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}
#else
void host_send(const void*, std::size_t, int, int) { throw copa::RuntimeError("host_send: this build has no MPI"); }
void host_recv(void*, std::size_t, int, int) { throw copa::RuntimeError("host_recv: this build has no MPI"); }
void host_bcast(void*, std::size_t, int) { throw copa::RuntimeError("host_bcast: this build has no MPI"); }
void host_sum(double*, std::size_t) { throw copa::RuntimeError("host_sum: this build has no MPI"); }

struct GridLines::Comms {};
GridLines::GridLines(int, int) { throw copa::RuntimeError("GridLines: this build has no MPI"); }
GridLines::~GridLines() = default;
void GridLines::row_bcast(void*, std::size_t, int) const {}
void GridLines::column_bcast(void*, std::size_t, int) const {}
void GridLines::column_maxloc(complex*, long) const {}
void GridLines::column_exchange(const std::vector<Message>&, const std::vector<Message>&) const {}
#endif

}  // namespace efie::dist
