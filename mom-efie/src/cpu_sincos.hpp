// sin and cos in plain arithmetic (no libm call), so that a `#pragma omp simd` loop that calls
// them vectorises without -ffast-math. Range reduction by pi/2 in three parts (Cody-Waite; the
// first part has 33 bits, so n * pio2_1 is exact for |n| < 2^20), then the minimax polynomials of
// fdlibm's __kernel_sin / __kernel_cos on [-pi/4, pi/4]. Accurate to about 1 ulp for |x| < 1e6;
// cpu_sincos_limit is the bound callers must check (the fill falls back to std::sin/cos above it).
#pragma once
#include <cmath>

namespace efie {

constexpr double cpu_sincos_limit = 1e6;

#pragma omp declare simd notinbranch
inline void cpu_sincos(double x, double& s, double& c) {
  const double two_over_pi = 6.36619772367581382433e-01;
  const double pio2_1 = 1.57079632673412561417e+00, pio2_2 = 6.07710050630396597660e-11,
               pio2_3 = 2.02226624871116645580e-21;
  const double n = std::nearbyint(x * two_over_pi);
  const double r = ((x - n * pio2_1) - n * pio2_2) - n * pio2_3;
  const double z = r * r;
  const double ps = -1.66666666666666324348e-01 +
                    z * (8.33333333332248946124e-03 +
                         z * (-1.98412698298579493134e-04 +
                              z * (2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10))));
  const double pc = 4.16666666666666019037e-02 +
                    z * (-1.38888888888741095749e-03 +
                         z * (2.48015872894767294178e-05 +
                              z * (-2.75573143513906633035e-07 + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11))));
  const double sr = r + r * z * ps;
  const double cr = (1.0 - 0.5 * z) + z * z * pc;
  const int q = int(n) & 3;  // quadrant: (sin, cos) = (s, c), (c, -s), (-s, -c), (-c, s)
  const double a = (q & 1) ? cr : sr, b = (q & 1) ? sr : cr;
  s = (q & 2) ? -a : a;
  c = ((q + 1) & 2) ? -b : b;
}

}  // namespace efie
