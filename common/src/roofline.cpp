#include "copa/roofline.hpp"

#include <algorithm>
#include <fstream>

#include "copa/errors.hpp"

namespace copa {

Ceilings load_ceilings(const std::string& path, Backend backend) {
  std::ifstream in(path);
  if (!in) throw InputError("--ceilings: cannot open '" + path + "'");
  nlohmann::json doc;
  try {
    in >> doc;
  } catch (const nlohmann::json::exception& e) {
    throw InputError("--ceilings: '" + path + "' is not valid JSON: " + e.what());
  }
  if (doc.value("schema", "") != "copa-ceilings/1")
    throw InputError("--ceilings: '" + path + "' is not a copa-ceilings/1 document");
  const std::string key = to_string(backend);
  if (!doc.contains("backends") || !doc["backends"].contains(key))
    throw InputError("--ceilings: '" + path + "' has no entry for backend " + key);
  const auto& b = doc["backends"][key];
  Ceilings c;
  c.source = path;
  c.triad_GBs = b.value("triad_GBs", 0.0);
  c.copy_GBs = b.value("copy_GBs", 0.0);
  c.fp64_GFLOPs = b.value("fp64_GFLOPs", 0.0);
  c.fp32_GFLOPs = b.value("fp32_GFLOPs", 0.0);
  c.dgemm_GFLOPs = b.value("dgemm_GFLOPs", 0.0);
  if (!c.valid()) throw InputError("--ceilings: entry " + key + " of '" + path + "' lacks triad_GBs or fp64_GFLOPs");
  return c;
}

std::optional<Ceilings> builtin_ceilings(Backend backend, const std::string& device_name) {
  if (backend != Backend::cuda || device_name.find("H200") == std::string::npos) return std::nullopt;
  // Measured on the H200 of docs/CONVENTIONS.md (FP64 STREAM-like kernels, FMA chains, cuBLAS; medians).
  Ceilings c;
  c.source = "built-in NVIDIA H200 (docs/CONVENTIONS.md)";
  c.triad_GBs = 4133;
  c.copy_GBs = 3965;
  c.fp64_GFLOPs = 33400;
  c.fp32_GFLOPs = 65300;
  c.dgemm_GFLOPs = 64600;
  return c;
}

nlohmann::json to_json(const Ceilings& c) {
  return {{"source", c.source},           {"triad_GBs", c.triad_GBs},     {"copy_GBs", c.copy_GBs},
          {"fp64_GFLOPs", c.fp64_GFLOPs}, {"fp32_GFLOPs", c.fp32_GFLOPs}, {"dgemm_GFLOPs", c.dgemm_GFLOPs}};
}

RooflinePoint evaluate(const KernelCost& cost, double seconds, const std::optional<Ceilings>& ceilings) {
  RooflinePoint p;
  if (seconds <= 0) return p;
  p.gflops = cost.flops / seconds * 1e-9;
  p.gbs = cost.bytes() / seconds * 1e-9;
  p.intensity = cost.bytes() > 0 ? cost.flops / cost.bytes() : 0.0;
  if (!ceilings || !ceilings->valid()) return p;
  const double peak = ceilings->flops_roof(cost.precision);
  const double bw = ceilings->triad_GBs;
  p.frac_bandwidth = p.gbs / bw;
  p.frac_flops = peak > 0 ? p.gflops / peak : 0.0;
  // Time floor of the roofline model: the slower of moving the bytes and doing the FLOPs.
  const double floor_s = std::max(cost.bytes() / (bw * 1e9), peak > 0 ? cost.flops / (peak * 1e9) : 0.0);
  p.frac_roofline = floor_s / seconds;
  p.bound = (peak > 0 && p.intensity > peak / bw) ? "compute" : "memory";
  return p;
}

}  // namespace copa
