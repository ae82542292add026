#include "distributed/block_cyclic.hpp"

#include <cmath>
#include <cstdio>

#include "copa/errors.hpp"

namespace efie::dist {

ProcGrid default_proc_grid(int ranks) {
  int p = int(std::sqrt(double(ranks)));
  while (p > 1 && ranks % p != 0) --p;
  return {p, ranks / p};
}

ProcGrid parse_proc_grid(const std::string& text, int ranks) {
  if (text.empty()) return default_proc_grid(ranks);
  int p = 0, q = 0;
  char x = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &p, &x, &q, &extra) != 3 || (x != 'x' && x != 'X') || p < 1 || q < 1)
    throw copa::InputError("--proc-grid '" + text + "': expected PxQ with positive P and Q (e.g. 1x2)");
  if (long(p) * q != ranks)
    throw copa::InputError("--proc-grid " + text + " has " + std::to_string(long(p) * q) + " processes but the run has " +
                           std::to_string(ranks) + " MPI ranks");
  return {p, q};
}

long numroc(long n, long nb, int iproc, int nprocs) {
  const long blocks = n / nb;
  long count = (blocks / nprocs) * nb;
  const long extra_blocks = blocks % nprocs;
  if (iproc < extra_blocks)
    count += nb;
  else if (iproc == extra_blocks)
    count += n % nb;
  return count;
}

BlockCyclic::BlockCyclic(long n_, long nb_, ProcGrid grid_, int rank) : n(n_), nb(nb_), grid(grid_) {
  myrow = rank / grid.q;
  mycol = rank % grid.q;
  local_rows = numroc(n, nb, myrow, grid.p);
  local_cols = numroc(n, nb, mycol, grid.q);
}

}  // namespace efie::dist
