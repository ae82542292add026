// The kernel family of mom-efie: fill the dense EFIE matrix, factor it (LU), solve. One abstract
// engine, one implementation per programming model (serial oracle, OpenMP, CUDA/HIP); the matrix
// lives where the engine computes (host or device) from fill to solve.
#pragma once
#include <array>
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "copa/backend.hpp"
#include "copa/errors.hpp"
#include "copa/timing.hpp"
#include "problem.hpp"
#include "solver.hpp"

namespace copa {
struct Selection;  // copa/variants.hpp (not included: this header is compiled by nvcc too)
}

namespace efie {

// The integral equation of the matrix (--formulation, --cfie-alpha). The engine's matrix is
//   C = alpha A - j k (1 - alpha) M
// with A the EFIE matrix of the unknowns x (I = (k / (j eta)) x) and M the MFIE matrix of I
// (mfie_pair.hpp): the CFIE alpha Z_E + (1 - alpha) eta Z_H with Z_E = (j eta / k) A and Z_H = M,
// written for x, so that one right-hand side (excitation(), problem.hpp) and one RCS serve all.
// efie: alpha = 1; mfie: alpha = 0; cfie: 0 < alpha < 1.
// pmchwt, muller: a dielectric body (dielectric.hpp), unknowns [eta0 J; M], 2N of them.
struct Formulation {
  std::string name = "efie";
  double alpha = 1;
  std::complex<double> eps_r = 1, mu_r = 1;  // the body's (dielectric formulations): eps' - j eps
  bool dielectric() const { return name == "pmchwt" || name == "muller"; }
};
// The formulations every backend builds (--formulation).
std::vector<std::string> formulations_implemented();
// Throws InputError naming --formulation / --cfie-alpha for unknown, not implemented or bad values.
Formulation make_formulation(const std::string& name, double cfie_alpha, std::complex<double> eps_r = 1, std::complex<double> mu_r = 1);

class Engine {
 public:
  virtual ~Engine() = default;
  // Copies the triangle data and near list to where the fill runs (untimed: set-up).
  virtual void upload(const Problem& p) = 0;
  // A = (P + P^T) / 2, P the 3 x 7-point Galerkin matrix (near pairs with singularity extraction).
  // Times its phases as "fill.far", "fill.near", "fill.symmetrise" (engines may merge some).
  virtual void fill(copa::RegionTimer& timer) = 0;
  // LU of A in place ("lu") and solve of A x = b ("solve"); b is overwritten with x.
  virtual void factor(copa::RegionTimer& timer) = 0;
  virtual void solve(std::vector<complex>& b, copa::RegionTimer& timer) = 0;
  // The filled matrix, column-major (tests; before factor).
  virtual std::vector<complex> matrix() = 0;
  // Selected entries (row, column) of the filled matrix (the sampled check of large runs).
  virtual std::vector<complex> entries(const std::vector<std::array<long, 2>>& at) = 0;
  // The timer that suits the engine (device events for GPU engines).
  virtual std::unique_ptr<copa::RegionTimer> make_timer(copa::Profile& profile) {
    return std::make_unique<copa::HostTimer>(profile);
  }
  // The device LU routine (GPU engines; host engines use LAPACK and ignore it): one of lu_methods().
  virtual void set_lu_method(const std::string& method) { (void)method; }
  // Bytes this engine holds beyond the N x N matrix (the blas variant's quadrature-point data).
  virtual double workspace_bytes() const { return 0; }
  // The formulation of the matrix fill() builds; engines without MFIE throw InputError.
  virtual void set_formulation(const Formulation& f) {
    if (f.name != "efie") throw copa::InputError("--formulation " + f.name + " is not implemented on this backend");
  }
  // Estimate of the 1-norm condition number of the filled matrix from its LU (host: LAPACK zgecon;
  // GPU: hager_higham_inverse_norm1 with the device factors), timed as "condition"; 0 when the
  // engine does not estimate it.
  virtual double condition_estimate() const { return 0; }
  // The iterative-refinement solve (--solver irs-*, solver.hpp) of the filled matrix, timed as
  // "solve.irs"; b is overwritten with x. The matrix is kept: afterwards it is the filled one again
  // (for factor) and relative_residual measures any solution against it.
  virtual IrsResult solve_irs(const SolverOptions& o, std::vector<complex>& b, copa::RegionTimer& timer) {
    (void)b;
    (void)timer;
    throw copa::InputError("--solver " + o.solver + " is not available on this backend");
  }
  // ||b - A x||_inf / (||A||_inf ||x||_inf) against the matrix solve_irs kept (-1 when none was kept).
  virtual double relative_residual(const std::vector<complex>& x, const std::vector<complex>& b) {
    (void)x;
    (void)b;
    return -1;
  }
};

// Device LU routines (--lu), the first the default: cuSOLVER's 32-bit zgetrf, or the 64-bit
// cusolverDnXgetrf with CUSOLVER_ALG_0 or CUSOLVER_ALG_1 (cusolverDnSetAdvOptions).
inline std::vector<std::string> lu_methods() { return {"getrf", "xgetrf-alg0", "xgetrf-alg1"}; }

// The GPU fills (kernels_gpu.cu) a --variant/--tuning selection resolves to (variants.cpp).
enum class GpuFill { triangle_pair, upper_source, upper_lanes, block, blas };
GpuFill gpu_fill_of(const copa::Selection& s);

// Bytes the engine will allocate for N unknowns and T triangles (matrix + workspace), for refusing
// problems that do not fit before allocating.
double engine_bytes(copa::Backend b, const copa::Selection& variant, long n, long triangles);
// The engine of a one-rank selection (variants.hpp) on a backend.
std::unique_ptr<Engine> make_engine(copa::Backend b, const copa::Selection& variant, long n, long triangles);
// Refuses (copa::OutOfMemoryError, exit 3, with the estimate and what is free) a problem that
// cannot fit, from its size alone, before the mesh is built: on the host the problem data (mesh,
// RWG, near list, quadrature data, RCS points) plus, for host engines, the matrix and the LU's
// pivots; on the device the matrix, the variant's workspace and the LU workspace.
void require_memory(copa::Backend b, const copa::Selection& variant, double n, double triangles);

// Per-backend factories (kernels_serial.cpp, kernels_openmp.cpp, kernels_gpu.cu).
std::unique_ptr<Engine> make_serial_engine(long n);
std::unique_ptr<Engine> make_openmp_engine(long n);
// label: the selection as --list spells it (copa::Selection::label), for messages.
std::unique_ptr<Engine> make_gpu_engine(GpuFill fill, const std::string& label, long n, long triangles);
double gpu_workspace_bytes(GpuFill fill, long n, long triangles);
void gpu_require_memory(GpuFill fill, const std::string& label, long n, long triangles);

// Host LAPACK (LAPACKE zgetrf / zgetrs through OpenBLAS), shared by the host engines.
void host_lu_factor(complex* a, long n, std::vector<int>& pivots);
void host_lu_solve(const complex* a, long n, const std::vector<int>& pivots, std::vector<complex>& b);
// ||A||_1 (before the LU) and the condition estimate ||A||_1 ||A^-1||_1 from the LU (zgecon).
double host_norm1(const complex* a, long n);
double host_condition_estimate(const complex* lu, long n, double norm1);
// While alive, the BLAS library runs `threads` threads (0: leaves it as it is), then its count is
// restored. OpenBLAS's openblas_set_num_threads, found at run time; other libraries are left alone
// (the report's lu_blas_threads says which held).
class BlasThreads {
 public:
  explicit BlasThreads(int threads);
  ~BlasThreads();
  BlasThreads(const BlasThreads&) = delete;
  BlasThreads& operator=(const BlasThreads&) = delete;
  // The threads the library was last set to by a BlasThreads (0: never set: the library's default).
  static int last_set();

 private:
  int restore_ = 0;
};
// C = alpha C - j k (1 - alpha) M on the host (serial oracle order: test, then source triangles).
void add_mfie_serial(const Problem& p, const Formulation& f, complex* a, long n);

// A = (A + A^T) / 2 in place (column-major n x n), the reciprocity of the Galerkin matrix.
void symmetrise_host(complex* a, long n);

}  // namespace efie
