// Laghos's verification table (README, 'Verification of Results', commit 97d75b32): the final
// accepted step count and |e| (Euclidean norm of the Bernstein coefficients of e).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace laghos {

struct LaghosRun {
  int run;
  int problem;
  std::string mesh;
  int refine;
  int order_k, order_t;
  double t_final;
  int ode;
  double blast_energy;
  int steps;
  double dt;
  double e_norm;
};

const std::vector<LaghosRun>& laghos_table();
std::optional<LaghosRun> laghos_run(int number);

// L1, L2 and max velocity errors against the initial (= exact) velocity of problems 0 and 4,
// with a 2k+2 point Gauss rule per direction and the max over those points.
struct VelocityErrors {
  double l1 = 0, l2 = 0, linf = 0;
};
struct Discretization;
// Velocity errors of the host state S = (x, v, e) of problem 0 or 4 (the initial velocity is exact).
VelocityErrors velocity_errors(const Discretization& d, const std::vector<double>& S, int problem);

}  // namespace laghos
