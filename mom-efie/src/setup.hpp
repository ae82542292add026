// Problem options of the command line and how they become a mesh and a wavenumber.
#pragma once
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
// Radius of the sphere all mesh vertices lie on (centre at the origin), or 0 when they do not.
double sphere_radius_of(const Mesh& m);

}  // namespace efie
