// Host sum factorization: apply one 1D matrix per axis to a lexicographic tensor
// (x fastest). Used by the serial oracle and the OpenMP variant.
#pragma once

namespace laghos {

// out[.. i_axis ..] = sum_j M[i * ld + j] (or M[j * ld + i] when transposed) in[.. j ..].
// `shape` holds the extents of `in`; on return shape[axis] = nout.
inline void contract_axis(int dim, int shape[3], int axis, const double* M, int nout, bool transpose,
                          int ld, const double* in, double* out) {
  const int nin = shape[axis];
  int before = 1, after = 1;
  for (int a = 0; a < axis; ++a) before *= shape[a];
  for (int a = axis + 1; a < dim; ++a) after *= shape[a];
  for (int t = 0; t < after; ++t)
    for (int i = 0; i < nout; ++i) {
      double* o = out + (t * nout + i) * before;
      for (int b = 0; b < before; ++b) o[b] = 0.0;
      for (int j = 0; j < nin; ++j) {
        const double m = transpose ? M[j * ld + i] : M[i * ld + j];
        const double* x = in + (t * nin + j) * before;
        for (int b = 0; b < before; ++b) o[b] += m * x[b];
      }
    }
  shape[axis] = nout;
}

// Applies mats[axis] along every axis. Forward: mats are (nq x n) tables, in has n^dim entries,
// out nq^dim. Transposed: in has nq^dim, out n^dim. tmp needs max(n,nq)^dim twice.
inline void tensor_apply(int dim, const double* const mats[3], int n, int nq, bool transpose,
                         const double* in, double* out, double* tmp0, double* tmp1) {
  int shape[3] = {transpose ? nq : n, transpose ? nq : n, transpose ? nq : n};
  const int nout = transpose ? n : nq;
  const double* src = in;
  for (int axis = 0; axis < dim; ++axis) {
    double* dst = (axis == dim - 1) ? out : (axis % 2 == 0 ? tmp0 : tmp1);
    contract_axis(dim, shape, axis, mats[axis], nout, transpose, n, src, dst);
    src = dst;
  }
}

}  // namespace laghos
