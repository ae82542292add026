// The command line's values as both drivers read them (main.cpp fills them in), the run
// configuration made from them and the variants a run takes.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "copa/backend.hpp"
#include "copa/cli.hpp"
#include "copa/variants.hpp"
#include "copa/vtk.hpp"
#include "hydro/mesh.hpp"
#include "hydro/problems.hpp"
#include "hydro/run_config.hpp"

namespace ro {

inline constexpr const char* app_name = "ramses-oct";
inline constexpr const char* app_version = "1.0";

struct Options {
  copa::CommonOptions common;
  std::string problem = "sedov";
  int n = 0, nx = 0, ny = 0, nz = 0;
  double gamma = 1.4, courant = 0.8, tend = -1, energy = 1.0;
  long steps = 1000000;
  std::string slope = "minmod", riemann = "hll", bc, profile;
  bool host_resident = false;
  int block_size = 0;
  std::vector<int> sweep;
  std::string transport = "host";
  bool compare_one_rank = false;
  int reps = 1;  // --reps when given; a run's samples are its time steps, so one run by default
  copa::vtk::Options vtk;  // ParaView output of the first backend and variant of a run
  bool vtk_cells = false;  // leaf cells as hexahedra (.vtu) instead of the uniform grid (.vti)
  // AMR (--levels > 0).
  int levels = 0, regrid_every = 2, refine_buffer = 1;
  double refine_threshold = -1, refine_density = 0.1, refine_pressure = 0.1;
  // AMR over MPI ranks: the max/mean work above which a regrid re-cuts the ranks' ranges. 1.1: a
  // step waits for the busiest rank, so 10% of imbalance costs 10% of every step until the next
  // regrid, while a re-cut moves each migrating oct's 320 B once (about what one ghost exchange
  // moves per oct of the ranks' boundaries).
  double amr_imbalance = 1.1;
  std::string refine = "gradient";
  std::vector<double> refine_band = {0.25, 0.5};
  bool no_reflux = false;
  bool subcycle = false;  // RAMSES's level subcycling instead of the global dt
  bool phase_timing = false;  // AMR GPU: device events between the step's phases (host-dt path)
  long long max_octs = 0;
};

// The variants a run takes, per backend in the order of the run.
using Plan = std::vector<std::pair<copa::Backend, std::vector<copa::Selection>>>;

inline double make_tend(const Options& o, const OctMesh& m, const ProblemParams& pp) {
  return o.tend >= 0 ? o.tend : default_tend(m, pp);
}

inline RunConfig make_config(const Options& o, const OctMesh& m, const ProblemParams& pp) {
  RunConfig c;
  c.problem = pp;
  c.hydro.gamma = o.gamma;
  c.hydro.slope_type = o.slope == "mc" ? 2 : 1;
  c.hydro.riemann = o.riemann == "hllc" ? riemann_hllc : (o.riemann == "llf" ? riemann_llf : riemann_hll);
  c.courant = o.courant;
  c.tend = make_tend(o, m, pp);
  c.max_steps = o.steps;
  c.warmup = o.common.warmup;
  c.reps = o.reps;
  c.block_size = o.block_size;
  c.host_resident = o.host_resident;
  return c;
}

}  // namespace ro
