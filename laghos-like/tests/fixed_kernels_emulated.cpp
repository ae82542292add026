// Runs the compile-time-specialised GPU element kernels (src/kernels_gpu_fixed.cuh) and the
// generic ones (src/kernels_gpu_generic.cuh) on the host:
// every GPU thread of a block is a std::thread, __syncthreads is a barrier, the dynamic shared
// memory a NaN-filled buffer. Compares their outputs with the serial element operators on a
// 3D and a 2D mesh, for both thread layouts (Q1D^2 and Q1D^3 threads per element) and several
// elements per block, so the kernels' indexing and synchronisation are checked without a GPU.
// The `lean` variant's force kernels (src/kernels_gpu_force_lean.cuh) and its z-column H1 mass
// (src/kernels_gpu_mass_zcol.cuh) likewise, in 3D.
#include <cmath>
#include <condition_variable>
#include <functional>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace emu {
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};
inline thread_local Dim3 thread_idx, block_idx;
inline Dim3 block_dim;
class Barrier {
 public:
  explicit Barrier(int n) : n_(n) {}
  void wait() {
    std::unique_lock<std::mutex> lock(m_);
    const long gen = gen_;
    if (++count_ == n_) {
      count_ = 0;
      ++gen_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return gen != gen_; });
    }
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int n_, count_ = 0;
  long gen_ = 0;
};
inline Barrier* barrier = nullptr;
inline std::vector<double> shared;
inline std::mutex atomic_mutex;
}  // namespace emu

// The device's FP64 atomicAdd (the scatter of the H1 mass with mass=atomic), serialised by a mutex.
inline double atomicAdd(double* address, double value) {
  std::lock_guard<std::mutex> lock(emu::atomic_mutex);
  const double old = *address;
  *address = old + value;
  return old;
}

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __syncthreads() emu::barrier->wait()
#define threadIdx emu::thread_idx
#define blockIdx emu::block_idx
#define blockDim emu::block_dim
#define LAGHOS_DYNAMIC_SHARED(name) double* name = emu::shared.data()
#include "kernels_gpu_fixed.cuh"
#include "kernels_gpu_force_lean.cuh"
#include "kernels_gpu_mass_zcol.cuh"
#include "kernels_gpu_generic.cuh"

#include "copa/testing.hpp"
#include "discretization.hpp"
#include "element_ops.hpp"
#include "mesh.hpp"

using namespace laghos;

namespace {

// Runs body() as a grid of blocks (tpe x nbe threads) with `shared_doubles` of shared memory.
template <typename Body>
void launch(int NE, int tpe, int nbe, std::size_t shared_doubles, Body body) {
  const int grid = (NE + nbe - 1) / nbe;
  emu::block_dim = emu::Dim3{static_cast<unsigned>(tpe), static_cast<unsigned>(nbe), 1};
  for (int b = 0; b < grid; ++b) {
    emu::shared.assign(shared_doubles, std::numeric_limits<double>::quiet_NaN());
    emu::Barrier bar(tpe * nbe);
    emu::barrier = &bar;
    std::vector<std::thread> threads;
    for (int y = 0; y < nbe; ++y)
      for (int x = 0; x < tpe; ++x)
        threads.emplace_back([&, x, y] {
          emu::thread_idx = emu::Dim3{static_cast<unsigned>(x), static_cast<unsigned>(y), 0};
          emu::block_idx = emu::Dim3{static_cast<unsigned>(b), 0, 0};
          body();
        });
    for (auto& t : threads) t.join();
  }
}

double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) scale = std::fmax(scale, std::fabs(b[i]));
  for (std::size_t i = 0; i < a.size(); ++i) m = std::fmax(m, std::fabs(a[i] - b[i]));
  return (std::isnan(m) || scale == 0.0) ? (std::isnan(m) ? 1.0 : m) : m / scale;
}

// The element kernels of one GPU variant, each run as an emulated grid.
struct KernelRuns {
  std::function<void(const double* v, double* y)> mass_h1;
  std::function<void(const double* e, double* y)> mass_l2;
  std::function<void(const double* x, const double* v, const double* e, double* stress, double* elem_dt)> qupdate;
  std::function<void(const double* stress, double* evec)> force;
  std::function<void(const double* stress, const double* v, double* e_rhs)> force_t;
};

