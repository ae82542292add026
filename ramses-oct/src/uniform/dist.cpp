#include "uniform/dist.hpp"

#include <cmath>
#include <sstream>

#include "copa/errors.hpp"
#include "copa/mpi.hpp"
#include <mpi.h>

namespace ro {

namespace {

class MpiStepComm final : public StepComm {
 public:
  MpiStepComm(const LocalDomain& d, copa::halo::Transport transport, bool device)
      : exchange_(d.links, {nvar, d.mesh.ncell()}, transport,
                  device ? copa::halo::Memory::device : copa::halo::Memory::host) {}

  void fill_ghosts(HydroKernels& k) override { exchange_.run(k.state()); }

  ScanResult combine(const ScanResult& local) override {
    // max and min are exact, so MPI's reduction order cannot change the bits; the bad cell travels
    // as a double (exact below 2^53) with "none" as +infinity.
    ScanResult g;
    g.max_speed = copa::mpi::max_all(local.max_speed);
    const double bad = copa::mpi::min_all(local.bad_cell >= 0 ? double(local.bad_cell) : HUGE_VAL);
    g.bad_cell = bad == HUGE_VAL ? -1 : static_cast<std::int64_t>(bad);
    return g;
  }

  copa::KernelCost halo_cost() const override {
    return {0, double(exchange_.bytes_sent()), double(exchange_.bytes_received())};
  }

  [[noreturn]] void wait_for_failure(long step, double t, std::int64_t global_cell) override {
    copa::mpi::barrier();  // the owner never arrives: its error ends every rank (MPI_Abort)
    std::ostringstream os;
    os << "non-physical state after step " << step << " (t = " << t << ") in cell " << global_cell
       << " of another rank";
    throw copa::RuntimeError(os.str());
  }

 private:
  copa::halo::Exchange exchange_;
};

}  // namespace

std::unique_ptr<StepComm> make_mpi_step_comm(const LocalDomain& d, copa::halo::Transport transport, bool device) {
  return std::make_unique<MpiStepComm>(d, transport, device);
}

std::vector<double> gather_owned(const OctMesh& local, const Partition& p, const std::vector<double>& u) {
  const int root = 0, me = copa::mpi::rank();
  const std::int64_t global_cells = p.split.back() * 8;
  std::vector<int> counts(p.ranks), displs(p.ranks);
  for (int r = 0; r < p.ranks; ++r) {
    counts[r] = static_cast<int>(p.owned(r) * 8);
    displs[r] = static_cast<int>(p.split[r] * 8);
  }
  std::vector<double> g(me == root ? global_cells * nvar : 0);
  const std::int64_t stride = local.ncell();
  for (int f = 0; f < nvar; ++f)
    MPI_Gatherv(u.data() + f * stride, static_cast<int>(local.nowned_cells()), MPI_DOUBLE,
                me == root ? g.data() + f * global_cells : nullptr, counts.data(), displs.data(), MPI_DOUBLE, root,
                MPI_COMM_WORLD);
  return g;
}

}  // namespace ro
