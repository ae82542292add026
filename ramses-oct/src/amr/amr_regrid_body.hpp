// The parts of a regrid that read the state, written once as host/device functions: the
// gradient criterion of a cell and the move of an oct's state onto the new tree (a kept oct's
// copy, or the prolongation of a new oct from its old father cell and that cell's six face
// neighbours). The host regrid (amr_regrid.cpp) and the device regrid (amr_gpu.cu) call the same
// functions, so the GPU keeps the state on the device across a regrid and the host sees only one
// criterion byte per cell.
#pragma once
#include <cstdint>
#include <type_traits>

#include "amr/amr_interp.hpp"
#include "hydro/hydro_math.hpp"
#include "hydro/mesh.hpp"

namespace ro::amr {

// RAMSES err_grad_d / err_grad_p: whether the relative jump 2|a - b| / (|a| + |b|) of a quantity
// between two cells exceeds threshold (> 0), evaluated as 2|a - b| > threshold (|a| + |b|): the same
// test in exact arithmetic without the division (a jump within rounding of the threshold may be
// decided the other way than the quotient would decide it); false where both are 0, or a value is
// not finite, as the quotient's test was.
RO_HD bool jump_exceeds(double a, double b, double threshold) {
  return 2 * fabs(a - b) > threshold * (fabs(a) + fabs(b));
}

// Whether a face neighbour with primitives qn makes the cell with primitives q meet the gradient
// criterion.
RO_HD bool gradient_jump(const double q[nvar], const double qn[nvar], double density, double pressure) {
  return jump_exceeds(qn[0], q[0], density) || jump_exceeds(qn[4], q[4], pressure);
}

// Entry i of a small table held by value (a level table of PlanView or LevelBegins, an axis's
// entry of TreeView). On the device these tables are kernel parameters, and indexing one with a
// run-time i makes nvcc copy the whole parameter into every thread's local memory (ptxas sm_90:
// rebuild_fill_kernel a 160-byte stack frame, its two level tables); a compile-time walk that keeps
// entry i reads each entry from the parameter bank instead. The host indexes.
template <class T, int N>
RO_HD T table_entry(const T (&table)[N], int i) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  T r = table[0];
#pragma unroll
  for (int k = 1; k < N; ++k)
    if (k == i) r = table[k];
  return r;
#else
  return table[i];
#endif
}

// fn(std::integral_constant<int, F>{}) for the face F = f (0..5): a run-time face made a
// compile-time one, so that fn indexes the views' per-face and per-axis tables at compile time.
template <class Fn>
RO_HD void with_face(int f, Fn&& fn) {
  switch (f) {
    case 0: fn(std::integral_constant<int, 0>{}); break;
    case 1: fn(std::integral_constant<int, 1>{}); break;
    case 2: fn(std::integral_constant<int, 2>{}); break;
    case 3: fn(std::integral_constant<int, 3>{}); break;
    case 4: fn(std::integral_constant<int, 4>{}); break;
    default: fn(std::integral_constant<int, 5>{}); break;
  }
}

// The tree's link tables as raw arrays (host vectors or their device copies).
struct TreeView {
  const std::int8_t* level;
  const std::int32_t* coord[3];
  const std::int32_t* nbor[6];
  const std::int32_t* father;
  int base_cells[3];
  int bc[3];  // Boundary
};

// same_level_neighbour (amr_tree.hpp) on the view: the cell beyond face (a, side) of cell c of oct
// o at o's level, the cell itself across a reflecting/outflow domain face, -1 where it is coarser.
RO_HD long long view_same_level_neighbour(const TreeView& v, long long o, int c, int a, bool side) {
  const int bit = 1 << a;
  if (bool(c & bit) != side) return o * 8 + (c ^ bit);
  const int n = (v.base_cells[a] << v.level[o]) / 2;
  const bool at_domain_face = side ? v.coord[a][o] == n - 1 : v.coord[a][o] == 0;
  if (at_domain_face && v.bc[a] != static_cast<int>(Boundary::periodic)) return o * 8 + c;
  const std::int32_t nb = v.nbor[2 * a + side][o];
  return nb < 0 ? -1 : (long long)nb * 8 + (c ^ bit);
}

