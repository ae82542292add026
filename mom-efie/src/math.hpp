// Small host/device value types shared by every backend: a real 3-vector and a complex number
// laid out like std::complex<double>, cuDoubleComplex and hipDoubleComplex (re, im).
#pragma once
#include <cmath>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define EFIE_HD __host__ __device__ __forceinline__
#else
#define EFIE_HD inline
#endif

namespace efie {

struct Vec3 {
  double x, y, z;
};
EFIE_HD Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
EFIE_HD Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
EFIE_HD Vec3 operator*(double s, Vec3 a) { return {s * a.x, s * a.y, s * a.z}; }
EFIE_HD double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
EFIE_HD Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
EFIE_HD double norm(Vec3 a) { return sqrt(dot(a, a)); }

struct Cplx {
  double re, im;
};
EFIE_HD Cplx operator+(Cplx a, Cplx b) { return {a.re + b.re, a.im + b.im}; }
EFIE_HD Cplx operator-(Cplx a, Cplx b) { return {a.re - b.re, a.im - b.im}; }
EFIE_HD Cplx operator*(double s, Cplx a) { return {s * a.re, s * a.im}; }
EFIE_HD Cplx operator*(Cplx a, Cplx b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
// For the kernels generic in the wavenumber (real, or complex in a lossy medium).
EFIE_HD Cplx operator*(Cplx a, double s) { return {a.re * s, a.im * s}; }
EFIE_HD Cplx operator+(double x, Cplx a) { return {x + a.re, a.im}; }
EFIE_HD void accumulate(Cplx& g, double x) { g.re += x; }
EFIE_HD void accumulate(Cplx& g, Cplx x) { g = g + x; }
EFIE_HD Cplx times_j(Cplx a) { return {-a.im, a.re}; }
// exp(-j x) for complex x = x' + j x'': exp(x'') (cos x' - j sin x').
EFIE_HD Cplx exp_minus_j(Cplx x) {
  const double m = exp(x.im);
  return {m * cos(x.re), -m * sin(x.re)};
}

// A complex 3-vector (a current moment or a potential sum).
struct CVec3 {
  Cplx x, y, z;
};
EFIE_HD Cplx dot(Vec3 a, CVec3 b) {
  return {a.x * b.x.re + a.y * b.y.re + a.z * b.z.re, a.x * b.x.im + a.y * b.y.im + a.z * b.z.im};
}
// v += w g, component by component.
EFIE_HD void add_scaled(CVec3& v, Vec3 w, Cplx g) {
  v.x = v.x + w.x * g;
  v.y = v.y + w.y * g;
  v.z = v.z + w.z * g;
}

}  // namespace efie
