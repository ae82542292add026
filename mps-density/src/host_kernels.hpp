// The host implementation of the kernel family (kernels_serial.cpp), shared by the serial oracle
// (parallel = false) and the OpenMP backend (kernels_openmp.cpp: parallel = true, the same loops
// with OpenMP work sharing, and its own number density with a SIMD loop over contiguous rows).
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "buckets.hpp"
#include "copa/errors.hpp"
#include "kernels.hpp"
#include "neighbour_loops.hpp"
#include "pair_op_kernels.hpp"

namespace mps {

class HostKernels : public PairOpKernels<HostKernels> {
  friend class PairOpKernels<HostKernels>;

 public:
  HostKernels(const KernelOptions& o, bool parallel) : opt_(o), parallel_(parallel) {}
  copa::Backend backend() const override { return parallel_ ? copa::Backend::openmp : copa::Backend::serial; }
  std::string strategy_name() const override { return to_string(opt_.strategy); }

  void load(const Problem& pr, double max_radius) override;
  void store(Particles& out) override;
  std::vector<double> get(Field f) override;
  void set(Field f, const std::vector<double>& values) override;
  void prepare_neighbours(bool force) override;
  int list_rebuilds() const override { return rebuilds_; }

  void number_density(double re) override;

  void predictor(double dt, double nu, const double g[3]) override;
  void correct(double scale, double dt) override;
  std::size_t ppe_setup(double n_surface, double n0, double src) override;
  double dot(Field a, Field b) override;
  double dot_owned(Field a, Field b, std::size_t owned) override;
  void remember_positions(std::size_t owned) override;
  double max_displacement(std::size_t owned) override;
  std::size_t count_active(std::size_t owned) override;
  void axpy(double alpha, Field x, Field y) override;
  void xpay(Field x, double beta, Field y) override;
  void copy(Field from, Field to) override { f_[idx(to)] = f_[idx(from)]; }
  void clamp_negative_pressure() override;
  void check_state() override;
  std::size_t bytes_needed(std::size_t n, long long cells, double neighbours) const override;

 protected:
  static int idx(Field f) { return static_cast<int>(f); }
  double* fd(Field f) { return f_[idx(f)].data(); }
  View view() {
    return particle_view([this](int k) { return fd(static_cast<Field>(k)); }, type_.data(), n_, grid_.dim, id_.data(),
                         ghosts_);
  }
  BucketsView buckets() const { return buckets_view(grid_, start_.data(), order_.data(), opt_.reorder, reach_); }
  VerletView lists() const { return VerletView{list_.data(), list_count_.data(), n_, capacity_}; }
  void rebucket();
  void build_verlet();
  template <class Op>
  void run(const Op& op);
  template <class Update>
  void for_each_fluid(const Update& update);
  // The sum of term(i) over every particle, by fixed blocks added in block order.
  template <class Term>
  double block_sum(const Term& term) const;

  KernelOptions opt_;
  bool parallel_;
  int n_ = 0;
  int ghosts_ = 0;  // Problem::ghosts: the last particles in load order are sources only
  Grid grid_;
  double list_radius_ = 0, skin_ = 0, reach_ = 0;
  std::array<std::vector<double>, field_count> f_;
  std::vector<std::uint8_t> type_, active_;
  std::vector<int> id_, start_, order_, cell_;
  std::vector<int> list_, list_count_;
  std::vector<double> xb_, yb_, zb_;
  std::vector<double> x_ref_, y_ref_, z_ref_;  // remember_positions, load order
  int capacity_ = 0, rebuilds_ = 0;
  bool lists_valid_ = false;
};

template <class Op>
void HostKernels::run(const Op& op) {
  const View v = view();
  const BucketsView b = buckets();
  const int n = n_;
  switch (opt_.strategy) {
    case Strategy::brute:
#pragma omp parallel for if (parallel_) schedule(dynamic, 64)
      for (int i = 0; i < n; ++i) target_brute(v, op, i);
      break;
    case Strategy::bucket_block:
    case Strategy::bucket_thread: {
      // P-Flow's CPU mapping: a bucket per iteration, dynamic schedule.
      const long long cells = grid_.cells();
#pragma omp parallel for if (parallel_) schedule(dynamic, 1)
      for (long long c = 0; c < cells; ++c)
        for (int k = b.start[c]; k < b.start[c + 1]; ++k) target_27_buckets(v, b, op, b.particle(k));
      break;
    }
    case Strategy::sorted_particle:
#pragma omp parallel for if (parallel_) schedule(static)
      for (int k = 0; k < n; ++k) target_rows(v, b, op, b.particle(k));
      break;
    case Strategy::fine_rows:
    case Strategy::fine_lean:
    case Strategy::fine_lean_cellrows:
#pragma omp parallel for if (parallel_) schedule(static)
      for (int k = 0; k < n; ++k) target_pruned_rows(v, b, op, b.particle(k));
      break;
    case Strategy::verlet: {
      const VerletView l = lists();
#pragma omp parallel for if (parallel_) schedule(static)
      for (int i = 0; i < n; ++i) target_verlet(v, l, op, i);
      break;
    }
  }
}

}  // namespace mps
