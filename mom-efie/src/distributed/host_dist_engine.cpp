// The CPU distributed engine: the owned-entry fill on the host, ScaLAPACK's LU.
#include <memory_resource>

#include "copa/errors.hpp"
#include "copa/memory.hpp"
#include "distributed/dist_engine.hpp"
#include "distributed/owned_fill.hpp"
#include "distributed/scalapack_solve.hpp"

namespace efie::dist {
namespace {

class HostDistEngine final : public DistEngine {
 public:
  HostDistEngine(const BlockCyclic& layout, int threads)
      : layout_(layout), threads_(threads), solver_(layout), a_(std::size_t(layout.lld()) * layout.local_cols, &copa::host_pool()) {}

  void fill(const Problem& p, copa::RegionTimer& timer) override {
    copa::Region r(timer, "fill.owned");
    fill_owned_host(p, layout_, a_.data(), threads_);
  }
  std::vector<complex> solve(const std::vector<complex>& rhs, copa::RegionTimer& timer) override {
    solver_.factor(a_.data(), timer);
    std::vector<complex> b = owned_vector(rhs, layout_);
    solver_.solve(a_.data(), b, timer);
    copa::Region r(timer, "gather");
    return gather_vector(b, layout_);
  }
  std::vector<complex> local_entries(const std::vector<std::array<long, 2>>& at) override {
    std::vector<complex> out;
    for (const auto& e : at) out.push_back(a_[std::size_t(e[0]) + std::size_t(e[1]) * layout_.lld()]);
    return out;
  }
  std::string lu_name() const override { return "ScaLAPACK pzgetrf/pzgetrs"; }

 private:
  BlockCyclic layout_;
  int threads_;
  ScalapackSolver solver_;
  std::pmr::vector<complex> a_;
};

}  // namespace

std::unique_ptr<DistEngine> make_host_dist_engine(const BlockCyclic& layout, int threads) {
  return std::make_unique<HostDistEngine>(layout, threads);
}

#if !defined(COPA_MOM_DIST_GPU)
bool gpu_dist_built() { return false; }
std::unique_ptr<DistEngine> make_gpu_dist_engine(const BlockCyclic&, const std::string&) {
  throw copa::InputError("this build has no distributed GPU LU (it needs a CUDA + MPI build)");
}
double gpu_dist_device_bytes(const BlockCyclic&) { return 0; }
void gpu_dist_require_memory(const BlockCyclic&, const std::string&) {}
#endif

}  // namespace efie::dist
