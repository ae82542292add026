// The kernel family of laghos-like: Laghos's partial-assembly operators and the vector
// operations of its solvers, on one backend's memory. Vectors are raw pointers into memory that
// the backend allocated (host for serial/OpenMP, device for CUDA/HIP), so the whole time loop
// stays on the backend; only scalars (dot products, the time-step estimate) come back.
//
// Layouts (MFEM's): H1 vector fields by nodes [c * nh1 + dof]; L2 fields element-major
// [e * nl + l]; element-local tensors lexicographic (x fastest).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "copa/backend.hpp"
#include "copa/gpu_model.hpp"
#include "copa/variants.hpp"
#include "discretization.hpp"
#include "element_split.hpp"

namespace laghos {

class HydroKernels {
 public:
  virtual ~HydroKernels() = default;
  virtual void setup(const Discretization& d) = 0;
  // After setup: where the kernels that run differ from what the selection names, one line each
  // (a layout or kernel that does not exist for this dimension or order and its stand-in). The
  // console and the JSON (solution.kernel_substitutions) report them.
  virtual std::vector<std::string> substitutions() const { return {}; }

  // Memory of this backend.
  virtual double* alloc(std::size_t n) = 0;
  virtual void release(double* p) = 0;
  virtual void to_backend(double* dst, const double* host, std::size_t n) = 0;
  virtual void to_host(double* host, const double* src, std::size_t n) = 0;
  virtual void sync() {}

  // BLAS-1 (what MFEM's CG and RK solvers use).
  virtual double dot(std::size_t n, const double* x, const double* y) = 0;
  // sum_i x_i (w_i y_i): a distributed run's dots over the dofs a rank owns (w_i 1 where it owns
  // dof i, 0 where a lower rank does), the masked product's bits without the masked vector.
  virtual double dot_weighted(std::size_t n, const double* x, const double* y, const double* w) = 0;
  virtual void axpby(std::size_t n, double a, const double* x, double b, const double* y, double* z) = 0;  // z = a x + b y
  virtual void copy(std::size_t n, const double* x, double* y) = 0;
  virtual void fill(std::size_t n, double value, double* x) = 0;
  virtual void multiply(std::size_t n, const double* a, const double* x, double* y) = 0;  // y = a .* x
  virtual void zero_essential(int component, double* y) = 0;  // y[ess dofs of component] = 0

  // Fused CG steps. The defaults compose the BLAS-1 calls above in MFEM's order (the serial oracle
  // keeps MFEM's arithmetic); a backend may fuse them into fewer passes and launches.
  // The dots they return are this rank's part, weighted by w where w is given (dot_weighted).
  // x += alpha d; r -= alpha z; then z = dinv .* r and returns (r, z), or (r, r) when dinv is null.
  virtual double cg_update(std::size_t n, double alpha, const double* d, double* x, double* r, double* z,
                           const double* dinv, const double* w);
  // y's essential rows of component c zeroed; returns (x, y) (a distributed run: after the
  // shared-dof sum of y = M x).
  virtual double ess_dot(int component, std::size_t n, const double* x, double* y, const double* w);
  // y = M x (H1 mass, n scalar dofs) with component c's essential rows zeroed; returns (x, y).
  virtual double mass_h1_ess_dot(int component, std::size_t n, const double* x, double* y);
  // The rest of a one-rank H1 CG solve (LagrangianHydro::cg with op_velocity) on the device, where
  // the backend runs it there (lean's cg=graph on CUDA): from the loop's state after an update that
  // did not stop it (nom, betanom, r0, the iteration i it goes on with), the direction update, the
  // mass with its dot and the fused update repeat, with the host loop's arithmetic and tests, until
  // they stop it. Returns the iteration count cg() reports and the mass actions it ran;
  // iterations < 0: the backend has no device loop here (the host loop goes on).
  struct CgResume {
    double nom, betanom, r0;
    int i, max_iter;
  };
  struct CgDone {
    int iterations = -1;
    std::int64_t masses = 0;
  };
  virtual CgDone cg_h1_on_device(int component, std::size_t n, const double* dinv, double* x, double* r, double* d,
                                 double* z, const CgResume& from) {
    (void)component, (void)n, (void)dinv, (void)x, (void)r, (void)d, (void)z, (void)from;
    return {};
  }

