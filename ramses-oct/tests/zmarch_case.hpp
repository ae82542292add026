// The set-up the zmarch GPU bodies' host emulations (test_zmarch.cpp, test_zmarch_col.cpp) share:
// a problem on a mesh with one boundary kind, limiter, Riemann solver and z patch, advanced four
// steps by the serial oracle and by the emulated body from the same state with the oracle's dt.
#pragma once
#include <array>
#include <vector>

#include "copa/timing.hpp"
#include "uniform/kernels.hpp"
#include "hydro/problems.hpp"
#include "hydro/reference.hpp"
#include "uniform/zmarch.hpp"

namespace ro::test {

struct ZmarchCase {
  const char* problem;
  std::array<int, 3> cells;
  Boundary bc;
  int slope, riemann;
  int px, py, L;
};

// Relative L2 distance between the emulated body's state and the oracle's after four steps.
// step(m, hp, z, u, unew, dtdx) advances u by one step of dt = dtdx * dx into unew.
template <class Step>
double zmarch_vs_serial(const ZmarchCase& c, Step&& step) {
  const OctMesh m = build_mesh(c.cells, {c.bc, c.bc, c.bc});
  ProblemParams pp;
  pp.name = c.problem;
  std::vector<double> u;
  initialise(m, pp, u);
  HydroParams hp;
  hp.slope_type = c.slope;
  hp.riemann = c.riemann;
  copa::Profile profile;
  copa::HostTimer timer(profile);
  SolverSetup s;
  s.mesh = &m;
  s.hydro = hp;
  s.timer = &timer;
  auto serial = make_serial_kernels(s);
  serial->load(u);
  const ZPatch z = make_zpatch(m.octs.data(), c.px, c.py, c.L);
  std::vector<double> uz = u, unew(u.size(), 0.0), us;
  for (int i = 0; i < 4; ++i) {
    const double dt = 0.5 * m.dx / serial->scan().max_speed;
    serial->advance(dt);
    step(m, hp, z, uz, unew, dt / m.dx);
    uz.swap(unew);
  }
  serial->store(us);
  return relative_l2(uz, us);
}

}  // namespace ro::test