// --overlap's two passes: an element kernel run on two complementary element lists (every third
// element, then the rest) must fill the E-vector with the bits of one pass over all elements.
// `kernel_of(list, n, input, evec)` runs the kernel on a list (null: every element).
template <typename KernelOf>
void check_element_lists(int NE, std::size_t input_size, std::size_t evec_size, KernelOf kernel_of) {
  std::vector<double> input(input_size);
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = std::cos(0.11 * static_cast<double>(i));
  std::vector<double> full(evec_size), split(evec_size, std::numeric_limits<double>::quiet_NaN());
  kernel_of(nullptr, NE, input.data(), full.data());
  std::vector<int> first, rest;
  for (int el = 0; el < NE; ++el) (el % 3 == 0 ? first : rest).push_back(el);
  for (const std::vector<int>* list : {&first, &rest})
    kernel_of(list->data(), static_cast<int>(list->size()), input.data(), split.data());
  EXPECT_TRUE(full == split);
}

struct Case {
  Discretization h;
  std::vector<double> state;
  DeviceDisc d;
};

// A scattered H1 mass (the CG operator with atomics) against the serial element operators
// assembled through the map, per component of the case's non-trivial velocity: over every element
// in one pass, and in two passes over complementary element lists (every third element, then the
// rest; --overlap's boundary and interior passes). `scatter(list, n, x, y)` adds M x of the listed
// elements (every element when null) into y. The atomics' order is not fixed: round-off, not bits.
template <typename Scatter>
void check_scatter(const Case& c, Scatter scatter) {
  const Discretization& h = c.h;
  const double* v = c.state.data() + h.h1_vsize();
  ElementOps ops(h);
  Scratch s(h);
  std::vector<int> first, rest;
  for (int el = 0; el < h.NE; ++el) (el % 3 == 0 ? first : rest).push_back(el);
  std::vector<double> xl(h.nd), yl(h.nd);
  for (int comp = 0; comp < h.dim; ++comp) {
    const double* vc = v + static_cast<std::size_t>(comp) * h.nh1;
    std::vector<double> y(h.nh1, 0.0), split(h.nh1, 0.0), yref(h.nh1, 0.0);
    scatter(nullptr, h.NE, vc, y.data());
    for (const std::vector<int>* list : {&first, &rest})
      scatter(list->data(), static_cast<int>(list->size()), vc, split.data());
    for (int el = 0; el < h.NE; ++el) {
      for (int i = 0; i < h.nd; ++i) xl[i] = vc[h.h1_map[el * h.nd + i]];
      ops.mass_h1(el, xl.data(), yl.data(), s);
      for (int i = 0; i < h.nd; ++i) yref[h.h1_map[el * h.nd + i]] += yl[i];
    }
    EXPECT_TRUE(max_rel_diff(y, yref) < 1e-13);
    EXPECT_TRUE(max_rel_diff(split, yref) < 1e-13);
  }
}

Case make_case(const std::string& mesh_name, int refine, int order_k, int order_t) {
  CartesianMesh mesh = named_mesh(mesh_name);
  for (int i = 0; i < refine; ++i) mesh.refine();
  ProblemSpec spec;
  spec.problem = 1;
  spec.order_k = order_k;
  spec.order_t = order_t;
  Case c;
  c.h = build_discretization(mesh, spec, c.state);
  const Discretization& h = c.h;
  const std::size_t vs = h.h1_vsize();
  // A non-trivial velocity and energy (Sedov starts at rest with e = 0 outside one corner).
  for (std::size_t i = 0; i < vs; ++i) c.state[vs + i] = std::sin(0.37 * i);
  for (int i = 0; i < h.nl2; ++i) c.state[2 * vs + i] = 1.0 + 0.5 * std::sin(0.11 * i);
  c.d = DeviceDisc{h.dim, h.D1D, h.Q1D, h.L1D, h.NE, h.nd, h.nq, h.nl, h.nh1, h.nl2, h.k, h.h0, h.cfl, h.viscosity,
                   h.B.data(), h.G.data(), h.Bl.data(), h.wq.data(), h.rho0DetJ0w.data(), h.Jac0inv.data(),
                   h.gamma.data(), h.h1_map.data()};
  return c;
}

