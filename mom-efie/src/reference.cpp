#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <complex>

namespace efie {
namespace {

struct MieCoefficients {
  std::vector<std::complex<double>> a, b;  // index n = 1..nmax (entry 0 unused)
};

// Riccati-Bessel psi_n = x j_n (Miller's downward recurrence, normalised by psi_0 = sin x) and
// xi_n = x h_n^(2) = psi_n - j x y_n (upward recurrence for y_n, which is stable);
// derivatives f_n' = f_(n-1) - n f_n / x. a_n = psi_n'/xi_n', b_n = psi_n/xi_n.
MieCoefficients coefficients(double x) {
  const int nmax = int(x + 4.0 * std::cbrt(x) + 2.0) + 2;
  const int start = nmax + 20 + int(x);
  std::vector<double> j(start + 2, 0.0);
  j[start + 1] = 0;
  j[start] = 1e-300;
  for (int n = start; n >= 1; --n) j[n - 1] = (2 * n + 1) / x * j[n] - j[n + 1];
  const double scale = (std::sin(x) / x) / j[0];
  std::vector<double> psi(nmax + 1), xy(nmax + 1);
  for (int n = 0; n <= nmax; ++n) psi[n] = x * j[n] * scale;
  double ym = -std::cos(x) / x, y = -std::cos(x) / (x * x) - std::sin(x) / x;
  xy[0] = x * ym;
  xy[1] = x * y;
  for (int n = 1; n < nmax; ++n) {
    const double yp = (2 * n + 1) / x * y - ym;
    ym = y;
    y = yp;
    xy[n + 1] = x * y;
  }
  MieCoefficients c;
  c.a.resize(nmax + 1);
  c.b.resize(nmax + 1);
  for (int n = 1; n <= nmax; ++n) {
    const std::complex<double> xi(psi[n], -xy[n]), xi_prev(psi[n - 1], -xy[n - 1]);
    const double dpsi = psi[n - 1] - n * psi[n] / x;
    const std::complex<double> dxi = xi_prev - double(n) * xi / x;
    c.a[n] = dpsi / dxi;
    c.b[n] = psi[n] / xi;
  }
  return c;
}

}  // namespace

void mie_bistatic(double ka, double theta, double& e_plane, double& h_plane) {
  const auto c = coefficients(ka);
  const int nmax = int(c.a.size()) - 1;
  const double mu = std::cos(theta);
  std::complex<double> s1 = 0, s2 = 0;
  double pi_prev = 0, pi = 1;  // pi_0, pi_1
  for (int n = 1; n <= nmax; ++n) {
    const double tau = n * mu * pi - (n + 1) * pi_prev;
    const double f = double(2 * n + 1) / (n * (n + 1));
    s1 += f * (c.a[n] * pi + c.b[n] * tau);
    s2 += f * (c.a[n] * tau + c.b[n] * pi);
    const double pi_next = ((2.0 * n + 1) / n) * mu * pi - (double(n + 1) / n) * pi_prev;
    pi_prev = pi;
    pi = pi_next;
  }
  e_plane = 4.0 * std::norm(s2) / (ka * ka);
  h_plane = 4.0 * std::norm(s1) / (ka * ka);
}

double mie_monostatic(double ka) {
  const auto c = coefficients(ka);
  std::complex<double> s = 0;
  for (std::size_t n = 1; n < c.a.size(); ++n) s += (n % 2 ? -1.0 : 1.0) * double(2 * n + 1) * (c.a[n] - c.b[n]);
  return std::norm(s) / (ka * ka);
}

std::vector<double> interior_resonances(double ka_max, double ka_min) {
  // Sign changes of j_n(x) (TE) and psi_n'(x) (TM) on a fine grid, refined by bisection.
  auto jn = [](int n, double x) { return std::sph_bessel(unsigned(n), x); };
  auto dpsi = [](int n, double x) {
    return std::sph_bessel(unsigned(n), x) + x * (std::sph_bessel(unsigned(n - 1), x) - (n + 1) / x * std::sph_bessel(unsigned(n), x));
  };
  std::vector<double> out;
  const double h = 1e-3;
  for (int n = 1; n <= int(ka_max) + 2; ++n)
    for (int kind = 0; kind < 2; ++kind) {
      auto f = [&](double x) { return kind == 0 ? jn(n, x) : dpsi(n, x); };
      double x0 = std::max(0.05, ka_min), f0 = f(x0);
      for (double x1 = x0 + h; x1 <= ka_max + h; x1 += h) {
        const double f1 = f(x1);
        if ((f0 < 0) != (f1 < 0)) {
          double lo = x1 - h, hi = x1;
          for (int it = 0; it < 60; ++it) {
            const double mid = 0.5 * (lo + hi);
            ((f(lo) < 0) != (f(mid) < 0) ? hi : lo) = mid;
          }
          if (lo <= ka_max) out.push_back(0.5 * (lo + hi));
        }
        f0 = f1;
      }
    }
  std::sort(out.begin(), out.end());
  return out;
}

double distance_to_resonance(double ka) {
  double best = 1e300;
  // The window [ka - 1, ka + 1] holds the nearest zero or bounds the distance by 1 (the zeros of
  // consecutive orders interlace with spacing below pi); scanning from 0 would cost O(ka^2) Bessel calls.
  for (double r : interior_resonances(ka + 1.0, ka - 1.0)) best = std::min(best, std::fabs(r - ka));
  return std::min(best, 1.0);
}

double rms_db_error(const RcsCuts& cuts, double ka) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < cuts.theta_deg.size(); ++i) {
    double e, h;
    mie_bistatic(ka, cuts.theta_deg[i] * M_PI / 180.0, e, h);
    const double de = 10.0 * std::log10(cuts.e_plane[i] / e), dh = 10.0 * std::log10(cuts.h_plane[i] / h);
    sum += de * de + dh * dh;
    n += 2;
  }
  return std::sqrt(sum / double(n));
}

}  // namespace efie
