// Small runs through the library for the tests.
#pragma once
#include <string>
#include <vector>

#include "uniform/driver.hpp"
#include "variants.hpp"
#include "hydro/mesh.hpp"
#include "hydro/problems.hpp"

namespace ro::test {

inline RunResult run_problem(copa::Backend b, const std::string& problem, std::array<int, 3> cells, Boundary bc,
                             long steps, double tend = -1, int slope = 1, int riemann = riemann_hll) {
  const OctMesh m = build_mesh(cells, {bc, bc, bc});
  ProblemParams pp;
  pp.name = problem;
  std::vector<double> u0;
  initialise(m, pp, u0);
  RunConfig cfg;
  cfg.problem = pp;
  cfg.hydro.slope_type = slope;
  cfg.hydro.riemann = riemann;
  cfg.tend = tend > 0 ? tend : default_tend(m, pp);
  cfg.max_steps = steps;
  return run_backend(b, registry().default_selection(b, 1), m, u0, cfg);
}

}  // namespace ro::test
