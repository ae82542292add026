// The Pliris-style LU (pliris_host_solve, or with ENGINE gpu pliris_gpu_solve: the same template on
// the device, the interchanges packed and unpacked by kernels through pinned staging) on random
// dense complex matrices with no diagonal dominance, where partial pivoting moves most rows and
// most pivots live on another process row than the diagonal: the EFIE matrix of the app tests
// pivots rarely (3 to 5 cross-row interchanges in 270). Every rank builds the same matrix (seeded)
// and keeps its block-cyclic block; rank 0 solves the whole system with LAPACK zgesv.
// Usage (under mpirun): pliris_random_check PxQ N NB MIN_CROSSED LOOKAHEAD(0|1) [host|gpu]. Exit 0 when x agrees with
// LAPACK's to 1e-10 relative (max |x - x_lapack| / max |x_lapack|) and at least MIN_CROSSED
// interchanges crossed process rows (so the cross-row pivoting really ran); 1 otherwise; 2 on bad
// arguments.
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "copa/errors.hpp"
#include "copa/mpi.hpp"
#include "copa/timing.hpp"
#include "distributed/dist_engine.hpp"
#include "distributed/pliris_lu.hpp"

using namespace efie;
using namespace efie::dist;

int main(int argc, char** argv) {
  copa::mpi::Session session(argc, argv);
  return copa::guarded_main([&] {
    if (argc != 6 && argc != 7) throw copa::InputError("usage: pliris_random_check PxQ N NB MIN_CROSSED LOOKAHEAD(0|1) [host|gpu]");
    const long n = std::stol(argv[2]), nb = std::stol(argv[3]), min_crossed = std::stol(argv[4]);
    const std::string lookahead = argv[5], engine = argc == 7 ? argv[6] : "host";
    if (n < 1 || nb < 1 || min_crossed < 0 || (lookahead != "0" && lookahead != "1") || (engine != "host" && engine != "gpu"))
      throw copa::InputError("N and NB must be positive, MIN_CROSSED not negative, LOOKAHEAD 0 or 1, ENGINE host or gpu");
    const ProcGrid grid = parse_proc_grid(argv[1], copa::mpi::size());
    const BlockCyclic layout(n, nb, grid, copa::mpi::rank());
    std::mt19937_64 gen(20261124);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<complex> a(static_cast<std::size_t>(n * n)), rhs(static_cast<std::size_t>(n));
    for (auto& v : a) v = complex(u(gen), u(gen));
    for (auto& v : rhs) v = complex(u(gen), u(gen));
    std::vector<complex> block(std::size_t(layout.lld() * std::max(layout.local_cols, 1L)));
    for (long j = 0; j < layout.local_cols; ++j)
      for (long i = 0; i < layout.local_rows; ++i)
        block[std::size_t(i + j * layout.lld())] = a[std::size_t(layout.global_row(i) + layout.global_col(j) * n)];
    copa::Profile profile;
    copa::HostTimer timer(profile);
    PanelTimes times;
    const std::vector<complex> x = engine == "gpu" ? pliris_gpu_solve(layout, block.data(), rhs, "host", lookahead == "1", times, timer)
                                                   : pliris_host_solve(layout, block.data(), rhs, lookahead == "1", times, timer);
    if (!copa::mpi::is_root()) return 0;
    std::vector<complex> x1 = rhs;
    std::vector<lapack_int> ipiv(static_cast<std::size_t>(n));
    if (LAPACKE_zgesv(LAPACK_COL_MAJOR, int(n), 1, reinterpret_cast<lapack_complex_double*>(a.data()), int(n), ipiv.data(),
                      reinterpret_cast<lapack_complex_double*>(x1.data()), int(n)) != 0)
      throw copa::RuntimeError("zgesv failed");
    double diff = 0, scale = 0;
    for (long i = 0; i < n; ++i) {
      diff = std::max(diff, std::abs(x[std::size_t(i)] - x1[std::size_t(i)]));
      scale = std::max(scale, std::abs(x1[std::size_t(i)]));
    }
    const double rel = diff / scale;
    const bool crossed = times.cross_row_interchanges >= min_crossed;
    std::printf("%s engine, grid %dx%d N %ld nb %ld lookahead %s: x vs LAPACK zgesv %.3e (tolerance 1e-10); interchanges %ld, across process rows %ld (at least %ld)\n",
                engine.c_str(), grid.p, grid.q, n, nb, lookahead.c_str(), rel, times.interchanges, times.cross_row_interchanges, min_crossed);
    return rel <= 1e-10 && crossed ? 0 : 1;
  });
}
