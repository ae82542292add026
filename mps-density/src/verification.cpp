// The density checks of a run: the brute-force and bucket-sum oracles, the lattice's n0, and the
// checksum that says whether two runs are bitwise the same.
#include "verification.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "buckets.hpp"
#include "neighbour_loops.hpp"
#include "reference.hpp"

namespace mps {

// FNV-1a over the bytes of the values (original particle order): two runs are bitwise identical
// exactly when their checksums are.
std::string checksum(const std::vector<const std::vector<double>*>& fields) {
  std::uint64_t h = 1469598103934665603ull;
  for (const auto* f : fields) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(f->data());
    for (std::size_t k = 0; k < f->size() * sizeof(double); ++k) h = (h ^ bytes[k]) * 1099511628211ull;
  }
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(h));
  return text;
}

namespace {

// Host oracle for sampled targets: serial row traversal over host buckets (checked against the
// brute force in the tests), or the brute force itself for small problems.
std::vector<double> oracle_density(const Problem& pr, const std::vector<int>& targets, bool brute) {
  const auto& ps = pr.particles;
  View v;
  v.x = ps.x.data();
  v.y = ps.y.data();
  v.z = ps.z.data();
  v.n = static_cast<int>(ps.size());
  std::vector<double> out(ps.size(), 0.0);
  DensityOp op{pr.re, pr.re * pr.re, out.data()};
  std::vector<int> start, order, cell;
  if (!brute) build_buckets(pr.grid, v.x, v.y, v.z, v.n, true, start, order, cell);
  BucketsView b{pr.grid, start.data(), order.data()};
#pragma omp parallel for schedule(dynamic, 256)
  for (std::size_t t = 0; t < targets.size(); ++t) {
    if (brute) target_brute(v, op, targets[t]);
    else target_rows(v, b, op, targets[t]);
  }
  return out;
}

// Evenly strided targets, at most `count` of them.
std::vector<int> sample_targets(int n, int count) {
  const int samples = std::min(n, count);
  std::vector<int> targets(samples);
  for (int s = 0; s < samples; ++s) targets[s] = static_cast<int>(static_cast<long long>(s) * n / samples);
  return targets;
}

// max |n - ref| / max |ref| over the targets.
double relative_error(const std::vector<double>& n, const std::vector<double>& ref, const std::vector<int>& targets) {
  double err = 0, scale = 0;
  for (int t : targets) {
    err = std::max(err, std::fabs(n[t] - ref[t]));
    scale = std::max(scale, std::fabs(ref[t]));
  }
  return scale > 0 ? err / scale : err;
}

}  // namespace

// Two references, both independent of the backend's buckets and strategy: the brute-force sum over
// every particle (all targets up to 20000 particles; beyond, a strided sample of 5e8 / N targets,
// at least 64, so the check costs ~5e8 pair tests at any size) and the serial bucket sum (row
// traversal, itself checked against the brute force in the tests) on up to 200k strided targets.
copa::Verification verify_density(const Problem& pr, const std::vector<double>& n, bool fp32) {
  const int N = static_cast<int>(pr.particles.size());
  const int brute_count = N <= 20000 ? N : std::max(64, static_cast<int>(5.0e8 / N));
  const auto brute_targets = sample_targets(N, brute_count);
  const double brute_err = relative_error(n, oracle_density(pr, brute_targets, true), brute_targets);
  copa::Verification v;
  v.metric = "max_rel_density_error";
  v.tolerance = fp32 ? 1e-5 : 1e-12;
  if (static_cast<int>(brute_targets.size()) == N) {
    v.reference = "brute-force O(N^2) sum, every particle";
    v.value = brute_err;
  } else {
    const auto row_targets = sample_targets(N, 200000);
    const double row_err = relative_error(n, oracle_density(pr, row_targets, false), row_targets);
    v.reference = "brute-force sum over all particles (" + std::to_string(brute_targets.size()) +
                  " strided targets) and serial bucket sum (" + std::to_string(row_targets.size()) + " strided targets)";
    v.value = std::max(brute_err, row_err);
  }
  v.passed = v.value <= v.tolerance;
  return v;
}

// Interior particles of a perfect lattice must reproduce n0 (references/mps.md).
copa::Verification verify_lattice(const Problem& pr, const std::vector<double>& n) {
  const auto c = lattice_constants(pr.grid.dim, pr.re);
  const auto& ps = pr.particles;
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const double r[3] = {ps.x[i], ps.y[i], ps.z[i]};
    for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], r[d]), hi[d] = std::max(hi[d], r[d]);
  }
  double err = 0;
  std::size_t interior = 0;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const double r[3] = {ps.x[i], ps.y[i], ps.z[i]};
    bool in = true;
    for (int d = 0; d < pr.grid.dim; ++d) in = in && r[d] - lo[d] >= pr.re && hi[d] - r[d] >= pr.re;
    if (!in) continue;
    ++interior;
    err = std::max(err, std::fabs(n[i] - c.n0) / c.n0);
  }
  copa::Verification v;
  v.reference = "lattice n0 (references/mps.md, lattice sum)";
  v.metric = "max_rel_n0_error_interior";
  v.value = err;
  v.tolerance = 1e-13;
  v.passed = interior > 0 && err <= v.tolerance;
  return v;
}

double front_error(const std::vector<std::pair<double, double>>& TZ, double (*reference)(double), double T0, double T1,
                   int& used) {
  double e = 0;
  used = 0;
  for (const auto& [T, Z] : TZ) {
    if (T < T0 || T > T1) continue;
    const double Zr = reference(T);
    e = std::max(e, std::fabs(Z - Zr) / Zr);
    ++used;
  }
  return e;
}

}  // namespace mps
