// The FLOP/byte model of laghos-like's kernel rows (README "FOM and the FLOP/byte model"):
// analytic minimums per call or CG iteration, and the halo row's bytes per exchange.
#pragma once
#include "copa/roofline.hpp"
#include "discretization.hpp"
#include "hydro.hpp"

namespace laghos {

// FLOP/byte model (README): sum factorization costs 2 * sum over the dim contractions of
// (outputs x inputs per contraction); bytes are each input read once and each output written once.
struct CostModel {
  const Discretization& d;
  double contraction_flops(int n, int q) const {  // n^dim -> q^dim (or back)
    if (d.dim == 2) return 2.0 * (q * n * n + q * q * n);
    return 2.0 * (static_cast<double>(q) * n * n * n + static_cast<double>(q) * q * n * n +
                  static_cast<double>(q) * q * q * n);
  }
  copa::KernelCost cg_h1_iteration() const {
    copa::KernelCost c;
    const double NE = d.NE, n = d.nh1;
    c.flops = NE * (2 * contraction_flops(d.D1D, d.Q1D) + d.nq) + 12.0 * n;
    c.bytes_read = NE * (d.nd * 4.0 + d.nq * 8.0) + n * 8.0 * 9;
    c.bytes_written = n * 8.0 * 5;
    return c;
  }
  copa::KernelCost cg_l2_iteration() const {
    copa::KernelCost c;
    const double NE = d.NE, n = d.nl2;
    c.flops = NE * (2 * contraction_flops(d.L1D, d.Q1D) + d.nq) + 10.0 * n;
    c.bytes_read = NE * d.nq * 8.0 + n * 8.0 * 7;
    c.bytes_written = n * 8.0 * 4;
    return c;
  }
  copa::KernelCost force_call() const {  // mean of F 1 and F^T v
    copa::KernelCost c;
    const double NE = d.NE, DD = d.dim * d.dim;
    const double f = NE * (d.dim * d.dim * contraction_flops(d.D1D, d.Q1D) + 2 * DD * d.nq);
    const double ft = NE * (d.dim * d.dim * contraction_flops(d.D1D, d.Q1D) + 2 * DD * d.nq +
                            contraction_flops(d.L1D, d.Q1D));
    c.flops = 0.5 * (f + ft);
    c.bytes_read = NE * (DD * d.nq * 8.0 + d.nd * 4.0) + 0.5 * d.h1_vsize() * 8.0;
    c.bytes_written = 0.5 * (d.h1_vsize() + d.nl2) * 8.0;
    return c;
  }
  copa::KernelCost qupdate_call() const {
    copa::KernelCost c;
    const double NE = d.NE, DD = d.dim * d.dim;
    c.flops = NE * (2 * d.dim * d.dim * contraction_flops(d.D1D, d.Q1D) + contraction_flops(d.L1D, d.Q1D) +
                    d.nq * (d.dim == 2 ? 150.0 : 600.0));
    c.bytes_read = 2.0 * d.h1_vsize() * 8.0 + d.nl2 * 8.0 + NE * (d.nd * 4.0 + d.nq * 8.0 * (1 + DD) + 8.0);
    c.bytes_written = NE * d.nq * DD * 8.0;
    return c;
  }
};

// The halo row's bytes per exchange: what this rank sends (read) and receives (written), averaged
// over its exchanges (1- and dim-component sums differ).
inline copa::KernelCost halo_cost(const HydroTiming& T) {
  copa::KernelCost c;
  const double n = static_cast<double>(T.halo_samples.size());
  if (n > 0) {
    c.bytes_read = T.halo_bytes_sent / n;
    c.bytes_written = T.halo_bytes_received / n;
  }
  return c;
}

}  // namespace laghos
