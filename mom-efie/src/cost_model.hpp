// The FLOP and byte model of the fill, LU and solve rows (README, "FOM and the FLOP/byte model"),
// and the JSON `mom` rates a one-rank run reports from it.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "copa/roofline.hpp"
#include "copa/timing.hpp"
#include "kernels.hpp"

namespace efie {

// The study's count: 2335 real FLOPs per (ordered) triangle pair with reuse of the 21 kernel values
// over the 9 entries.
constexpr double flops_per_triangle_pair = 2335;
// The MFIE part (fill.mfie): hand count of mfie_pair_block's far path, sqrt, division and sincos
// counted as one FLOP each: 21 x 50 (point, kernel, Ig) + 3 x 271 (9 entries per test point) +
// about 130 (normal, scaling, weighted add) = about 2000 per triangle pair.
constexpr double flops_per_triangle_pair_mfie = 2000;
// PMCHWT / Mueller (fill.dielectric): the EFIE pair (2335) and the K pair (about 1900: the MFIE's
// without the normal) in both media, plus the 4 quadrants' weighted adds (about 200).
constexpr double flops_per_triangle_pair_dielectric = 2 * 2335 + 2 * 1900 + 200;

// FLOPs per triangle pair of the whole fill of a formulation (the study's count for the EFIE part).
double fill_flops_per_triangle_pair(const Formulation& f);

// Triangle pairs the block variant evaluates: per 32 x 32 tile the distinct triangles of its test
// bases times those of its source bases (kernels_gpu.cu), summed over tiles.
double block_triangle_pairs(const Problem& p);

// The analytic cost of one call of a profile row; n_matrix is the matrix dimension (2N for the
// dielectric formulations, J and M).
copa::KernelCost cost_of(const std::string& region, const Problem& p, long n_matrix, const Formulation& form);

// The `mom` rates of a run: triangle pairs and entries per second, GFLOP/s by the study's count and
// by the variant's own algorithm, the near pairs, the matrix and workspace bytes, the LU's rate.
nlohmann::json fill_rates_json(const Problem& p, const copa::Selection& variant, const Formulation& form, long n_matrix,
                               const copa::Profile& profile, double workspace_bytes);

}  // namespace efie
