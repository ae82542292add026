// Roofline counters (docs/CONVENTIONS.md): every timed kernel declares its analytic FLOPs and the minimum
// bytes it must move per call (each input read once, each output written once); with the measured
// time and the machine's ceilings this gives GFLOP/s, GB/s, arithmetic intensity and the fraction
// of the roofline: floor / time, where floor = max(flops / FLOP ceiling, bytes / bandwidth ceiling).
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "copa/backend.hpp"

namespace copa {

// fp64_matrix: FP64 work done by a vendor matrix library (GEMM-rich: LU, ZGEMM), which runs on the
// matrix units; its roof is the measured DGEMM rate, not the FMA-chain peak of ordinary code.
enum class Precision { fp64, fp32, fp64_matrix };

struct KernelCost {
  double flops = 0;          // per call
  double bytes_read = 0;     // per call
  double bytes_written = 0;  // per call
  Precision precision = Precision::fp64;
  double bytes() const { return bytes_read + bytes_written; }
  // The cost of a row that holds another's work too (a step of several kernels); the precision stays.
  KernelCost& operator+=(const KernelCost& o) {
    flops += o.flops;
    bytes_read += o.bytes_read;
    bytes_written += o.bytes_written;
    return *this;
  }
};
inline KernelCost operator+(KernelCost a, const KernelCost& b) { return a += b; }

// Measured ceilings of one backend on one machine (copa-ceilings/1, written by copa-probe).
struct Ceilings {
  std::string source;       // file, or "built-in <name>"
  double triad_GBs = 0;     // the bandwidth roof
  double copy_GBs = 0;
  double fp64_GFLOPs = 0;
  double fp32_GFLOPs = 0;
  double dgemm_GFLOPs = 0;  // 0 when not measured
  bool valid() const { return triad_GBs > 0 && fp64_GFLOPs > 0; }
  double flops_roof(Precision p) const {
    if (p == Precision::fp32) return fp32_GFLOPs;
    if (p == Precision::fp64_matrix && dgemm_GFLOPs > 0) return dgemm_GFLOPs;
    return fp64_GFLOPs;
  }
};

// Reads the backend's entry of a copa-ceilings/1 file; throws InputError if missing or malformed.
Ceilings load_ceilings(const std::string& path, Backend backend);
// docs/CONVENTIONS.md's measured H200 ceilings when device_name names an H200; nothing otherwise.
std::optional<Ceilings> builtin_ceilings(Backend backend, const std::string& device_name);
nlohmann::json to_json(const Ceilings& c);

struct RooflinePoint {
  double gflops = 0, gbs = 0, intensity = 0;  // intensity in FLOP/byte (0 when no bytes)
  double frac_bandwidth = 0, frac_flops = 0;  // of the ceilings (0 when unknown)
  double frac_roofline = 0;                   // floor / time
  std::string bound;                          // "memory" or "compute" by the ceilings' ridge point
};

RooflinePoint evaluate(const KernelCost& cost, double seconds, const std::optional<Ceilings>& ceilings);

}  // namespace copa
