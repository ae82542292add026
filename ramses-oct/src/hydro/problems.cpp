#include "hydro/problems.hpp"

#include <cmath>

#include "copa/errors.hpp"
#include "hydro/hydro_math.hpp"

namespace ro {

std::array<double, 3> box_size(const OctMesh& m) {
  return {m.cells[0] * m.dx, m.cells[1] * m.dx, m.cells[2] * m.dx};
}

Boundary default_boundary(const std::string& problem) {
  return problem == "sod" ? Boundary::outflow : Boundary::periodic;
}

SoundWave sound_wave(const OctMesh& m, const ProblemParams& p) {
  const auto L = box_size(m);
  SoundWave w;
  double k2 = 0;
  for (int a = 0; a < 3; ++a) {
    w.k[a] = 2 * M_PI / L[a];
    k2 += w.k[a] * w.k[a];
  }
  w.omega = std::sqrt(k2);  // c = 1
  w.amplitude = p.sound_amplitude;
  return w;
}

double SoundWave::density(double x, double y, double z, double t) const {
  return 1.0 + amplitude * std::sin(k[0] * x + k[1] * y + k[2] * z - omega * t);
}

double default_tend(const OctMesh& m, const ProblemParams& p) {
  if (p.name == "sod") return 0.2;
  if (p.name == "sound") return 2 * M_PI / sound_wave(m, p).omega;
  return 0.05;
}

void initial_cell_state(const ProblemParams& p, const SoundWave& wave, std::array<int, 3> cells, double dx,
                        std::array<int, 3> ic, double out[nvar]) {
  const double g1 = p.gamma - 1.0;
  const double L[3] = {cells[0] * dx, cells[1] * dx, cells[2] * dx};
  const double kn = wave.omega;
  const double dv = dx * dx * dx;
  const double x = (ic[0] + 0.5) * dx, y = (ic[1] + 0.5) * dx, z = (ic[2] + 0.5) * dx;
  double rho = 1, vel[3] = {0, 0, 0}, pres = 1, eextra = 0;
  if (p.name == "sod") {
    const bool left = x < 0.5 * L[0];
    rho = left ? 1.0 : 0.125;
    pres = left ? 1.0 : 0.1;
  } else if (p.name == "sedov") {
    rho = 1.0;
    pres = 1e-5;
    bool centre = true;
    for (int a = 0; a < 3; ++a) centre = centre && (ic[a] == cells[a] / 2 - 1 || ic[a] == cells[a] / 2);
    if (centre) eextra = p.energy / (8 * dv);
  } else if (p.name == "sound") {
    // Linear acoustic wave with c = 1: p0 = 1/gamma, rho' = A s, u' = A s k/|k|, p' = A s.
    const double s = std::sin(wave.k[0] * x + wave.k[1] * y + wave.k[2] * z);
    rho = 1.0 + p.sound_amplitude * s;
    for (int a = 0; a < 3; ++a) vel[a] = p.sound_amplitude * s * wave.k[a] / kn;
    pres = 1.0 / p.gamma + p.sound_amplitude * s;
  } else {
    throw copa::InputError("--problem: unknown problem '" + p.name + "' (sod|sedov|sound)");
  }
  out[0] = rho;
  for (int a = 0; a < 3; ++a) out[1 + a] = rho * vel[a];
  out[4] = pres / g1 + 0.5 * rho * (vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2]) + eextra;
}

void initialise(const OctMesh& m, const ProblemParams& p, std::vector<double>& u) {
  const std::int64_t n = m.ncell();
  u.assign(n * nvar, 0.0);
  const SoundWave wave = sound_wave(m, p);
  for (std::int64_t o = 0; o < m.noct; ++o)
    for (int c = 0; c < 8; ++c) {
      double uc[nvar];
      initial_cell_state(p, wave, m.cells, m.dx, m.cell_coords(o, c), uc);
      for (int f = 0; f < nvar; ++f) u[f * n + o * 8 + c] = uc[f];
    }
}

}  // namespace ro
