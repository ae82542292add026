#include "hydro.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "copa/errors.hpp"
#include "copa/mpi.hpp"
#include "copa/timing.hpp"

namespace laghos {

LagrangianHydro::LagrangianHydro(const Discretization& d, HydroKernels& kernels, const RunOptions& options,
                                 SharedDofs* shared, const ElementSplit* overlap)
    : d_(d), k_(kernels), opt_(options), shared_(shared), overlap_(overlap != nullptr) {
  if (overlap_ && !shared_) throw copa::RuntimeError("--overlap needs the shared dofs of a distributed run");
  if (overlap_) k_.set_split(*overlap);
  nh_ = d.nh1;
  vs_ = d.h1_vsize();
  ss_ = d.state_size();
  for (double** p : {&S_, &S_old_, &dSdt_, &k_rk_, &y_rk_, &z_rk_, &S0_}) *p = k_.alloc(ss_);
  V_ = k_.alloc(vs_);
  rhs_ = k_.alloc(vs_);
  e_rhs_ = k_.alloc(d.nl2);
  source_ = d.taylor_source ? k_.alloc(d.nl2) : nullptr;
  for (double** p : {&dinv_, &B_, &X_, &r_, &dd_, &zz_}) *p = k_.alloc(nh_);
  for (double** p : {&rl_, &dl_, &zl_}) *p = k_.alloc(d.nl2);
  // Jacobi preconditioner of the velocity mass: the PA diagonal (MFEM's OperatorJacobiSmoother
  // with no essential dofs; the boundary rows are handled by the operator).
  k_.mass_h1_diagonal(dinv_);
  assemble_h1(dinv_, 1);
  if (shared_) {
    owned_ = k_.alloc(nh_);
    k_.to_backend(owned_, shared_->owned_mask().data(), nh_);
  }
  std::vector<double> diag(nh_);
  k_.to_host(diag.data(), dinv_, nh_);
  for (double& x : diag) x = 1.0 / x;
  k_.to_backend(dinv_, diag.data(), nh_);
}

LagrangianHydro::~LagrangianHydro() {
  for (double* p : {S_, S_old_, dSdt_, k_rk_, y_rk_, z_rk_, S0_, V_, rhs_, e_rhs_, source_, dinv_, B_, X_, r_, dd_, zz_,
                    rl_, dl_, zl_, owned_})
    if (p) k_.release(p);
}

double LagrangianHydro::elapsed(double start) {
  k_.sync();
  return copa::host_seconds() - start;
}

double LagrangianHydro::dot_h1(const double* x, const double* y) {
  if (!shared_) return k_.dot(nh_, x, y);
  return reduce_sum(k_.dot_weighted(nh_, x, y, owned_));
}

double LagrangianHydro::dot_l2(const double* x, const double* y) {
  const double local = k_.dot(d_.nl2, x, y);
  return shared_ ? reduce_sum(local) : local;
}

// The reductions take a host scalar (the backend's dot or dt estimate already returned it), so
// the time is the reduction's own, including the wait for the slowest rank to arrive.
double LagrangianHydro::reduce_sum(double partial) {
  const double t0 = copa::host_seconds();
  const double total = copa::mpi::sum_ordered(partial);
  if (in_timer_) {
    const double took = copa::host_seconds() - t0;
    timing_.allreduce += took;
    timing_.allreduce_samples.push_back(took);
  }
  return total;
}

double LagrangianHydro::reduce_min(double value) {
  const double t0 = copa::host_seconds();
  const double least = copa::mpi::min_all(value);
  if (in_timer_) {
    const double took = copa::host_seconds() - t0;
    timing_.allreduce += took;
    timing_.allreduce_samples.push_back(took);
  }
  return least;
}

// The exchange is timed from a synchronised backend (the scatter that produced the partials has
// finished, so its time stays with the kernel) to a synchronised end (on a GPU the unpack has run).
void LagrangianHydro::assemble_h1(double* y, int components) {
  if (!shared_) return;
  k_.sync();
  const double t0 = copa::host_seconds();
  shared_->sum(y, components);
  record_halo(elapsed(t0), components);
}

void LagrangianHydro::record_halo(double seconds, int components) {
  if (!in_timer_) return;
  timing_.halo += seconds;
  timing_.halo_samples.push_back(seconds);
  timing_.halo_bytes_sent += static_cast<double>(shared_->bytes_sent(components));
  timing_.halo_bytes_received += static_cast<double>(shared_->bytes_received(components));
}

// --overlap (F 1 and the CG's H1 mass action): the boundary elements, the start of the shared-dof
// exchange, the interior elements, then its completion. On the CPU the messages are in flight
// (MPI_Isend/Irecv) while the interior elements are computed. On a GPU the interior pass is enqueued
// right after the boundary pass, before the start of the exchange, whose pack runs on the exchange's
// own stream beside it (SharedDofs::fork): the pack and the transfer (host transport: a wait on that
// stream in start; ipc and nccl: their copy on a side stream after the pack) never delay the
// interior kernel. Where the two passes commute (the GPU's atomic mass), the boundary pass runs on
// the forked stream too, launched after the interior kernel (it gets the multiprocessors first all
// the same: the forked stream has the highest priority), so that neither it nor the pack is on the
// default stream's path: before this, both and the host's launch gaps between them cost ~15 us per
// CG iteration at 44^3 per H200 (copa-gputrace timelines, README "Distributed runs"). The halo time
// recorded is the host time inside the two exchange calls (on a GPU the unpack is enqueued, not
// waited for: a synchronisation here would only idle the GPU before the dot that follows), so the
// interior pass stays with the kernels' time except where the host waits for a message (README
// "Distributed runs", overlap).
template <class Boundary, class Interior>
void LagrangianHydro::assemble_overlapped(Boundary boundary, Interior interior, double* y, int components,
                                          bool commute) {
  // On a GPU the interior kernels are enqueued before the start; on the CPU they run between the
  // start and the finish, while the messages are in flight.
  bool interior_enqueued = false;
  if (commute) {
    void* stream = shared_->fork(components);
    interior();  // first: the GPU waits for the host's launches, and this is the long kernel
    boundary(stream);
    interior_enqueued = true;
  } else {
    boundary(nullptr);
    if (shared_->fork(components)) {
      interior();
      interior_enqueued = true;
    }
  }
  const double t0 = copa::host_seconds();
  shared_->start_sum(y, components);
  const double started = copa::host_seconds() - t0;
  if (!interior_enqueued) interior();
  const double t1 = copa::host_seconds();
  shared_->finish_sum(y, components);
  record_halo(started + (copa::host_seconds() - t1), components);
}

void LagrangianHydro::force_assembled() {
  if (overlap_) {
    assemble_overlapped([&](void*) { k_.force_boundary(rhs_); }, [&] { k_.force_interior(rhs_); }, rhs_, d_.dim,
                        false);
    return;
  }
  k_.force(rhs_);
  assemble_h1(rhs_, d_.dim);
}

void LagrangianHydro::update_qdata(const double* S) {
  if (qdata_current_) return;
  qdata_current_ = true;
  const double t0 = copa::host_seconds();
  const double c0 = comm_seconds();
  in_timer_ = true;
  double dt = k_.quadrature_update(S, S + vs_, S + 2 * vs_, source_);
  if (shared_) dt = reduce_min(dt);
  const double took = elapsed(t0);
  in_timer_ = false;
  const double comm = comm_seconds() - c0;
  timing_.qdata += took;
  timing_.comm_qdata += comm;
  timing_.qdata_samples.push_back(took - comm);
  timing_.quad_tstep += d_.NE;
  ++timing_.qdata_calls;
  dt_est_ = std::fmin(dt_est_, dt);
}

double LagrangianHydro::op_velocity(const double* x, double* y) {
  ++timing_.mass_h1_calls;
  if (!shared_) return k_.mass_h1_ess_dot(component_, nh_, x, y);
  if (overlap_) {
    const bool commute = k_.mass_h1_passes_commute();
    if (commute) k_.fill(nh_, 0.0, y);
    assemble_overlapped([&](void* stream) { k_.mass_h1_boundary(x, y, stream); },
                        [&] { k_.mass_h1_interior(x, y); }, y, 1, commute);
  } else {
    k_.mass_h1(x, y);
    assemble_h1(y, 1);
  }
  return reduce_sum(k_.ess_dot(component_, nh_, x, y, owned_));
}

double LagrangianHydro::op_energy(const double* x, double* y) {
  k_.mass_l2(x, y);
  ++timing_.mass_l2_calls;
  return dot_l2(x, y);
}

// MFEM's CGSolver with x0 = 0: stops when (r, B r) <= rel_tol^2 (r0, B r0); returns the
// iteration count it reports (max_iter when not converged).
int LagrangianHydro::cg(double (LagrangianHydro::*op)(const double*, double*), const double* dinv, std::size_t n,
                        const double* b, double* x) {
  const bool velocity = (op == &LagrangianHydro::op_velocity);
  double* r = velocity ? r_ : rl_;
  double* d = velocity ? dd_ : dl_;
  double* z = velocity ? zz_ : zl_;
  k_.copy(n, b, r);
  k_.fill(n, 0.0, x);
  if (dinv) {
    k_.multiply(n, dinv, r, z);
    k_.copy(n, z, d);
  } else {
    k_.copy(n, r, d);
  }
  const auto gdot = [&](const double* a, const double* b) { return velocity ? dot_h1(a, b) : dot_l2(a, b); };
  double nom = gdot(d, r);
  if (nom < 0.0) return 0;
  const double r0 = nom * opt_.cg_tol * opt_.cg_tol;
  if (nom <= r0) return 0;
  double den = (this->*op)(d, z);
  if (den <= 0.0 && den == 0.0) return 0;
  int final_iter = opt_.cg_max_iter;
  for (int i = 1; true;) {
    const double alpha = nom / den;
    // On ranks the fused update returns this rank's part (the H1 dofs it owns) of the global dot.
    const double part = k_.cg_update(n, alpha, d, x, r, z, dinv, velocity && shared_ ? owned_ : nullptr);
    const double betanom = shared_ ? reduce_sum(part) : part;
    if (betanom < 0.0) {
      final_iter = i;
      break;
    }
    if (betanom <= r0) {
      final_iter = i;
      break;
    }
    if (++i > opt_.cg_max_iter) break;
    // One rank's H1 solve: the rest of the loop on the device where the backend runs it there.
    if (velocity && !shared_) {
      const HydroKernels::CgDone done =
          k_.cg_h1_on_device(component_, n, dinv, x, r, d, z, {nom, betanom, r0, i, opt_.cg_max_iter});
      if (done.iterations >= 0) {
        timing_.mass_h1_calls += done.masses;
        return done.iterations;
      }
    }
    const double beta = betanom / nom;
    k_.axpby(n, 1.0, dinv ? z : r, beta, d, d);
    den = (this->*op)(d, z);
    if (den == 0.0) {
      final_iter = i;
      break;
    }
    nom = betanom;
  }
  return final_iter;
}

void LagrangianHydro::solve_velocity(const double* S, double* dSdt) {
  update_qdata(S);
  double* dv = dSdt + vs_;
  k_.fill(vs_, 0.0, dv);
  double t0 = copa::host_seconds();
  double c0 = comm_seconds();
  in_timer_ = true;
  force_assembled();
  double took = elapsed(t0);
  in_timer_ = false;
  double comm = comm_seconds() - c0;
  timing_.force += took;
  timing_.comm_force += comm;
  timing_.force_samples.push_back(took - comm);
  ++timing_.force_calls;
  k_.axpby(vs_, -1.0, rhs_, 0.0, rhs_, rhs_);
  for (int c = 0; c < d_.dim; ++c) {
    component_ = c;
    k_.copy(nh_, rhs_ + c * nh_, B_);
    k_.zero_essential(c, B_);
    t0 = copa::host_seconds();
    c0 = comm_seconds();
    in_timer_ = true;
    const int it = cg(&LagrangianHydro::op_velocity, dinv_, nh_, B_, X_);
    took = elapsed(t0);
    in_timer_ = false;
    comm = comm_seconds() - c0;
    timing_.cg_h1 += took;
    timing_.comm_cg_h1 += comm;
    if (it > 0) timing_.cg_h1_samples.push_back((took - comm) / it);
    timing_.h1_iter += it;
    k_.copy(nh_, X_, dv + c * nh_);
  }
}

void LagrangianHydro::solve_energy(const double* S, const double* v, double* dSdt) {
  update_qdata(S);
  double* de = dSdt + 2 * vs_;
  double t0 = copa::host_seconds();
  k_.force_transpose(v, e_rhs_);
  double took = elapsed(t0);
  timing_.force += took;
  timing_.force_samples.push_back(took);
  ++timing_.force_calls;
  if (source_) k_.axpby(d_.nl2, 1.0, e_rhs_, 1.0, source_, e_rhs_);
  t0 = copa::host_seconds();
  const double c0 = comm_seconds();
  in_timer_ = true;
  const int it = cg(&LagrangianHydro::op_energy, nullptr, d_.nl2, e_rhs_, de);
  took = elapsed(t0);
  in_timer_ = false;
  const double comm = comm_seconds() - c0;
  timing_.cg_l2 += took;
  timing_.comm_cg_l2 += comm;
  timing_.cg_l2_samples.push_back((took - comm) / (it == 0 ? 1 : it));
  timing_.l2_iter += (it == 0) ? 1 : it;
}

void LagrangianHydro::mult(const double* S, double* dSdt) {
  k_.copy(vs_, S + vs_, dSdt);  // dx/dt = v
  solve_velocity(S, dSdt);
  solve_energy(S, S + vs_, dSdt);
  qdata_current_ = false;
}

// MFEM's RK4Solver::Step.
void LagrangianHydro::step_rk4(double* S, double dt) {
  mult(S, k_rk_);
  k_.axpby(ss_, 1.0, S, dt / 2, k_rk_, y_rk_);
  k_.copy(ss_, k_rk_, z_rk_);
  mult(y_rk_, k_rk_);
  k_.axpby(ss_, 1.0, S, dt / 2, k_rk_, y_rk_);
  k_.axpby(ss_, 1.0, z_rk_, 2.0, k_rk_, z_rk_);
  mult(y_rk_, k_rk_);
  k_.axpby(ss_, 1.0, S, dt, k_rk_, y_rk_);
  k_.axpby(ss_, 1.0, z_rk_, 2.0, k_rk_, z_rk_);
  mult(y_rk_, k_rk_);
  k_.axpby(ss_, 1.0, z_rk_, 1.0, k_rk_, z_rk_);
  k_.axpby(ss_, 1.0, S, dt / 6, z_rk_, S);
}

// Laghos's RK2AvgSolver::Step: the energy and position use the averaged velocity.
void LagrangianHydro::step_rk2avg(double* S, double dt) {
  k_.copy(ss_, S, S0_);
  const double* v0 = S0_ + vs_;
  double* dv = dSdt_ + vs_;
  for (int stage = 0; stage < 2; ++stage) {
    if (stage == 1) {
      k_.axpby(ss_, 1.0, S0_, 0.5 * dt, dSdt_, S);
      qdata_current_ = false;
    }
    solve_velocity(S, dSdt_);
    k_.axpby(vs_, 1.0, v0, 0.5 * dt, dv, V_);
    solve_energy(S, V_, dSdt_);
    k_.copy(vs_, V_, dSdt_);
  }
  k_.axpby(ss_, 1.0, S0_, dt, dSdt_, S);
  qdata_current_ = false;
}

double LagrangianHydro::total_energy(const double* S) {
  // IE = sum_q rho0DetJ0w e(q) = e . (M_L2 1); KE = 1/2 sum_c v_c . M v_c.
  k_.fill(d_.nl2, 1.0, rl_);
  k_.mass_l2(rl_, dl_);
  const double ie = dot_l2(S + 2 * vs_, dl_);
  double ke = 0.0;
  for (int c = 0; c < d_.dim; ++c) {
    k_.mass_h1(S + vs_ + c * nh_, r_);
    assemble_h1(r_, 1);
    ke += 0.5 * dot_h1(S + vs_ + c * nh_, r_);
  }
  return ie + ke;
}

RunResult LagrangianHydro::run(const std::vector<double>& initial_state,
                               const std::function<void(const std::string&)>& log) {
  if (initial_state.size() != ss_) throw copa::RuntimeError("state size mismatch");
  k_.to_backend(S_, initial_state.data(), ss_);
  k_.fill(ss_, 0.0, dSdt_);
  timing_ = HydroTiming{};
  RunResult res;
  res.energy_initial = total_energy(S_);
  qdata_current_ = false;

  auto estimate = [&]() {
    update_qdata(S_);
    return dt_est_;
  };
  dt_est_ = std::numeric_limits<double>::infinity();
  double t = 0.0, dt = estimate(), t_old = 0.0;
  bool last_step = false;
  int steps = 0;
  int ti = 1;
  auto output = [&](int step) {
    if (!opt_.output || opt_.output_every <= 0 || step % opt_.output_every != 0) return;
    std::vector<double> host(ss_);
    k_.to_host(host.data(), S_, ss_);
    opt_.output(step, t, host);
  };
  output(0);
  for (; !last_step; ++ti) {
    if (t + dt >= opt_.t_final) {
      dt = opt_.t_final - t;
      last_step = true;
    }
    if (steps == opt_.max_steps) last_step = true;
    k_.copy(ss_, S_, S_old_);
    t_old = t;
    dt_est_ = std::numeric_limits<double>::infinity();
    if (opt_.ode == 7)
      step_rk2avg(S_, dt);
    else
      step_rk4(S_, dt);
    t += dt;
    ++steps;
    const double dt_est = estimate();
    if (dt_est < dt) {
      dt *= 0.85;
      if (dt < std::numeric_limits<double>::epsilon()) throw copa::RuntimeError("The time step crashed!");
      t = t_old;
      k_.copy(ss_, S_old_, S_);
      qdata_current_ = false;
      ++res.repeats;
      if (!opt_.quiet) log("Repeating step " + std::to_string(ti));
      if (steps < opt_.max_steps) last_step = false;
      --ti;
      continue;
    } else if (dt_est > 1.25 * dt) {
      dt *= 1.02;
    }
    if (last_step || (opt_.print_every > 0 && ti % opt_.print_every == 0)) {
      const double norm = std::sqrt(dot_l2(S_ + 2 * vs_, S_ + 2 * vs_));
      res.e_norm = norm;
      if (!opt_.quiet || last_step) {
        char line[160];
        std::snprintf(line, sizeof line, "step %5d,\tt = %5.4f,\tdt = %5.6f,\t|e| = %.10e", ti, t, dt, norm);
        log(line);
      }
    }
    output(ti);
    if (opt_.progress) opt_.progress(ti, t);
  }
  res.steps = ti - 1;
  res.steps_taken = steps;
  res.t = t;
  res.dt = dt;
  res.energy_final = total_energy(S_);
  res.timing = timing_;
  res.state.resize(ss_);
  k_.to_host(res.state.data(), S_, ss_);

  // Laghos's PrintTimingData, in 64-bit / floating point: global dof counts over the slowest
  // rank's times (MAX, as Laghos reduces its timers).
  const int stages = (opt_.ode == 7) ? 2 : 4;
  const double steps_stages = static_cast<double>(steps) * stages;
  double h1gt = static_cast<double>(vs_), l2gt = static_cast<double>(d_.nl2);
  const std::int64_t h1iter = timing_.h1_iter / d_.dim;
  HydroTiming& T = res.timing;
  if (shared_) {
    h1gt = static_cast<double>(d_.dim) * static_cast<double>(copa::mpi::sum_all(shared_->owned_count()));
    l2gt = static_cast<double>(copa::mpi::sum_all(static_cast<long long>(d_.nl2)));
    T.quad_tstep = copa::mpi::sum_all(static_cast<long long>(T.quad_tstep));
    for (double* t : {&T.cg_h1, &T.cg_l2, &T.force, &T.qdata}) *t = copa::mpi::max_all(*t);
  }
  res.rate_cg_h1 = T.cg_h1 > 0 ? 1e-6 * h1gt * static_cast<double>(h1iter) / T.cg_h1 : 0;
  res.rate_cg_l2 = T.cg_l2 > 0 ? 1e-6 * l2gt * static_cast<double>(T.l2_iter) / T.cg_l2 : 0;
  res.rate_force = T.force > 0 ? 1e-6 * steps_stages * (h1gt + l2gt) / T.force : 0;
  res.rate_qdata = T.qdata > 0 ? 1e-6 * static_cast<double>(T.quad_tstep) * d_.nq / T.qdata : 0;
  const double total = T.cg_h1 + T.force + T.qdata;
  res.rate_total = total > 0 ? (res.rate_cg_h1 * T.cg_h1 + res.rate_force * T.force + res.rate_qdata * T.qdata) / total : 0;
  return res;
}

}  // namespace laghos
