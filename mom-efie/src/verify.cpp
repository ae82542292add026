#include "verify.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "dielectric.hpp"
#include "reference.hpp"

namespace efie {
namespace {

bool near_pair(const Problem& p, int t, int s) {
  const auto first = p.near_pairs.begin() + p.near_offsets[t], last = p.near_pairs.begin() + p.near_offsets[t + 1];
  return std::binary_search(first, last, std::array<int, 2>{t, s});
}

complex galerkin_entry(const Problem& p, long m, long n) {
  Cplx sum{0, 0};
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      const int t = p.rwg[m].tri[a], s = p.rwg[n].tri[b];
      const int i = p.rwg[m].local[a], j = p.rwg[n].local[b];
      const Triangle &tt = p.triangles[t], &ss = p.triangles[s];
      sum = sum + (near_pair(p, t, s) ? pair_entry<true>(tt, i, ss, j, p.k) : pair_entry<false>(tt, i, ss, j, p.k));
    }
  return {sum.re, sum.im};
}

}  // namespace

complex reference_entry(const Problem& p, long m, long n) { return 0.5 * (galerkin_entry(p, m, n) + galerkin_entry(p, n, m)); }

double sampled_entry_error(const Problem& p, Engine& engine, int samples, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<long> pick(0, p.unknowns() - 1);
  std::vector<std::array<long, 2>> at;
  for (long d = 0; d < std::min<long>(8, p.unknowns()); ++d) at.push_back({d, d});
  for (int s = 0; s < samples; ++s) {
    const long m = pick(rng);
    at.push_back({m, pick(rng)});
    // a near neighbour of m: an unknown sharing its first triangle
    const Triangle& t = p.triangles[p.rwg[m].tri[0]];
    for (int i = 0; i < 3; ++i)
      if (t.basis[i] >= 0) at.push_back({m, t.basis[i]});
  }
  const auto got = engine.entries(at);
  double max_diff = 0, max_ref = 0;
  for (std::size_t e = 0; e < at.size(); ++e) {
    const complex ref = reference_entry(p, at[e][0], at[e][1]);
    max_diff = std::max(max_diff, std::abs(got[e] - ref));
    max_ref = std::max(max_ref, std::abs(ref));
  }
  return max_diff / max_ref;
}

copa::Verification check_run(const RunCheck& c, nlohmann::json& mom) {
  const Formulation& form = c.form;
  const double ka = c.problem.k * c.problem.radius;
  const bool mie_check = c.sphere_radius > 0 && !c.fill_only;
  // The sampled-entry oracle recomputes EFIE entries only; the matrix was factored in place, so
  // it is refilled first.
  const bool sampled_check = c.sampled_entries > 0 && !mie_check && form.name == "efie";
  double sample_err = -1;
  if (sampled_check) {
    copa::Profile scratch;
    auto timer = c.engine.make_timer(scratch);
    c.engine.fill(*timer);
    timer->flush();
    sample_err = sampled_entry_error(c.problem, c.engine, c.sampled_entries);
    mom["sampled_entry_rel_error_vs_serial"] = sample_err;
  }
  if (mie_check) {
    const Dielectric body{form.eps_r, form.mu_r};
    const double rms = form.dielectric() ? rms_db_error_dielectric(c.cuts, ka, body) : rms_db_error(c.cuts, ka);
    double e90, h90, e180, h180;
    if (form.dielectric()) {
      mie_bistatic_dielectric(ka, body.eps_r, body.mu_r, M_PI / 2, e90, h90);
      mie_bistatic_dielectric(ka, body.eps_r, body.mu_r, M_PI, e180, h180);
    } else {
      mie_bistatic(ka, M_PI / 2, e90, h90);
      e180 = mie_monostatic(ka);
    }
    mom["rms_db_error"] = rms;
    mom["monostatic_sigma_over_pia2"] = {{"efie", 0.5 * (c.cuts.e_plane.back() + c.cuts.h_plane.back())}, {"mie", e180}};
    mom["sigma_90deg_over_pia2"] = {{"efie_e", c.cuts.e_plane[90]}, {"efie_h", c.cuts.h_plane[90]}, {"mie_e", e90}, {"mie_h", h90}};
    mom["distance_to_interior_resonance"] = distance_to_resonance(ka);
    return {form.dielectric() ? "Mie series (dielectric sphere, eps_r " + c.eps_r + ", mu_r " + c.mu_r + ")"
                              : std::string("Mie series (PEC sphere)"),
            "rms_db_error", rms, c.tolerance_db, rms <= c.tolerance_db};
  }
  if (sampled_check)
    return {c.fill_only ? "serial pair formula (sampled entries)" : "serial pair formula (sampled entries; the LU and RCS have no reference here)",
            "max_rel_entry_error", sample_err, 1e-12, sample_err <= 1e-12};
  const std::string why = c.sphere_radius > 0 ? "--fill-only" : c.not_sphere + " (no Mie series)";
  if (form.name != "efie")
    return copa::not_verified(why + " with --formulation " + form.name + ": the sampled-entry oracle covers the EFIE only");
  return copa::not_verified(why + " and --sampled-entries 0: nothing to compare the matrix with");
}

}  // namespace efie
