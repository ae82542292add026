// References the runs are checked against: the exact Riemann solution (Toro ch. 4) for Sod, the
// Sedov-Taylor shock radius, the linear sound wave; and the measurements taken from a state.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hydro/mesh.hpp"
#include "hydro/problems.hpp"

namespace ro {

struct Primitive1d {
  double rho, u, p;
};

// Exact solution of the 1D Riemann problem of an ideal gas (Toro, "Riemann Solvers and Numerical
// Methods for Fluid Dynamics", 3rd ed., sections 4.2-4.5): Newton iteration on the pressure
// function f_L(p) + f_R(p) + du = 0 for p*, then sampling at s = x / t.
class ExactRiemann {
 public:
  ExactRiemann(Primitive1d left, Primitive1d right, double gamma);
  double p_star() const { return pstar_; }
  double u_star() const { return ustar_; }
  Primitive1d sample(double s) const;
  // Speeds of the outermost waves (Toro 4.5): the left shock or rarefaction head, and the right one.
  double left_wave_speed() const;
  double right_wave_speed() const;

 private:
  double pressure_function(double p, const Primitive1d& k, double c, double& derivative) const;
  Primitive1d l_, r_;
  double g_, cl_, cr_, pstar_ = 0, ustar_ = 0;
};

// Toro test 1: left (1, 0, 1), right (0.125, 0, 0.1), interface at x = 0.5.
ExactRiemann sod_exact(double gamma);
// Mean over all cells of |rho - rho_exact| (the L1 norm on the unit-length tube), Toro test 1
// with the interface at x = 0.5, at time t.
double sod_l1_density_error(const OctMesh& m, const std::vector<double>& u, double gamma, double t);

// Radially binned averages about the box centre, bins of width dx out to half the smallest extent.
struct RadialProfile {
  std::vector<double> r, rho, p;
};
RadialProfile radial_profile(const OctMesh& m, const std::vector<double>& u, double gamma);
// Shock radius: position of the maximum of the binned density, refined by a parabola through the
// maximum bin and its two neighbours.
double shock_radius(const RadialProfile& prof);
// Sedov-Taylor radius R = xi0 (E t^2 / rho0)^(1/5); xi0 = 1.0328 (gamma 1.4), 1.1517 (5/3); 0 otherwise.
double sedov_radius(double energy, double t, double rho0, double gamma);

// Mean over cells of |rho - rho_exact| divided by the amplitude.
double sound_relative_l1(const OctMesh& m, const std::vector<double>& u, const SoundWave& w, double t);

// Totals of mass and energy (sum over cells times the cell volume).
struct Totals {
  double mass = 0, energy = 0;
};
Totals totals(const OctMesh& m, const std::vector<double>& u);

// FNV-1a 64-bit hash of the bit patterns of a state: equal hashes mean (up to collisions) bitwise
// equal states; the determinism and rank-count tests compare it.
std::uint64_t state_checksum(const std::vector<double>& u);
std::string hex(std::uint64_t v);

// Relative L2 difference of two states over all fields: ||a - b|| / ||b||.
double relative_l2(const std::vector<double>& a, const std::vector<double>& b);

// --profile: sod -> x,rho,u,p along x through the domain centre; sedov -> r,rho,p binned;
// sound -> x,rho,rho_exact along x through the corner line y = z = first cell. Written whole or not
// at all (copa::write_output: a failed write is exit 3 naming --profile and the file).
void write_profile(const std::string& path, const std::string& problem, const OctMesh& m,
                   const std::vector<double>& u, double gamma, double t, const SoundWave& w);

}  // namespace ro
