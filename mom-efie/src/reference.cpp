#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <complex>

namespace efie {
namespace {

struct MieCoefficients {
  std::vector<std::complex<double>> a, b;  // index n = 1..nmax (entry 0 unused)
};

// Riccati-Bessel functions of a real argument x: psi_n = x j_n (Miller's downward recurrence,
// normalised by psi_0 = sin x) and xi_n = x h_n^(2) = psi_n - j x y_n (upward recurrence for y_n,
// which is stable); n = 0..nmax.
struct Riccati {
  std::vector<double> psi, xy;
  std::complex<double> xi(int n) const { return {psi[n], -xy[n]}; }
};

int terms(double x) { return int(x + 4.0 * std::cbrt(x) + 2.0) + 2; }

Riccati riccati(double x, int nmax) {
  const int start = nmax + 20 + int(x);
  std::vector<double> j(start + 2, 0.0);
  j[start + 1] = 0;
  j[start] = 1e-300;
  for (int n = start; n >= 1; --n) j[n - 1] = (2 * n + 1) / x * j[n] - j[n + 1];
  const double scale = (std::sin(x) / x) / j[0];
  Riccati r;
  r.psi.resize(nmax + 1);
  r.xy.resize(nmax + 1);
  for (int n = 0; n <= nmax; ++n) r.psi[n] = x * j[n] * scale;
  double ym = -std::cos(x) / x, y = -std::cos(x) / (x * x) - std::sin(x) / x;
  r.xy[0] = x * ym;
  r.xy[1] = x * y;
  for (int n = 1; n < nmax; ++n) {
    const double yp = (2 * n + 1) / x * y - ym;
    ym = y;
    y = yp;
    r.xy[n + 1] = x * y;
  }
  return r;
}

// PEC: a_n = psi_n'/xi_n', b_n = psi_n/xi_n; derivatives f_n' = f_(n-1) - n f_n / x.
MieCoefficients coefficients(double x) {
  const int nmax = terms(x);
  const Riccati r = riccati(x, nmax);
  MieCoefficients c;
  c.a.resize(nmax + 1);
  c.b.resize(nmax + 1);
  for (int n = 1; n <= nmax; ++n) {
    const std::complex<double> xi = r.xi(n), xi_prev = r.xi(n - 1);
    const double dpsi = r.psi[n - 1] - n * r.psi[n] / x;
    const std::complex<double> dxi = xi_prev - double(n) * xi / x;
    c.a[n] = dpsi / dxi;
    c.b[n] = r.psi[n] / xi;
  }
  return c;
}

// Homogeneous sphere (Bohren & Huffman eq. 4.53 in Riccati form, with the particle's mu_r):
//   a_n = [m psi_n'(x) - mu_r D_n psi_n(x)] / [m xi_n'(x) - mu_r D_n xi_n(x)]
//   b_n = [mu_r psi_n'(x) - m D_n psi_n(x)] / [mu_r xi_n'(x) - m D_n xi_n(x)]
// m = sqrt(eps_r mu_r), D_n = psi_n'(mx)/psi_n(mx) by the downward recurrence
// D_(n-1) = n/(mx) - 1/(D_n + n/(mx)) (stable for complex mx; B&H's BHMIE). With xi = x h^(2)
// (exp(+j w t)) and eps_r = eps' - j eps'' (loss eps'' >= 0) these are the complex conjugates of
// B&H's (exp(-i w t), eps' + i eps''); every |S|^2 and efficiency is the same.
MieCoefficients coefficients(double x, std::complex<double> eps_r, std::complex<double> mu_r) {
  const std::complex<double> m = std::sqrt(eps_r * mu_r), mx = m * x;
  const int nmax = terms(x);  // B&H: the series needs x + 4 x^(1/3) + 2 terms; only D_n starts higher
  const Riccati r = riccati(x, nmax);
  const int start = int(std::max(double(nmax), std::abs(mx))) + 16;
  std::vector<std::complex<double>> d(start + 1, 0.0);
  for (int n = start; n >= 1; --n) d[n - 1] = double(n) / mx - 1.0 / (d[n] + double(n) / mx);
  MieCoefficients c;
  c.a.resize(nmax + 1);
  c.b.resize(nmax + 1);
  for (int n = 1; n <= nmax; ++n) {
    const std::complex<double> xi = r.xi(n), dxi = r.xi(n - 1) - double(n) * xi / x;
    const double psi = r.psi[n], dpsi = r.psi[n - 1] - n * r.psi[n] / x;
    c.a[n] = (m * dpsi - mu_r * d[n] * psi) / (m * dxi - mu_r * d[n] * xi);
    c.b[n] = (mu_r * dpsi - m * d[n] * psi) / (mu_r * dxi - m * d[n] * xi);
  }
  return c;
}

// S1 (H-plane) and S2 (E-plane) at angle theta from the coefficients.
void amplitudes(const MieCoefficients& c, double theta, std::complex<double>& s1, std::complex<double>& s2) {
  const int nmax = int(c.a.size()) - 1;
  const double mu = std::cos(theta);
  s1 = s2 = 0;
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
}

}  // namespace

void mie_bistatic(double ka, double theta, double& e_plane, double& h_plane) {
  std::complex<double> s1, s2;
  amplitudes(coefficients(ka), theta, s1, s2);
  e_plane = 4.0 * std::norm(s2) / (ka * ka);
  h_plane = 4.0 * std::norm(s1) / (ka * ka);
}

void mie_bistatic_dielectric(double ka, std::complex<double> eps_r, std::complex<double> mu_r, double theta, double& e_plane,
                             double& h_plane) {
  std::complex<double> s1, s2;
  amplitudes(coefficients(ka, eps_r, mu_r), theta, s1, s2);
  e_plane = 4.0 * std::norm(s2) / (ka * ka);
  h_plane = 4.0 * std::norm(s1) / (ka * ka);
}

MieEfficiencies mie_efficiencies(double ka, std::complex<double> eps_r, std::complex<double> mu_r) {
  const auto c = coefficients(ka, eps_r, mu_r);
  MieEfficiencies q;
  for (std::size_t n = 1; n < c.a.size(); ++n) {
    q.extinction += double(2 * n + 1) * (c.a[n] + c.b[n]).real();
    q.scattering += double(2 * n + 1) * (std::norm(c.a[n]) + std::norm(c.b[n]));
  }
  q.extinction *= 2 / (ka * ka);
  q.scattering *= 2 / (ka * ka);
  std::complex<double> s1, s2;
  amplitudes(c, 0.0, s1, s2);
  q.forward_amplitude = s1;
  return q;
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
