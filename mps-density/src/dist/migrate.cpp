#include "dist/migrate.hpp"

#include <string>

#include "copa/errors.hpp"
#include "copa/mpi.hpp"
#if defined(COPA_HAVE_MPI)
#include <mpi.h>
#endif

namespace mps::dist {

void append_record(const Particles& ps, std::size_t i, std::int64_t id, std::vector<double>& out) {
  out.insert(out.end(), {ps.x[i], ps.y[i], ps.z[i], ps.u[i], ps.v[i], ps.w[i], ps.p[i], static_cast<double>(ps.type[i]),
                         static_cast<double>(id)});
}

void take_record(const std::vector<double>& records, std::size_t k, Particles& ps, std::vector<std::int64_t>& ids) {
  const double* r = records.data() + k * record_size;
  ps.x.push_back(r[0]);
  ps.y.push_back(r[1]);
  ps.z.push_back(r[2]);
  ps.u.push_back(r[3]);
  ps.v.push_back(r[4]);
  ps.w.push_back(r[5]);
  ps.p.push_back(r[6]);
  ps.type.push_back(static_cast<std::uint8_t>(r[7]));
  ids.push_back(static_cast<std::int64_t>(r[8]));
}

void copy_particle(const Particles& from, std::size_t i, Particles& to) {
  to.x.push_back(from.x[i]);
  to.y.push_back(from.y[i]);
  to.z.push_back(from.z[i]);
  to.u.push_back(from.u[i]);
  to.v.push_back(from.v[i]);
  to.w.push_back(from.w[i]);
  to.p.push_back(from.p[i]);
  to.type.push_back(from.type[i]);
}

std::vector<double> exchange_records(const std::vector<std::vector<double>>& outgoing, std::vector<int>* from) {
  const int ranks = copa::mpi::size();
  if (static_cast<int>(outgoing.size()) != ranks)
    throw copa::RuntimeError("exchange_records: " + std::to_string(outgoing.size()) + " outgoing lists for " +
                             std::to_string(ranks) + " ranks");
  if (from) from->clear();
  std::vector<double> in;
#if defined(COPA_HAVE_MPI)
  if (ranks > 1) {
    // Counts in doubles fit int: a rank holds fewer than 2^31 / record_size particles (the memory
    // estimate refuses larger set-ups long before).
    std::vector<int> send_counts(ranks), recv_counts(ranks), send_displs(ranks, 0), recv_displs(ranks, 0);
    std::vector<double> send;
    for (int q = 0; q < ranks; ++q) {
      send_counts[q] = static_cast<int>(outgoing[q].size());
      send_displs[q] = static_cast<int>(send.size());
      send.insert(send.end(), outgoing[q].begin(), outgoing[q].end());
    }
    MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    long long total = 0;
    for (int q = 0; q < ranks; ++q) {
      recv_displs[q] = static_cast<int>(total);
      total += recv_counts[q];
    }
    in.resize(static_cast<std::size_t>(total));
    MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_DOUBLE, in.data(), recv_counts.data(),
                  recv_displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
    if (from)
      for (int q = 0; q < ranks; ++q) from->insert(from->end(), recv_counts[q] / record_size, q);
  }
#endif
  return in;
}

}  // namespace mps::dist
