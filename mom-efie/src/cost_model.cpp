#include "cost_model.hpp"

#include <algorithm>
#include <vector>

#include "variants.hpp"

namespace efie {

double fill_flops_per_triangle_pair(const Formulation& f) {
  if (f.dielectric()) return flops_per_triangle_pair_dielectric;
  return (f.alpha > 0 ? flops_per_triangle_pair : 0.0) + (f.alpha < 1 ? flops_per_triangle_pair_mfie : 0.0);
}

double block_triangle_pairs(const Problem& p) {
  const long n = p.unknowns();
  double sum = 0;
  for (long m0 = 0; m0 < n; m0 += 32) {
    std::vector<int> tris;
    for (long m = m0; m < std::min(n, m0 + 32); ++m)
      for (int t : p.rwg[m].tri)
        if (std::find(tris.begin(), tris.end(), t) == tris.end()) tris.push_back(t);
    sum += double(tris.size());
  }
  return sum * sum;
}

copa::KernelCost cost_of(const std::string& region, const Problem& p, long n_matrix, const Formulation& form) {
  const double n = double(n_matrix), nt = double(p.triangle_count()), nn = double(p.near_pairs.size());
  const double tri_bytes = double(sizeof(Triangle)) * nt;
  copa::KernelCost c;
  if (region == "fill") {
    c.flops = fill_flops_per_triangle_pair(form) * nt * nt;
    c.bytes_read = tri_bytes;
    c.bytes_written = 16 * n * n;
  } else if (region == "fill.pairs" || region == "fill.far") {
    c.flops = flops_per_triangle_pair * nt * nt;
    c.bytes_read = tri_bytes;
    c.bytes_written = 16 * n * n;
  } else if (region == "fill.mfie") {
    c.flops = flops_per_triangle_pair_mfie * nt * nt;
    c.bytes_read = tri_bytes + 16 * n * n;
    c.bytes_written = 16 * n * n;
  } else if (region == "fill.dielectric") {
    c.flops = flops_per_triangle_pair_dielectric * nt * nt;
    c.bytes_read = tri_bytes;
    c.bytes_written = 16 * n * n;
  } else if (region == "fill.near") {
    c.flops = 2 * flops_per_triangle_pair * nn;  // near block and the far block it replaces
    c.bytes_read = nn * (8 + 2 * double(sizeof(Triangle)));
    c.bytes_written = nn * 9 * 16;
  } else if (region == "fill.symmetrise") {
    c.flops = 4 * n * n / 2;
    c.bytes_read = 16 * n * n;
    c.bytes_written = 16 * n * n;
  } else if (region == "lu") {
    c.flops = 8.0 / 3.0 * n * n * n;
    c.bytes_read = 16 * n * n;
    c.bytes_written = 16 * n * n;
    c.precision = copa::Precision::fp64_matrix;  // cuSOLVER / LAPACK: GEMM-rich, the DGEMM roof
  } else if (region == "solve.irs") {
    // The FP64 LU's count: the rate is FP64-equivalent (what the LU would need to run as fast).
    c.flops = 8.0 / 3.0 * n * n * n + 8 * n * n;
    c.bytes_read = 16 * n * n;
    c.bytes_written = 16 * n;
    c.precision = copa::Precision::fp64_matrix;
  } else if (region == "solve") {
    c.flops = 8 * n * n;
    c.bytes_read = 16 * n * n;
    c.bytes_written = 16 * n;
  }
  return c;
}

nlohmann::json fill_rates_json(const Problem& p, const copa::Selection& variant, const Formulation& form, long n_matrix,
                               const copa::Profile& profile, double workspace_bytes) {
  const double n = double(p.unknowns()), nt = double(p.triangle_count());
  const double t_fill = profile.stats("fill").median;
  const double pairs = nt * nt;
  const bool block = variant.name() == "block";
  // The variant's own count of the EFIE part: block evaluates its tiles' distinct triangle pairs.
  const bool efie_part = form.alpha > 0 && !form.dielectric();
  const double efie_variant = efie_part ? (block ? flops_per_triangle_pair * block_triangle_pairs(p) : flops_per_triangle_pair * nt * nt) : 0.0;
  nlohmann::json mom;
  mom["triangle_pairs"] = pairs;
  mom["triangle_pairs_per_s"] = pairs / t_fill;
  mom["matrix_entries_per_s"] = n * n / t_fill;
  mom["gflops_study_model"] = fill_flops_per_triangle_pair(form) * pairs / t_fill * 1e-9;
  // The variant's own count applies to the EFIE part; the other parts are counted as in the study model.
  mom["gflops_variant_model"] =
      (efie_variant + (fill_flops_per_triangle_pair(form) - (efie_part ? flops_per_triangle_pair : 0.0)) * pairs) / t_fill * 1e-9;
  if (block) mom["block_triangle_pairs"] = block_triangle_pairs(p);
  mom["flop_model"] =
      "study counts: 2335 FLOPs per triangle pair with reuse (the fill rows and gflops_study_model, for every variant); "
      "gflops_variant_model counts the variant's own algorithm: 2335 per evaluated triangle pair for block "
      "(block_triangle_pairs: distinct triangles per tile side, multiplied) and the others; near pairs are counted "
      "at 2 x 2335 (the analytic integrals are not counted)";
  mom["near_pairs"] = p.near_pairs.size();
  mom["near_pair_fraction"] = p.near_fraction();
  mom["workspace_bytes"] = workspace_bytes;
  mom["matrix_bytes"] = 16.0 * double(n_matrix) * double(n_matrix);
  if (profile.has("lu")) mom["lu_tflops"] = cost_of("lu", p, n_matrix, form).flops / profile.stats("lu").median * 1e-12;
  return mom;
}

}  // namespace efie
