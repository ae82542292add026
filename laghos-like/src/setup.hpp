// From the command line to a run: laghos-like's own options (beside copa's common ones), the setup
// they give (mesh, problem, run options, the Laghos table entry, the process grid), and the refusals
// made from the options alone, before anything is allocated (README "Problems and options").
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "copa/backend.hpp"
#include "copa/vtk.hpp"
#include "discretization.hpp"
#include "hydro.hpp"
#include "mesh.hpp"
#include "problem_size.hpp"
#include "reference.hpp"

namespace laghos {

struct AppOptions {
  int laghos_run = 0;
  int problem = 1;
  std::string mesh;
  int dim = 3;
  int refine = 0;
  int order_k = 2, order_t = 1;
  std::string ode = "rk4";
  double t_final = 0.6;
  double cfl = 0.5;
  double cg_tol = 1e-8;
  int cg_max = 300;
  int max_steps = -1;
  double energy = 1.0;
  int nx = 0, ny = 0, nz = 0;
  int print_every = 5;
  double tolerance = 1e-8;
  double energy_tolerance = -1;  // < 0: derived (README "Verification": rk2avg cg_tol, rk4 no bound)
  std::vector<int> proc_grid;    // ranks per axis (empty: like MPI_Dims_create)
  int zones_per_rank = 0;        // Laghos -epm: the generated box grows with the rank count
  bool compare_one_rank = false;
  std::string transport = "host";  // halo transport of the shared H1 dofs (copa::halo)
  bool overlap = false;            // F 1's and the CG mass's exchanges overlapped with interior elements
  copa::vtk::Options vtk;          // ParaView output of the first backend of a run
};

struct Setup {
  std::string mesh;  // a named mesh, or empty for the generated box
  int dim = 3, nx = 2, ny = 2, nz = 2, refine = 0;
  ProblemSize size;  // known before the mesh is built (memory estimate, index range)
  ProblemSpec spec;
  RunOptions run;
  std::optional<LaghosRun> reference;
  std::array<int, 3> grid{1, 1, 1};  // ranks per axis
};

inline constexpr const char* kSizeOptions = "--nx/--ny/--nz/--refine/--order-k/--order-t";

// Registers the options above on the app (with Laghos's flag table as its footer).
void add_app_options(CLI::App& app, AppOptions& o);
// The run's setup; throws InputError (exit 2) naming the option at fault. `size` is --size.
Setup make_setup(AppOptions o, const std::string& size, CLI::App& app);
CartesianMesh build_mesh(const Setup& s);
// Refuses, before anything is allocated, a run whose estimated memory exceeds what is free (exit 3).
void require_memory(const ProblemSize& size, const std::vector<copa::Backend>& backends, int device_option,
                    double extra_host);
// require_memory for the largest rank's box (and rank 0's gathered global state) and the 32-bit
// index range (exit 3 or 2), from the options alone. Collective.
void require_run_fits(const Setup& setup, const std::vector<copa::Backend>& backends, int device_option);

}  // namespace laghos