// Every operator of `run` against the serial element operators (relative to the largest entry).
void compare_with_serial(const Case& c, const KernelRuns& run) {
  const Discretization& h = c.h;
  const int DIM = h.dim;
  const std::size_t vs = h.h1_vsize();
  const double *x = c.state.data(), *v = x + vs, *e = v + vs;
  ElementOps ops(h);
  Scratch s(h);
  const int NE = h.NE, nd = h.nd, nq = h.nq, nl = h.nl, DD = DIM * DIM;
  auto gather_elem = [&](const double* f, int el, int comp, double* out) {
    for (int i = 0; i < nd; ++i) out[i] = f[static_cast<std::size_t>(comp) * h.nh1 + h.h1_map[el * nd + i]];
  };

  // H1 and L2 mass.
  std::vector<double> y(static_cast<std::size_t>(NE) * nd), yref(y.size()), xl(3 * nd), vl(3 * nd);
  run.mass_h1(v, y.data());
  for (int el = 0; el < NE; ++el) {
    gather_elem(v, el, 0, xl.data());
    ops.mass_h1(el, xl.data(), &yref[el * nd], s);
  }
  EXPECT_TRUE(max_rel_diff(y, yref) < 1e-13);
  std::vector<double> ml(static_cast<std::size_t>(NE) * nl), mlref(ml.size());
  run.mass_l2(e, ml.data());
  for (int el = 0; el < NE; ++el) ops.mass_l2(el, e + el * nl, &mlref[el * nl], s);
  EXPECT_TRUE(max_rel_diff(ml, mlref) < 1e-13);

  // Quadrature update: stress ([e][i][q] vs serial [e][q][i]) and the element dt.
  std::vector<double> stress(static_cast<std::size_t>(NE) * nq * DD), sref(stress.size()), edt(NE), dtref(NE);
  run.qupdate(x, v, e, stress.data(), edt.data());
  for (int el = 0; el < NE; ++el) {
    const double* xp[3] = {&xl[0], &xl[nd], &xl[2 * nd]};
    const double* vp[3] = {&vl[0], &vl[nd], &vl[2 * nd]};
    for (int comp = 0; comp < DIM; ++comp) {
      gather_elem(x, el, comp, &xl[comp * nd]);
      gather_elem(v, el, comp, &vl[comp * nd]);
    }
    dtref[el] = ops.quadrature_update(el, xp, vp, e + el * nl, sref.data(), nullptr, s);
  }
  std::vector<double> st(stress.size());
  for (int el = 0; el < NE; ++el)
    for (int i = 0; i < DD; ++i)
      for (int q = 0; q < nq; ++q) st[(static_cast<std::size_t>(el) * nq + q) * DD + i] = stress[(static_cast<std::size_t>(el) * DD + i) * nq + q];
  EXPECT_TRUE(max_rel_diff(st, sref) < 1e-12);
  EXPECT_TRUE(max_rel_diff(edt, dtref) < 1e-12);

  // F 1 (E-vector per component) and F^T v.
  std::vector<double> f(static_cast<std::size_t>(DIM) * NE * nd), fref(f.size());
  run.force(stress.data(), f.data());
  const std::size_t comp = static_cast<std::size_t>(NE) * nd;
  for (int el = 0; el < NE; ++el) {
    double* yp[3] = {&fref[el * nd], &fref[comp + el * nd], DIM == 3 ? &fref[2 * comp + el * nd] : nullptr};
    ops.force(el, sref.data(), yp, s);
  }
  EXPECT_TRUE(max_rel_diff(f, fref) < 1e-12);
  std::vector<double> ft(static_cast<std::size_t>(NE) * nl), ftref(ft.size());
  run.force_t(stress.data(), v, ft.data());
  for (int el = 0; el < NE; ++el) {
    const double* vp[3] = {&vl[0], &vl[nd], &vl[2 * nd]};
    for (int c2 = 0; c2 < DIM; ++c2) gather_elem(v, el, c2, &vl[c2 * nd]);
    ops.force_transpose(el, sref.data(), vp, &ftref[el * nl], s);
  }
  EXPECT_TRUE(max_rel_diff(ft, ftref) < 1e-12);
}

