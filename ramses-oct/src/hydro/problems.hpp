// Initial conditions of the three problems, on the state layout [field][oct][8 cells].
#pragma once
#include <array>
#include <string>
#include <vector>

#include "hydro/mesh.hpp"

namespace ro {

struct ProblemParams {
  std::string name = "sedov";  // sod | sedov | sound
  double gamma = 1.4;
  double energy = 1.0;         // sedov: blast energy
  double sound_amplitude = 1e-4;
};

// Box length along each axis (cubic cells, 1 along x).
std::array<double, 3> box_size(const OctMesh& m);

// Default end times: sod 0.2 (Toro test 1), sedov 0.05 (R ~ 0.31 for E = 1), sound one period.
double default_tend(const OctMesh& m, const ProblemParams& p);
// Default boundaries: outflow for sod (the tube's ends), periodic otherwise.
Boundary default_boundary(const std::string& problem);

// Sound wave: wave vector (2 pi / L_x, 2 pi / L_y, 2 pi / L_z), rho0 = 1, c = 1.
struct SoundWave {
  double k[3], omega, amplitude;
  double density(double x, double y, double z, double t) const;
};
SoundWave sound_wave(const OctMesh& m, const ProblemParams& p);

// Fills u (5 * ncell) with the problem's initial state.
void initialise(const OctMesh& m, const ProblemParams& p, std::vector<double>& u);
// The initial conserved state of the cell with integer coordinates ic on a uniform level of
// `cells` cells per axis and spacing dx: the base mesh, or a refined level of an AMR run (which
// sets up every level from the problem itself, so full refinement reproduces the uniform run).
void initial_cell_state(const ProblemParams& p, const SoundWave& wave, std::array<int, 3> cells, double dx,
                        std::array<int, 3> ic, double out[5]);

}  // namespace ro
