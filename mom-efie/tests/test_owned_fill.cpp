// The owned-entry fill of the distributed matrix (no MPI needed: every rank of a fictitious grid is
// filled in turn): each block equals the serial engine's matrix at the entries it owns, and the
// threads' column ranges do not change a bit (each entry is summed in the same order).
#include <cmath>
#include <vector>

#include "copa/testing.hpp"
#include "copa/timing.hpp"
#include "distributed/owned_fill.hpp"
#include "kernels.hpp"
#include "mesh.hpp"

using namespace efie;
using namespace efie::dist;

TEST(OwnedFill, owned_blocks_equal_the_serial_matrix) {
  const Problem p = make_problem(make_sphere(1.0, 2), 1.0, 1.0, PlaneWave{});
  const long n = p.unknowns();
  auto serial = make_serial_engine(n);
  serial->upload(p);
  copa::Profile profile;
  copa::HostTimer timer(profile);
  serial->fill(timer);
  const std::vector<complex> a = serial->matrix();
  double scale = 0;
  for (const complex& v : a) scale = std::max(scale, std::abs(v));

  for (const ProcGrid grid : {ProcGrid{1, 2}, ProcGrid{2, 3}, ProcGrid{3, 1}})
    for (long nb : {7L, 32L}) {
      double entries = 0;
      for (int rank = 0; rank < grid.p * grid.q; ++rank) {
        const BlockCyclic l(n, nb, grid, rank);
        std::vector<complex> one(std::size_t(l.lld()) * l.local_cols), three(one.size());
        fill_owned_host(p, l, one.data(), 1);
        fill_owned_host(p, l, three.data(), 3);
        double diff = 0;
        for (long c = 0; c < l.local_cols; ++c)
          for (long r = 0; r < l.local_rows; ++r) {
            const complex got = one[r + c * l.lld()];
            diff = std::max(diff, std::abs(got - a[l.global_row(r) + l.global_col(c) * n]));
            EXPECT_TRUE(got == three[r + c * l.lld()]);
          }
        EXPECT_TRUE(diff <= 1e-13 * scale);
        entries += l.local_entries();
      }
      EXPECT_TRUE(entries == double(n) * double(n));
    }
}

TEST(OwnedFill, owned_vector_keeps_process_column_zero_rows) {
  std::vector<complex> v(50);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = complex(double(i), -double(i));
  const ProcGrid grid{2, 2};
  std::vector<int> seen(v.size(), 0);
  for (int rank = 0; rank < 4; ++rank) {
    const BlockCyclic l(50, 6, grid, rank);
    const auto mine = owned_vector(v, l);
    EXPECT_TRUE(mine.size() == (l.mycol == 0 ? std::size_t(l.local_rows) : 0));
    for (std::size_t r = 0; r < mine.size(); ++r) {
      EXPECT_TRUE(mine[r] == v[l.global_row(long(r))]);
      ++seen[l.global_row(long(r))];
    }
  }
  for (int s : seen) EXPECT_TRUE(s == 1);
}
