// Every strategy of every backend as one table row: its name, where it runs, what it shows, and
// where it is the default. --list, the default, --variant and the tests read this table.
//
// Defaults: the fastest FP64 number density measured per backend (RESULTS.md). One CUDA rank:
// fine-lean-cellrows (1.07-1.08x fine-lean at 0.22M, 10M and 100M particles on the H200). HIP and
// CUDA over several ranks keep fine-lean: the FP32 row walk of fine-lean-cellrows was not timed on
// an AMD GPU nor run in the multi-rank GPU tests. Host backends: sorted-particle (fastest on 16 cores).
//
// fine-lean-cellrows is a row of its own, not a tuning of fine-lean: it is a different row walk
// (for_each_pruned_row_cell) with its own proof that no neighbour is missed, and it is the default
// where fine-lean is not, which a tuning's single default value could not say.
#include "variants.hpp"

#include <stdexcept>
#include <utility>
#include <vector>

namespace mps {
namespace {

using copa::Backend;
using copa::DefaultFor;
using copa::Ranks;

const std::vector<Backend> host_and_gpu = {Backend::serial, Backend::openmp, Backend::cuda, Backend::hip};
const std::vector<Backend> gpu = {Backend::cuda, Backend::hip};

struct Row {
  Strategy strategy;
  copa::VariantInfo info;
};

const std::vector<Row>& rows() {
  static const std::vector<Row> table = {
      {Strategy::fine_lean_cellrows,
       {"fine-lean-cellrows", gpu,
        "fine-lean with the pruned rows chosen in FP32 bucket-edge units: cheaper row set-ups",
        {{"step", {"graph", "launches"},
          "GPU rebucketing (and the density benchmark's rebucket + density step) as separate launches or as "
          "one replayed graph of the same kernels"}},
        {DefaultFor{Backend::cuda, Ranks::one}}}},
      {Strategy::fine_lean,
       {"fine-lean", gpu,
        "fine-rows with a density-only candidate loop (rsqrt weight, select, no order[] look-up)",
        {}, {DefaultFor{Backend::cuda, Ranks::many}, DefaultFor{Backend::hip, Ranks::any}}}},
      {Strategy::fine_rows,
       {"fine-rows", host_and_gpu,
        "buckets of edge r_max/2, only the parts of rows within reach: 2.5x fewer candidates"}},
      {Strategy::sorted_particle,
       {"sorted-particle", host_and_gpu,
        "a thread per bucket-sorted particle over 9 contiguous row ranges (3x3x3 buckets)",
        {}, {DefaultFor{Backend::serial, Ranks::any}, DefaultFor{Backend::openmp, Ranks::any}}}},
      {Strategy::verlet,
       {"verlet", host_and_gpu,
        "neighbour lists of radius r_max + skin, rebuilt when a particle moved skin/2"}},
      {Strategy::bucket_thread,
       {"bucket-thread", host_and_gpu, "P-Flow's CPU mapping: a thread per bucket, 27 buckets"}},
      {Strategy::bucket_block,
       {"bucket-block", gpu, "P-Flow's P100 mapping: a block per bucket, a thread per particle, 27 buckets"}},
      {Strategy::brute, {"brute", {Backend::serial}, "O(N^2) sum over every particle: the oracle"}},
  };
  return table;
}

}  // namespace

const copa::VariantRegistry& registry() {
  static const copa::VariantRegistry r = [] {
    std::vector<copa::VariantInfo> infos;
    for (const auto& row : rows()) infos.push_back(row.info);
    return copa::VariantRegistry("mps-density", std::move(infos));
  }();
  return r;
}

const std::string& to_string(Strategy s) {
  for (const auto& row : rows())
    if (row.strategy == s) return row.info.name;
  throw std::logic_error("mps-density: a strategy without a registry row");
}

Strategy strategy_named(const std::string& name) {
  for (const auto& row : rows())
    if (row.info.name == name) return row.strategy;
  throw std::logic_error("mps-density: no strategy named '" + name + "'");
}

Strategy strategy_of(const copa::Selection& s) { return strategy_named(s.name()); }

bool step_graph(const copa::Selection& s) { return s.variant->axis("step") != nullptr && s.is("step", "graph"); }

}  // namespace mps
