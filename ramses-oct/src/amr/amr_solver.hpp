// One global-dt step over all levels of the oct tree (the Athena family's time stepping on
// RAMSES's octs): the CFL reduction over the leaf cells, the MUSCL-Hancock update of every leaf
// cell of every level in one loop over the octs that hold leaves, the refluxing of coarse cells
// next to finer ones, and the restriction of the new state to the covered cells, bottom-up.
// Serial (the oracle) and OpenMP run this same code; each loop iteration writes only its own
// octs' cells and every sum has one fixed order, so the two agree bit for bit.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "amr/amr_lists_body.hpp"
#include "amr/amr_tree.hpp"
#include "copa/backend.hpp"
#include "hydro/hydro_math.hpp"
#include "hydro/problems.hpp"
#include "hydro/reference.hpp"

namespace ro::amr {

// How the per-oct loops run: one thread (serial) or an OpenMP team. body(i, worker) with worker in
// [0, workers()): the index of the per-thread workspace.
// The host tree's link tables as the view the shared bodies read.
TreeView tree_view(const Tree& t);

class Loops {
 public:
  virtual ~Loops() = default;
  virtual int workers() const = 0;
  virtual void run(std::int64_t n, const std::function<void(std::int64_t, int)>& body) const = 0;
};
std::unique_ptr<Loops> make_loops(copa::Backend b);  // serial or openmp; InputError otherwise
std::unique_ptr<Loops> make_serial_loops();
#if defined(COPA_HAVE_OPENMP)
std::unique_ptr<Loops> make_openmp_loops();
#endif


// What a step needs besides the tree, rebuilt after every regrid.
struct StepLists {
  std::vector<std::int32_t> leaf_octs;        // octs with at least one leaf cell, level by level
  std::vector<std::int64_t> leaf_octs_begin;  // per level, into leaf_octs (L + 2 entries)
  std::vector<std::int32_t> reflux_octs;      // coarse octs with reflux faces
  std::vector<std::int64_t> reflux_begin;     // per reflux oct, into faces (+ end)
  std::vector<RefluxFace> faces;              // in (cell, face) order
  // Workspace: per oct the exclusive prefix sums of leaf octs and reflux faces (the device's
  // scans' layout, amr_lists_body.hpp), and the reflux faces as bits 6 * cell + face.
  std::vector<long long> count, face_count;
  std::vector<std::uint64_t> face_mask;
};
// Rebuilds s in place (vectors keep their capacity across regrids), the per-oct work in parallel;
// the lists do not depend on the loops.
void build_step_lists(const Tree& t, const Loops& loops, StepLists& s);
StepLists build_step_lists(const Tree& t);  // serial, fresh lists
// Drops the entries of octs another rank owns (build_step_lists does it when t has owned ranges).
void keep_owned(const Tree& t, StepLists& s);

// Fine-face fluxes of the octs next to a coarser region: [oct][face][4 sub-faces][5 fields].
inline constexpr int fine_flux_per_oct = 6 * 4 * nvar;

// Largest leaf signal speed per level and the lowest bad leaf cell (-1: none).
struct LeafScan {
  std::vector<double> max_speed;
  std::int64_t bad_cell = -1;
};
LeafScan scan_leaves(const Tree& t, const std::vector<double>& u, double gamma, const Loops& loops);
// dt = min over levels with leaves of C dx_l / max_speed_l (one level: the uniform run's formula).
double cfl_dt(const Tree& t, const LeafScan& s, double courant);

class Stepper {
 public:
  Stepper(const Loops& loops, HydroParams hp, bool reflux) : loops_(loops), hp_(hp), reflux_(reflux), work_(loops.workers()) {}
  // u -> unew for every leaf cell (covered cells of unew are left as they are), fine-face fluxes
  // stored; then the reflux gathers into the coarse cells of unew.
  void update(const Tree& t, const StepLists& lists, const std::vector<double>& u, std::vector<double>& unew,
              double dt);
  void reflux(const Tree& t, const StepLists& lists, std::vector<double>& unew, double dt) const;

  // Level subcycling (--subcycle, amr_subcycle.hpp): the leaf cells of level l only, u -> unew
  // with dt_l; the fine-face fluxes of the level's octs next to a coarser region are added,
  // times dt_l, to their sums over the substeps (the time-integrated fluxes of RAMSES's reflux).
  void update_level(const Tree& t, const StepLists& lists, int l, const std::vector<double>& u,
                    std::vector<double>& unew, double dt);
  // The reflux of level l's coarse cells from the time-integrated fluxes of their level-(l+1)
  // son octs (sum over the two substeps of F dt_{l+1}); then those sums are reset to zero.
  void reflux_level(const Tree& t, const StepLists& lists, int l, std::vector<double>& unew);
  // The fine-face fluxes (update) and their sums over the substeps (update_level), as the reflux
  // reads them: over ranks the coarse owner receives another rank's fine fluxes there.
  double* fine_flux() { return fine_flux_.data(); }
  double* fine_flux_sum() { return fine_flux_sum_.data(); }

 private:
  struct Work;
  void update_oct(const Tree& t, std::int32_t o, const double* u, double* unew, double dt, Work& w);
  const Loops& loops_;
  HydroParams hp_;
  bool reflux_;
  std::vector<std::shared_ptr<Work>> work_;
  std::vector<double> fine_flux_;
  std::vector<double> fine_flux_sum_;  // --subcycle: per fine face, the sum of F dt over the substeps
};

// The eight sons of the cell of level l at cell coordinates ic (inside the domain), prolonged from
// it and its six face neighbours (the finest existing cells there, mirrored at reflecting faces):
// the ghost slots of the leaf update and the new octs of a regrid.
void prolong_from(const Tree& t, const double* u, std::int64_t stride, int l, std::array<int, 3> ic, double gamma,
                  double sons[8][nvar]);

// Restriction of every covered cell from its son, finest level first.
void restrict_all(const Tree& t, std::vector<double>& u, const Loops& loops);
// Restriction of the covered cells of level l only (from level l + 1).
void restrict_level(const Tree& t, std::vector<double>& u, int l, const Loops& loops);

// Sets every cell of every level from the problem's initial condition at that level.
void initial_state(const Tree& t, const ProblemParams& pp, std::vector<double>& u);

// Totals over the leaf cells: per level a compensated sum times the cell volume, levels added in order.
Totals leaf_totals(const Tree& t, const std::vector<double>& u);

// The leaf state sampled on the uniform mesh of the finest level (each fine cell takes the value of
// the leaf that covers it): the references, profiles and cross-backend checks of the uniform runs
// then apply unchanged.
std::vector<double> project_to_finest(const Tree& t, const OctMesh& fine, const std::vector<double>& u);

}  // namespace ro::amr
