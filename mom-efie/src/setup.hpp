// Problem options of the command line and how they become a mesh and a wavenumber.
#pragma once
#include <complex>
#include <string>

#include "problem.hpp"

namespace efie {

struct ProblemOptions {
  std::string geometry = "sphere";  // sphere | cube | plate
  std::string mesh_file;            // Gmsh file instead of a built-in geometry
  std::string size = "small";       // small | medium | large: ~1,500 / 10,000 / 30,000 unknowns
  double radius = 1.0;              // sphere radius; half side of the cube and plate
  double ka = 0;                    // 0: not given
  double frequency = 0;             // Hz; 0: not given
  double elements_per_wavelength = 0;
  double edge_length = 0;
  std::string incidence = "0,0";        // theta,phi (deg) of the propagation direction
  std::string polarisation = "";        // E direction x,y,z; default: theta_hat of the incidence
};

// Unknowns each --size preset aims at.
long size_target_unknowns(const std::string& size);

// Wavenumber from --ka (default 2) or --frequency, with the radius.
double wavenumber(const ProblemOptions& o);
PlaneWave plane_wave(const ProblemOptions& o);
Mesh build_mesh(const ProblemOptions& o, double k);

// The size of the problem the options ask for, known before the mesh is built (built-in
// geometries: from the divisions build_mesh will use; --mesh: from the file's triangle count),
// so that a problem that cannot fit is refused before any work (DESIGN.md, exit 3). Doubles:
// a huge --ka gives counts beyond int.
struct SizeEstimate {
  double triangles = 0;
  double unknowns = 0;  // RWG functions: interior edges
};
SizeEstimate estimate_size(const ProblemOptions& o, double k);

// Fewest elements per wavelength a --size preset keeps: the RWG accuracy rule of thumb (README,
// Verification: ka = 2 at 10.5 per wavelength gives 0.28 dB); a preset at a large ka is refined.
constexpr double min_elements_per_wavelength = 10.0;
// The radius of the sphere the run's surface is, for the Mie verdict: the built-in sphere's, or
// for --mesh a surface that is closed, one connected piece (check_mesh has refused inconsistent
// orientation) with every vertex within 1e-6 of the radius from the origin. Otherwise 0, and
// `why_not` says which condition failed.
double sphere_radius_for_mie(const ProblemOptions& o, const Problem& p, std::string& why_not);

// "re" or "re,im" (a complex material constant, --eps-r, --mu-r); InputError naming the option.
std::complex<double> parse_complex(const std::string& text, const std::string& option);

}  // namespace efie
