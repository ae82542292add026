// The MPI side of a distributed run: the step communication (halo exchange through copa::halo on
// the state [field][oct][8], 5 components; dt and the bad cell through copa::mpi's exact
// reductions) and the gather of the owned octs to rank 0 for the global outputs.
#pragma once
#include <memory>
#include <vector>

#include "copa/halo.hpp"
#include "uniform/decomposition.hpp"
#include "uniform/driver.hpp"

namespace ro {

// `device`: the kernels keep their state in device memory (GPU backends).
std::unique_ptr<StepComm> make_mpi_step_comm(const LocalDomain& d, copa::halo::Transport transport, bool device);

// Rank 0 receives the global state [field][global oct][8] assembled from every rank's owned octs
// (each rank owns a contiguous range of the global order, so this is a concatenation per field);
// the other ranks get an empty vector. Collective.
std::vector<double> gather_owned(const OctMesh& local, const Partition& p, const std::vector<double>& u);

}  // namespace ro