  // Partial-assembly operators.
  virtual void mass_h1(const double* x, double* y) = 0;       // scalar H1 mass, rho0 detJ0 w
  virtual void mass_h1_diagonal(double* diag) = 0;           // its assembled diagonal
  virtual void mass_l2(const double* x, double* y) = 0;       // L2 (Bernstein) mass, block diagonal
  virtual void force(double* rhs) = 0;                       // rhs = F 1 (dim * nh1)
  // F 1 in two passes around the shared-dof exchange (--overlap, element_split.hpp). set_split
  // gives the split once. force_boundary(rhs) computes the boundary elements and leaves the split's
  // shared dofs of rhs holding their F 1 sums (every element of a shared dof is a boundary element);
  // force_interior(rhs) computes the interior elements and completes every other dof without
  // touching the shared ones, so the exchange may move them meanwhile. On a GPU both passes are
  // enqueued on the default stream and return without waiting.
  virtual void set_split(const ElementSplit& split) = 0;
  virtual void force_boundary(double* rhs) = 0;
  virtual void force_interior(double* rhs) = 0;
  // The scalar H1 mass action y = M x in the same two passes (the CG's operator on ranks). Where
  // mass_h1_passes_commute() (the GPU's mass=atomic selections: both passes only add into y, and the
  // interior elements touch no shared dof) the caller zeroes y first and may enqueue the boundary
  // pass on another stream (`stream`, a cudaStream_t / hipStream_t; null: the default stream),
  // beside the interior pass; otherwise the interior pass completes dofs from the boundary pass's
  // E-vector entries and both run in order on the default stream (stream ignored).
  virtual bool mass_h1_passes_commute() const { return false; }
  virtual void mass_h1_boundary(const double* x, double* y, void* stream) = 0;
  virtual void mass_h1_interior(const double* x, double* y) = 0;
  virtual void force_transpose(const double* v, double* e_rhs) = 0;  // e_rhs = F^T v (nl2)
  // Quadrature update at state (x, v, e): stress J^{-T} w detJ for the force, and the minimum of
  // the time-step estimate over all points (0 when a Jacobian is inverted). When the problem has
  // the 2D Taylor-Green source, also its L2 load vector on the current mesh (source != nullptr).
  virtual double quadrature_update(const double* x, const double* v, const double* e, double* source) = 0;
};

// The memory of the host backends (serial, OpenMP): plain host arrays.
class HostKernels : public HydroKernels {
 public:
  double* alloc(std::size_t n) override { return new double[n](); }
  void release(double* p) override { delete[] p; }
  void to_backend(double* dst, const double* host, std::size_t n) override { std::memcpy(dst, host, n * sizeof(double)); }
  void to_host(double* host, const double* src, std::size_t n) override { std::memcpy(host, src, n * sizeof(double)); }
};

// The kernels of a selection of the variant table (variants.cpp) on a backend.
std::unique_ptr<HydroKernels> make_kernels(copa::Backend backend, const copa::Selection& selection);

std::unique_ptr<HydroKernels> make_serial_kernels();
#if defined(COPA_HAVE_OPENMP)
std::unique_ptr<HydroKernels> make_openmp_kernels();
#endif
#if COPA_GPU
// The GPU strategies of the table's rows: fixed (compile-time-specialised) or generic kernels,
// their thread layout, the CG mass by atomics or gather, the lean quadrature update and 3D
// force kernels, and the z-column 3D CG mass (lean, mass=zcol).
struct GpuChoice {
  bool fixed = true;
  bool xyz = false;
  bool atomic = true;
  bool lean = false;
  bool zcol_mass = false;
  bool cg_graph = false;    // lean's cg=graph: the one-rank H1 CG loop on the device (CUDA)
  bool many_ranks = false;  // several MPI ranks (cg=graph then runs the host loop)
};
std::unique_ptr<HydroKernels> make_gpu_kernels(const GpuChoice& choice);
#endif

}  // namespace laghos
