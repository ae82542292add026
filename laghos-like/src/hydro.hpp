// Laghos's Lagrangian hydro operator and time loop on one backend: the velocity solve
// (Jacobi-preconditioned CG on the PA mass, one component at a time), the energy solve (CG on
// the L2 mass), MFEM's RK4 and Laghos's RK2Avg, and the step control (repeat with dt*0.85 when
// the estimate drops below dt, grow by 1.02 when it exceeds 1.25 dt).
//
// Distributed (a SharedDofs given): every H1 scatter is summed over the sharers, dots over H1 take
// the owned nodes only and every dot, dt estimate and energy total is reduced deterministically
// (copa::mpi::sum_ordered, min_all), so that every rank takes the same CG and time-step path.
// With an ElementSplit (--overlap) F 1 and the CG's H1 mass action are computed in two passes around
// the exchange's first half: boundary elements, start the exchange, interior elements, finish it.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "discretization.hpp"
#include "kernels.hpp"
#include "shared_dofs.hpp"

namespace laghos {

struct RunOptions {
  int ode = 4;                 // 4 = RK4, 7 = RK2Avg
  double t_final = 0.6;
  double cg_tol = 1e-8;
  int cg_max_iter = 300;
  int max_steps = -1;          // -1 = no limit (Laghos -ms)
  int print_every = 0;         // step lines every n steps (0 = last only), Laghos -vs
  bool quiet = false;
  // Intermediate states (--vtk-every): `output` gets the step, the time and the host state
  // (x, v, e) at step 0 and every `output_every` accepted steps. Outside the kernel timers.
  int output_every = 0;
  std::function<void(int step, double t, const std::vector<double>& state)> output;
  // Called after every accepted step with the step, the time and the final time (heartbeat).
  std::function<void(int step, double t)> progress;
};

// Laghos's timers and counters (PrintTimingData).
struct HydroTiming {
  double cg_h1 = 0, cg_l2 = 0, force = 0, qdata = 0;
  // Per-sample times (seconds): one per CG solve divided by its iterations (per-iteration time of
  // that solve), one per force call (F 1 or F^T v), one per quadrature update.
  std::vector<double> cg_h1_samples, cg_l2_samples, force_samples, qdata_samples;
  std::int64_t h1_iter = 0, l2_iter = 0, quad_tstep = 0;
  std::int64_t force_calls = 0, qdata_calls = 0, mass_h1_calls = 0, mass_l2_calls = 0;
  // Communication on ranks inside the four timers above (Laghos's timers include it; the kernel
  // rows exclude it): the shared-dof exchanges (halo) and the global reductions of dots and dt
  // (allreduce), each timed from a synchronised backend to its completion. One sample per call.
  double halo = 0, allreduce = 0;
  std::vector<double> halo_samples, allreduce_samples;
  double halo_bytes_sent = 0, halo_bytes_received = 0;  // over all exchanges
  // The communication time inside each timer.
  double comm_cg_h1 = 0, comm_cg_l2 = 0, comm_force = 0, comm_qdata = 0;
};

struct RunResult {
  int steps = 0;           // accepted steps (Laghos's printed 'step')
  int steps_taken = 0;     // every step taken, repeated ones included (Laghos's 'steps')
  int repeats = 0;
  double t = 0, dt = 0, e_norm = 0;
  double energy_initial = 0, energy_final = 0;
  HydroTiming timing;
  double rate_cg_h1 = 0, rate_cg_l2 = 0, rate_force = 0, rate_qdata = 0, rate_total = 0;
  std::vector<double> state;  // final (x, v, e) on the host
};

class LagrangianHydro {
 public:
  // `shared`: the rank's shared H1 dofs in a distributed run (exchanged in the backend's memory), or null.
  // `overlap`: the rank's boundary/interior split (needs `shared`) to overlap F 1's exchange, or null.
  LagrangianHydro(const Discretization& d, HydroKernels& kernels, const RunOptions& options,
                  SharedDofs* shared = nullptr, const ElementSplit* overlap = nullptr);
  ~LagrangianHydro();
  LagrangianHydro(const LagrangianHydro&) = delete;
  LagrangianHydro& operator=(const LagrangianHydro&) = delete;

  // Runs from the initial state to t_final (or max_steps); step lines go to `log`.
  RunResult run(const std::vector<double>& initial_state, const std::function<void(const std::string&)>& log);

  // Total energy sum_q rho0DetJ0w e(q) + 1/2 v^T M v of a host state (Laghos's IE + KE).
  double total_energy(const double* state_backend);

 private:
  void update_qdata(const double* S);
  void mult(const double* S, double* dSdt);
  void solve_velocity(const double* S, double* dSdt);
  void solve_energy(const double* S, const double* v, double* dSdt);
  void step_rk4(double* S, double dt);
  void step_rk2avg(double* S, double dt);
  int cg(double (LagrangianHydro::*op)(const double*, double*), const double* dinv, std::size_t n,
         const double* b, double* x);
  double op_velocity(const double* x, double* y);  // y = M x, returns (x, y)
  double op_energy(const double* x, double* y);
  double elapsed(double start);
  // Global dots: H1 vectors over owned nodes, L2 vectors over local elements, summed over ranks.
  double dot_h1(const double* x, const double* y);
  double dot_l2(const double* x, const double* y);
  void assemble_h1(double* y, int components);  // partial sums -> sums over all sharers
  void force_assembled();                       // rhs_ = F 1, assembled over the sharers
  // --overlap: boundary(stream), start of the exchange of y, interior(), its finish (on a GPU
  // interior() first; `commute`: the boundary pass on the exchange's forked stream).
  template <class Boundary, class Interior>
  void assemble_overlapped(Boundary boundary, Interior interior, double* y, int components, bool commute);
  void record_halo(double seconds, int components);
  // The rank-order sum / minimum over ranks of a scalar (copa::mpi), timed as allreduce.
  double reduce_sum(double partial);
  double reduce_min(double value);
  // Communication seconds recorded so far (halo + allreduce); recorded only inside a timer.
  double comm_seconds() const { return timing_.halo + timing_.allreduce; }

  const Discretization& d_;
  HydroKernels& k_;
  RunOptions opt_;
  std::size_t nh_, vs_, ss_;
  int component_ = 0;
  bool qdata_current_ = false;
  double dt_est_ = 0;
  // Backend vectors.
  double *S_, *S_old_, *dSdt_, *k_rk_, *y_rk_, *z_rk_, *S0_, *V_;
  double *rhs_, *e_rhs_, *source_, *dinv_, *B_, *X_, *r_, *dd_, *zz_, *rl_, *dl_, *zl_;
  HydroTiming timing_;
  bool in_timer_ = false;  // communication is recorded only inside Laghos's four timers
  SharedDofs* shared_ = nullptr;
  bool overlap_ = false;
  double* owned_ = nullptr;
};

}  // namespace laghos
