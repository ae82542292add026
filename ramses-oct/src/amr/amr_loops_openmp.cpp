// The OpenMP form of the AMR loops: iterations write disjoint octs, so any schedule gives the
// serial oracle's bits; dynamic chunks balance octs whose gathers prolong coarse ghosts.
#include <omp.h>

#include "amr/amr_solver.hpp"

namespace ro::amr {
namespace {

class OpenMPLoops final : public Loops {
 public:
  int workers() const override { return omp_get_max_threads(); }
  void run(std::int64_t n, const std::function<void(std::int64_t, int)>& body) const override {
#pragma omp parallel for schedule(dynamic, 16)
    for (std::int64_t i = 0; i < n; ++i) body(i, omp_get_thread_num());
  }
};

}  // namespace

std::unique_ptr<Loops> make_openmp_loops() { return std::make_unique<OpenMPLoops>(); }

}  // namespace ro::amr
