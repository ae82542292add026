// Host MPI messages on MPI_COMM_WORLD for the distributed LU (messages over 1 GiB go in chunks).
// In builds without MPI they throw (the distributed path only runs on more than one rank).
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "problem.hpp"

namespace efie::dist {

void host_send(const void* data, std::size_t bytes, int peer, int tag);
void host_recv(void* data, std::size_t bytes, int peer, int tag);
void host_bcast(void* data, std::size_t bytes, int root);
// Element-wise sum over MPI_COMM_WORLD, in place.
void host_sum(double* data, std::size_t count);

// The process grid's rows and columns as communicators (MPI_Comm_split of MPI_COMM_WORLD): in its
// row a rank's index is its process column, in its column its process row. Collective to build.
class GridLines {
 public:
  GridLines(int myrow, int mycol);
  ~GridLines();
  GridLines(const GridLines&) = delete;
  GridLines& operator=(const GridLines&) = delete;

  void row_bcast(void* data, std::size_t bytes, int root_col) const;
  void column_bcast(void* data, std::size_t bytes, int root_row) const;
  // The partial-pivoting MAXLOC over the process column: candidate[0] = (|a|, global row) (row -1:
  // no candidate), candidate[1..w] the candidate's panel row. On return every rank of the column
  // holds the winner: the largest |a|, ties to the smallest global row, so the result is the same
  // whatever order MPI combines the ranks in.
  void column_maxloc(complex* candidate, long w) const;
  // Point-to-point messages between process rows of this process column, all posted at once.
  struct Message {
    int row;
    void* data;
    std::size_t bytes;
  };
  void column_exchange(const std::vector<Message>& sends, const std::vector<Message>& recvs) const;

 private:
  struct Comms;
  std::unique_ptr<Comms> comms_;
};

}  // namespace efie::dist
