// The matrix over MPI ranks: one engine per rank holds its block-cyclic block (host or device),
// fills it, factors it and solves. Host engines use ScaLAPACK; the GPU engine its own LU
// (dist_lu_gpu.cu).
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "copa/timing.hpp"
#include "distributed/block_cyclic.hpp"
#include "problem.hpp"

namespace efie::dist {

struct PanelTimes;
// The Pliris-style LU's communication figures for the JSON (mom.distributed).
nlohmann::json panel_details(const std::string& lu, const std::string& transport, bool lookahead, const PanelTimes& t);

class DistEngine {
 public:
  virtual ~DistEngine() = default;
  // Fills the owned entries ("fill"; engines may time sub-regions inside it).
  virtual void fill(const Problem& p, copa::RegionTimer& timer) = 0;
  // Factors the filled block ("lu") and solves A x = rhs ("solve"); rhs is the global right-hand
  // side (every rank has it; each uses its owned part); returns the global solution on every rank.
  virtual std::vector<complex> solve(const std::vector<complex>& rhs, copa::RegionTimer& timer) = 0;
  // Entries of the filled block at local (row, column) indices (the sampled check; before solve).
  virtual std::vector<complex> local_entries(const std::vector<std::array<long, 2>>& at) = 0;
  virtual std::unique_ptr<copa::RegionTimer> make_timer(copa::Profile& profile) {
    return std::make_unique<copa::HostTimer>(profile);
  }
  // Engine-specific figures for the JSON (the GPU LU's communication per panel).
  virtual nlohmann::json details() const { return nlohmann::json::object(); }
  // The LU's name in the report.
  virtual std::string lu_name() const = 0;
};

// Serial or OpenMP fill (threads); lu: "scalapack" or "pliris" (pliris_lu.hpp on the host, with or
// without lookahead).
std::unique_ptr<DistEngine> make_host_dist_engine(const BlockCyclic& layout, int threads, const std::string& lu, bool lookahead);

// The Pliris-style LU on the host (the host engine's --dist-lu pliris) on a filled local block
// (block-cyclic, leading dimension lld(); overwritten by the factors): solves A x = rhs (rhs global
// on every rank) and returns x on every rank, timing the regions "lu" (factorisation and forward
// substitution) and "solve" (back substitution); collective over MPI_COMM_WORLD. 1 x Q grids:
// pliris_lu.hpp; P > 1: pliris_lu_2d.hpp (both with or without lookahead). For tests on
// matrices other than the EFIE's (tests/pliris_random_check.cpp).
std::vector<complex> pliris_host_solve(const BlockCyclic& layout, complex* block, const std::vector<complex>& rhs, bool lookahead,
                                       PanelTimes& times, copa::RegionTimer& timer);

// The GPU engine's Pliris-style LU (dist_lu_gpu.cu) on the same kind of host block as
// pliris_host_solve: the block is copied to the device (the rank's GPU chosen by
// copa::select_device), factored and solved there with the panels broadcast through transport.
// RuntimeError in builds without the distributed GPU engine. For tests (pliris_random_check.cpp).
std::vector<complex> pliris_gpu_solve(const BlockCyclic& layout, const complex* block, const std::vector<complex>& rhs,
                                      const std::string& transport, bool lookahead, PanelTimes& times, copa::RegionTimer& timer);

// GPU fill and LU (dist_lu_gpu.cu), only in GPU + MPI builds. transport: a copa::halo name.
bool gpu_dist_built();
std::unique_ptr<DistEngine> make_gpu_dist_engine(const BlockCyclic& layout, const std::string& transport, bool lookahead);
// Device bytes the GPU engine allocates on this rank (the block, two panel buffers, workspace); OutOfMemoryError (exit 3) with the estimate
// and the free bytes when they do not fit, before anything is allocated.
double gpu_dist_device_bytes(const BlockCyclic& layout);
void gpu_dist_require_memory(const BlockCyclic& layout, const std::string& what);

}  // namespace efie::dist