// PER_SHAPE: also the kernels that do not depend on TPE (once per shape): k_qupdate_staged in
// place of k_qupdate and, in 3D, k_force_lean / k_force_t_lean (Q1D^2 threads per element, nbl
// elements per block) in place of k_force / k_force_t.
template <int DIM, int D, int Q, int L, int TPE, bool PER_SHAPE = true>
void check_kernels(const std::string& mesh_name, int refine, int nbe, int nbl = 1) {
  using S = fixed::Shape<DIM, D, Q, L>;
  const Case c = make_case(mesh_name, refine, D - 1, L - 1);
  EXPECT_TRUE(c.h.D1D == D && c.h.Q1D == Q && c.h.L1D == L && c.h.dim == DIM);
  const DeviceDisc& d = c.d;
  const int NE = c.h.NE, nbq = std::max(1, 256 / S::NQ);
  KernelRuns run;
  run.mass_h1 = [&](const double* v, double* y) {
    launch(NE, TPE, nbe, S::BASIS + nbe * S::MASS, [&] { fixed::k_mass<DIM, D, Q, L, TPE, true>(d, nullptr, NE, v, y); });
  };
  run.mass_l2 = [&](const double* e, double* y) {
    launch(NE, TPE, nbe, S::BASIS + nbe * S::MASS, [&] { fixed::k_mass<DIM, D, Q, L, TPE, false>(d, nullptr, NE, e, y); });
  };
  run.qupdate = [&](const double* x, const double* v, const double* e, double* stress, double* edt) {
    launch(NE, S::NQ, nbq, S::BASIS + nbq * S::QUPDATE, [&] { fixed::k_qupdate<DIM, D, Q, L>(d, x, v, e, stress, edt); });
  };
  run.force = [&](const double* stress, double* f) {
    launch(NE, TPE, nbe, S::BASIS + nbe * S::FORCE, [&] { fixed::k_force<DIM, D, Q, L, TPE>(d, nullptr, NE, stress, f); });
  };
  run.force_t = [&](const double* stress, const double* v, double* ft) {
    launch(NE, TPE, nbe, S::BASIS + nbe * S::FORCE_T, [&] { fixed::k_force_t<DIM, D, Q, L, TPE>(d, stress, v, ft); });
  };
  compare_with_serial(c, run);
  // The `lean` variant's quadrature update (gradients staged in shared memory, lean physics).
  if constexpr (PER_SHAPE) {
    KernelRuns staged = run;
    staged.qupdate = [&](const double* x, const double* v, const double* e, double* stress, double* edt) {
      launch(NE, S::NQ, nbq, S::BASIS + nbq * S::QUPDATE_STAGED,
             [&] { fixed::k_qupdate_staged<DIM, D, Q, L>(d, x, v, e, stress, edt); });
    };
    compare_with_serial(c, staged);
  }
  if constexpr (PER_SHAPE && DIM == 3) {
    using LS = fixed::LeanShape<D, Q, L>;
    KernelRuns lean = run;
    lean.force = [&](const double* stress, double* f) {
      launch(NE, LS::TPE, nbl, S::BASIS + nbl * LS::FORCE,
             [&] { fixed::k_force_lean<D, Q, L>(d, nullptr, NE, stress, f); });
    };
    lean.force_t = [&](const double* stress, const double* v, double* ft) {
      launch(NE, LS::TPE, nbl, S::BASIS + nbl * LS::FORCE_T,
             [&] { fixed::k_force_t_lean<D, Q, L>(d, stress, v, ft); });
    };
    compare_with_serial(c, lean);
    // mass=zcol: the CG's H1 mass with a thread per (x, y) point (LS::TPE threads, nbl elements).
    check_scatter(c, [&](const int* list, int n, const double* x, double* y) {
      launch(n, LS::TPE, nbl, S::BASIS + nbl * LS::MASS, [&] { fixed::k_mass_zcol<D, Q, L>(d, list, n, x, y); });
    });
    check_element_lists(NE, static_cast<std::size_t>(NE) * S::NQ * DIM * DIM, static_cast<std::size_t>(DIM) * NE * S::ND,
                        [&](const int* list, int n, const double* stress, double* evec) {
                          launch(n, LS::TPE, nbl, S::BASIS + nbl * LS::FORCE,
                                 [&] { fixed::k_force_lean<D, Q, L>(d, list, n, stress, evec); });
                        });
  }
  check_element_lists(NE, static_cast<std::size_t>(NE) * S::NQ * DIM * DIM, static_cast<std::size_t>(DIM) * NE * S::ND,
                      [&](const int* list, int n, const double* stress, double* evec) {
                        launch(n, TPE, nbe, S::BASIS + nbe * S::FORCE,
                               [&] { fixed::k_force<DIM, D, Q, L, TPE>(d, list, n, stress, evec); });
                      });
  check_element_lists(NE, static_cast<std::size_t>(c.h.nh1), static_cast<std::size_t>(NE) * S::ND,
                      [&](const int* list, int n, const double* x, double* evec) {
                        launch(n, TPE, nbe, S::BASIS + nbe * S::MASS,
                               [&] { fixed::k_mass<DIM, D, Q, L, TPE, true>(d, list, n, x, evec); });
                      });

  // The scattered H1 mass (the CG operator with mass=atomic).
  check_scatter(c, [&](const int* list, int n, const double* x, double* y) {
    launch(n, TPE, nbe, S::BASIS + nbe * S::MASS, [&] { fixed::k_mass<DIM, D, Q, L, TPE, true, true>(d, list, n, x, y); });
  });
}

