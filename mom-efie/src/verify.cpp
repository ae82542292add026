#include "verify.hpp"

#include <algorithm>
#include <cmath>
#include <random>

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

}  // namespace efie
