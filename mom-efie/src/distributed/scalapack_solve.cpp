#include "distributed/scalapack_solve.hpp"

#include <string>

#include "copa/errors.hpp"

#if defined(COPA_HAVE_SCALAPACK)
extern "C" {
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc, const int* icsrc,
               const int* context, const int* lld, int* info);
void pzgetrf_(const int* m, const int* n, void* a, const int* ia, const int* ja, const int* desca, int* ipiv, int* info);
void pzgetrs_(const char* trans, const int* n, const int* nrhs, const void* a, const int* ia, const int* ja,
              const int* desca, const int* ipiv, void* b, const int* ib, const int* jb, const int* descb, int* info);
}
#endif

namespace efie::dist {

#if defined(COPA_HAVE_SCALAPACK)
bool scalapack_built() { return true; }

ScalapackSolver::ScalapackSolver(const BlockCyclic& layout) : layout_(layout) {
  if (layout.n > 2147483647L) throw copa::RuntimeError("ScaLAPACK takes 32-bit dimensions: N is too large");
  Cblacs_get(-1, 0, &context_);  // the system context: MPI_COMM_WORLD
  Cblacs_gridinit(&context_, "Row", layout.grid.p, layout.grid.q);
  int p = 0, q = 0, r = 0, c = 0;
  Cblacs_gridinfo(context_, &p, &q, &r, &c);
  if (p != layout.grid.p || q != layout.grid.q || r != layout.myrow || c != layout.mycol)
    throw copa::RuntimeError("BLACS placed this rank at (" + std::to_string(r) + ", " + std::to_string(c) +
                             ") of its grid, the fill at (" + std::to_string(layout.myrow) + ", " +
                             std::to_string(layout.mycol) + ")");
  const int n = int(layout.n), nb = int(layout.nb), one = 1, zero = 0, lld = int(layout.lld());
  int info = 0;
  descinit_(desc_a_, &n, &n, &nb, &nb, &zero, &zero, &context_, &lld, &info);
  if (info != 0) throw copa::RuntimeError("descinit (matrix) failed, info " + std::to_string(info));
  descinit_(desc_b_, &n, &one, &nb, &nb, &zero, &zero, &context_, &lld, &info);
  if (info != 0) throw copa::RuntimeError("descinit (right-hand side) failed, info " + std::to_string(info));
  pivots_.resize(std::size_t(layout.local_rows + layout.nb));
}

ScalapackSolver::~ScalapackSolver() {
  if (context_ >= 0) Cblacs_gridexit(context_);
}

void ScalapackSolver::factor(complex* local, copa::RegionTimer& timer) {
  const int n = int(layout_.n), one = 1;
  int info = 0;
  {
    copa::Region r(timer, "lu");
    pzgetrf_(&n, &n, local, &one, &one, desc_a_, pivots_.data(), &info);
  }
  if (info != 0) throw copa::RuntimeError("pzgetrf failed (info " + std::to_string(info) + "): singular EFIE matrix");
}

void ScalapackSolver::solve(const complex* local, std::vector<complex>& owned_b, copa::RegionTimer& timer) {
  const int n = int(layout_.n), one = 1;
  int info = 0;
  // Process columns other than 0 hold no part of b; ScaLAPACK still wants a valid pointer.
  complex dummy;
  {
    copa::Region r(timer, "solve");
    pzgetrs_("N", &n, &one, local, &one, &one, desc_a_, pivots_.data(), owned_b.empty() ? &dummy : owned_b.data(), &one,
             &one, desc_b_, &info);
  }
  if (info != 0) throw copa::RuntimeError("pzgetrs failed (info " + std::to_string(info) + ")");
}
#else
bool scalapack_built() { return false; }

ScalapackSolver::ScalapackSolver(const BlockCyclic& layout) : layout_(layout) {
  throw copa::InputError("the CPU backends on more than one rank need ScaLAPACK, which this build did not find "
                         "(an MPI build with libscalapack-openmpi-dev, COPA_ENABLE_SCALAPACK)");
}
ScalapackSolver::~ScalapackSolver() = default;
void ScalapackSolver::factor(complex*, copa::RegionTimer&) {}
void ScalapackSolver::solve(const complex*, std::vector<complex>&, copa::RegionTimer&) {}
#endif

}  // namespace efie::dist
