#include "hydro/verification.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>

namespace ro {

namespace {

copa::Verification sod_verdict(const OctMesh& m, const ProblemParams& pp, const std::vector<double>& u, double t,
                                nlohmann::json& extra) {
  if (m.bc[0] == Boundary::periodic)
    return copa::not_verified("sod with periodic x boundaries: the wrap puts a second discontinuity at x = 0");
  // The exact solution of the infinite tube holds until the outermost wave reaches the tube's end
  // (minus two cells: the boundary cells take part in the stencil).
  const ExactRiemann ex = sod_exact(pp.gamma);
  const double reach = t * std::max(-ex.left_wave_speed(), ex.right_wave_speed());
  const double room = 0.5 * m.cells[0] * m.dx - 2 * m.dx;
  extra["wave_reach"] = reach;
  if (reach > room)
    return copa::not_verified("sod at t = " + std::to_string(t) + ": the waves have reached the ends of the tube (" +
                              std::to_string(reach) + " > " + std::to_string(room) + " from the interface)");
  const double l1 = sod_l1_density_error(m, u, pp.gamma, t);
  // 0.011 at >= 128 cells (Athena++'s second-order acceptance); the L1 error of a solution with
  // discontinuities scales like dx, so coarser tubes get 0.011 * 128 / nx.
  const double tol = 0.011 * std::max(1.0, 128.0 / m.cells[0]);
  extra["l1_density_error"] = l1;
  return {"exact Riemann solution (Toro test 1) at t = " + std::to_string(t), "sod_l1_density_error", l1, tol,
          l1 < tol};
}

copa::Verification sedov_verdict(const OctMesh& m, const ProblemParams& pp, const std::vector<double>& u, double t,
                                  nlohmann::json& extra) {
  const double re = sedov_radius(pp.energy, t, 1.0, pp.gamma);
  if (re <= 0) return copa::not_verified("sedov: no Sedov-Taylor constant xi0 for gamma = " + std::to_string(pp.gamma) + " (1.4 and 5/3 only)");
  extra["reference_radius"] = re;
  const double half = 0.5 * std::min(m.cells[0], std::min(m.cells[1], m.cells[2])) * m.dx;
  if (re >= half - 2 * m.dx)
    return copa::not_verified("sedov at t = " + std::to_string(t) + ": the shock (R = " + std::to_string(re) +
                              ") has reached the box faces");
  if (re < sedov_min_radius_cells * m.dx)
    return copa::not_verified("sedov at t = " + std::to_string(t) + ": the shock radius is " +
                              std::to_string(re / m.dx) + " cells, below the " +
                              std::to_string(int(sedov_min_radius_cells)) + " needed to measure it");
  const double rs = shock_radius(radial_profile(m, u, pp.gamma));
  const double err = std::fabs(rs - re) / re;
  extra["shock_radius"] = rs;
  // 3% (the target at 128^3); the peak of the binned density already meets it at 32^3.
  return {"Sedov-Taylor radius 1.0328 (E t^2/rho0)^(1/5)", "sedov_radius_relative_error", err, 0.03, err < 0.03};
}

copa::Verification sound_verdict(const OctMesh& m, const ProblemParams& pp, const std::string& slope,
                                  const std::vector<double>& u, double t, double accuracy_dx, nlohmann::json& extra) {
  for (Boundary b : m.bc)
    if (b != Boundary::periodic)
      return copa::not_verified("sound wave with non-periodic boundaries: the travelling wave is not a solution");
  const SoundWave w = sound_wave(m, pp);
  const double e = sound_relative_l1(m, u, w, t);
  // Measured error constants per period: MC err = 0.12-0.14 (k dx)^2 (second order);
  // minmod clips the extrema, err = 0.33 (k dx)^1.5. The tolerance is twice the measured model;
  // the amplitude error of the scheme accumulates in proportion to the time, so runs longer than
  // one period get the per-period tolerance times the number of periods.
  const double kdx = w.omega * (accuracy_dx > 0 ? accuracy_dx : m.dx);
  const double periods = std::max(1.0, t * w.omega / (2 * M_PI));
  const double tol = periods * (slope == "mc" ? 0.3 * kdx * kdx : 0.66 * std::pow(kdx, 1.5));
  extra["relative_l1_error"] = e;
  extra["k_dx"] = kdx;
  extra["periods"] = periods;
  return {"linear sound wave", "sound_relative_l1_error", e, tol, e < tol};
}

}  // namespace

copa::Verification reference_verdict(const OctMesh& m, const ProblemParams& pp, const std::string& slope,
                                     const std::vector<double>& u, double t, nlohmann::json& extra,
                                     double accuracy_dx) {
  extra["t"] = t;
  if (!(t > 0)) return copa::not_verified("no time step was taken");
  if (pp.name == "sod") return sod_verdict(m, pp, u, t, extra);
  if (pp.name == "sedov") return sedov_verdict(m, pp, u, t, extra);
  return sound_verdict(m, pp, slope, u, t, accuracy_dx, extra);
}

PhysicsVerdict check_physics(const OctMesh& m, const ProblemParams& pp, const std::string& slope,
                             const std::vector<double>& u, double t, const Totals& t0, double accuracy_dx) {
  PhysicsVerdict ph;
  copa::Verification ref = reference_verdict(m, pp, slope, u, t, ph.extra[pp.name], accuracy_dx);
  const bool closed =
      std::all_of(m.bc.begin(), m.bc.end(), [](Boundary b) { return b != Boundary::outflow; });
  const Totals t1 = totals(m, u);
  const double dm = std::fabs(t1.mass - t0.mass) / t0.mass, de = std::fabs(t1.energy - t0.energy) / t0.energy;
  const double change = std::max(dm, de);
  const bool conserved = change <= conservation_tolerance;
  ph.extra["conservation"] = {{"closed_boundaries", closed}, {"mass_relative_change", dm},
                              {"energy_relative_change", de}, {"tolerance", conservation_tolerance}};
  if (ref.verified) {
    ph.v = ref;
    if (closed && !conserved) {
      ph.v.passed = false;
      ph.v.metric += " (conservation violated: mass " + std::to_string(dm) + ", energy " + std::to_string(de) + ")";
    }
  } else if (closed) {
    // No external reference at this time, but closed boundaries still give a check that can fail.
    ph.extra["reference_skipped"] = ref.reason;
    ph.v = {"conservation of mass and energy", "max_relative_change", change, conservation_tolerance, conserved};
  } else {
    ph.v = ref;
  }
  return ph;
}

void record_one_rank_check(copa::Report& rep, copa::Verification& v, const std::string& checksum_one_rank,
                           const std::string& checksum_ranks, double t_one_rank, bool same, double diff, int nranks,
                           bool quiet) {
  rep.extra()["one_rank_check"] = {{"checksum_one_rank", checksum_one_rank}, {"checksum_ranks", checksum_ranks},
                                   {"t_one_rank", t_one_rank}, {"bitwise_equal", same}, {"max_abs_difference", diff}};
  if (!quiet)
    std::cout << "one-rank check: checksum " << checksum_one_rank << " alone, " << checksum_ranks << " on " << nranks
              << " ranks\n";
  if (!same) v = {"the same run on one rank (bitwise)", "max_abs_difference_vs_one_rank", diff, 0, false};
  v.one_rank_check = copa::Verification::OneRankCheck{same, "max_abs_difference", diff};
}

copa::Verification backend_verdict(copa::Backend b, const std::vector<double>& u, std::vector<double>& oracle,
                                   const PhysicsVerdict& ph, copa::Report& rep, bool quiet) {
  if (b == copa::Backend::serial) oracle = u;
  if (b == copa::Backend::serial || oracle.empty()) return ph.v;
  const double l2 = relative_l2(u, oracle);
  rep.extra()["cross_backend"] = {{"relative_l2_vs_serial", l2}, {"tolerance", cross_backend_tolerance}};
  if (!quiet) std::cout << copa::verdict_line(ph.v) << "\n";
  return {"serial oracle", "relative_l2_vs_serial", l2, cross_backend_tolerance,
          l2 < cross_backend_tolerance && (!ph.v.verified || ph.v.passed)};
}

}  // namespace ro