// The cell that locate() finds beyond face (a, side) of cell c of oct o in a 2:1 balanced tree:
// the same-level cell, else the father cell's neighbour (a refined cell's face neighbours exist
// on its level). -1 only if the tree is not balanced.
RO_HD long long view_face_neighbour(const TreeView& v, long long o, int c, int a, bool side) {
  const long long same = view_same_level_neighbour(v, o, c, a, side);
  if (same >= 0 || v.father[o] < 0) return same;
  return view_same_level_neighbour(v, v.father[o] / 8, v.father[o] % 8, a, side);
}

// The criterion byte of cell g: 1 where the gradient criterion holds against one of its six face
// neighbours, 0 where it does not, 2 where a neighbour is missing (unbalanced tree: an error); the
// faces in order (-x, +x, -y, +y, -z, +z), the first missing or flagging one decides. The cell's
// primitives are formed once, each neighbour's once (they were formed for every face they were
// compared on, and each jump divided: ~1000 instructions per cell, the regrid's costliest kernel).
RO_HD char gradient_criterion(const TreeView& v, const double* u, long long stride, long long g, double gamma,
                              double density, double pressure) {
  double uc[nvar], q[nvar];
  for (int f = 0; f < nvar; ++f) uc[f] = u[f * stride + g];
  cons_to_prim(uc, gamma, q);
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) {
      const long long cell = view_face_neighbour(v, g / 8, int(g % 8), a, side);
      if (cell < 0) return 2;
      double un[nvar], qn[nvar];
      for (int f = 0; f < nvar; ++f) un[f] = u[f * stride + cell];
      cons_to_prim(un, gamma, qn);
      if (gradient_jump(q, qn, density, pressure)) return 1;
    }
  return 0;
}

// The state of new oct i (stride: the new tree's cells), cell c's part, the device's decomposition
// (one thread per new cell): a kept oct (source[i] >= 0) copies its old cell c (a derefined cell
// keeps its restriction; consecutive cells across threads, so the copy is coalesced) and returns
// true; a new oct (source[i] = -1 - r) prolongs its son c from row r's seven old cells (the father
// cell, then its -x, +x, -y, +y, -z, +z face neighbours, with their momentum flips) into son, the
// coarse value into uc, and returns whether the son is physical; move_put_son then writes it once
// the oct's eight parts are known. (A new oct was prolonged whole by its cell-0 thread while the
// other seven waited: the tail of the move.)
RO_HD bool move_cell(long long i, int c, const std::int32_t* source, const std::int64_t* src, const std::uint8_t* flip,
                     const double* u_old, long long old_stride, double gamma, double* u, long long stride,
                     double uc[nvar], double son[nvar]) {
  if (source[i] >= 0) {
    for (int f = 0; f < nvar; ++f) u[f * stride + i * 8 + c] = u_old[f * old_stride + (long long)source[i] * 8 + c];
    return true;
  }
  const long long r = -1 - (long long)source[i];
  return prolong_stencil_son(u_old, old_stride, src + 7 * r, flip + 7 * r, c, gamma, uc, son);
}

// A new oct's son c (nothing for a kept oct): the prolonged son where all eight of the oct's are
// physical, else the coarse value (prolong's fallback).
RO_HD void move_put_son(long long i, int c, const std::int32_t* source, bool all_physical, const double uc[nvar],
                        const double son[nvar], double* u, long long stride) {
  if (source[i] >= 0) return;
  for (int f = 0; f < nvar; ++f) u[f * stride + i * 8 + c] = all_physical ? son[f] : uc[f];
}

}  // namespace ro::amr