// The generic kernels as kernels_gpu.cu launches them: one element per block of Q1D^2 threads,
// 6 big doubles of shared memory (2 dim^2 nq + 4 big + max(threads, big) for the quadrature update).
template <int DIM>
void check_generic(const std::string& mesh_name, int refine, int order_k) {
  const Case c = make_case(mesh_name, refine, order_k, order_k - 1);
  const DeviceDisc& d = c.d;
  const int NE = c.h.NE, Q = c.h.Q1D, n = std::max(c.h.D1D, Q), big = DIM == 2 ? n * n : n * n * n;
  const int threads = Q * Q;
  const std::size_t eshared = 6 * big, qshared = 2 * DIM * DIM * c.h.nq + 4 * big + std::max(threads, big);
  KernelRuns run;
  run.mass_h1 = [&](const double* v, double* y) { launch(NE, threads, 1, eshared, [&] { generic::k_mass_h1(d, big, nullptr, v, y); }); };
  run.mass_l2 = [&](const double* e, double* y) { launch(NE, threads, 1, eshared, [&] { generic::k_mass_l2(d, big, e, y); }); };
  run.qupdate = [&](const double* x, const double* v, const double* e, double* stress, double* edt) {
    launch(NE, threads, 1, qshared, [&] { generic::k_qupdate<DIM>(d, big, x, v, e, stress, edt, nullptr); });
  };
  run.force = [&](const double* stress, double* f) { launch(NE, threads, 1, eshared, [&] { generic::k_force(d, big, nullptr, stress, f); }); };
  run.force_t = [&](const double* stress, const double* v, double* ft) {
    launch(NE, threads, 1, eshared, [&] { generic::k_force_t(d, big, stress, v, ft); });
  };
  compare_with_serial(c, run);
  check_element_lists(NE, static_cast<std::size_t>(NE) * c.h.nq * DIM * DIM, static_cast<std::size_t>(DIM) * NE * c.h.nd,
                      [&](const int* list, int n, const double* stress, double* evec) {
                        launch(n, threads, 1, eshared, [&] { generic::k_force(d, big, list, stress, evec); });
                      });
  check_element_lists(NE, static_cast<std::size_t>(c.h.nh1), static_cast<std::size_t>(NE) * c.h.nd,
                      [&](const int* list, int n, const double* x, double* evec) {
                        launch(n, threads, 1, eshared, [&] { generic::k_mass_h1(d, big, list, x, evec); });
                      });
}

}  // namespace

// 64 elements: 3 blocks of 24 (tail block partly inactive) and 16 blocks of 4; the lean force
// kernels and k_mass_zcol in blocks of 5 (the last holds 4). Q3Q2: 8 elements, blocks of 7 (lean: 3).
TEST(FixedKernelsEmulated, fixed_q2q1_3d_block_xy) { check_kernels<3, 3, 4, 2, 16>("cube01_hex", 1, 24, 5); }
TEST(FixedKernelsEmulated, fixed_q2q1_3d_block_xyz) { check_kernels<3, 3, 4, 2, 64, false>("cube01_hex", 1, 4); }
TEST(FixedKernelsEmulated, fixed_q3q2_3d_block_xy) { check_kernels<3, 4, 6, 3, 36>("cube01_hex", 0, 7, 3); }
// The lowest and highest specialised 3D orders (the lean force kernels' other two shapes):
// Q1Q0 64 elements in blocks of 24 (lean: 7); Q4Q3 8 elements in blocks of 3 (lean: 3).
TEST(FixedKernelsEmulated, fixed_q1q0_3d_block_xy) { check_kernels<3, 2, 2, 1, 4>("cube01_hex", 1, 24, 7); }
TEST(FixedKernelsEmulated, fixed_q4q3_3d_block_xy) { check_kernels<3, 5, 8, 4, 64>("cube01_hex", 0, 3, 3); }
TEST(FixedKernelsEmulated, fixed_q3q2_2d) { check_kernels<2, 4, 6, 3, 36>("square01_quad", 1, 3); }
// The generic kernels at Q4Q3 3D (27 zones, the order of the round-2 gpu-generic-sedov3d-q4 case)
// and Q2Q1 2D.
TEST(FixedKernelsEmulated, generic_q4q3_3d) { check_generic<3>("cube01_hex", 0, 4); }
TEST(FixedKernelsEmulated, generic_q2q1_2d) { check_generic<2>("square01_quad", 1, 2); }
