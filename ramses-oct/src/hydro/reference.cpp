#include "hydro/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>

#include "hydro/compensated_sum.hpp"
#include "copa/errors.hpp"
#include "copa/output.hpp"
#include "hydro/hydro_math.hpp"

namespace ro {

ExactRiemann::ExactRiemann(Primitive1d left, Primitive1d right, double gamma)
    : l_(left), r_(right), g_(gamma) {
  cl_ = std::sqrt(g_ * l_.p / l_.rho);
  cr_ = std::sqrt(g_ * r_.p / r_.rho);
  const double du = r_.u - l_.u;
  // Two-rarefaction guess (Toro eq. 4.46), then Newton-Raphson until relative change < 1e-14.
  const double z = (g_ - 1) / (2 * g_);
  double p = std::pow((cl_ + cr_ - 0.5 * (g_ - 1) * du) / (cl_ / std::pow(l_.p, z) + cr_ / std::pow(r_.p, z)), 1 / z);
  p = std::max(p, 1e-12);
  for (int it = 0; it < 100; ++it) {
    double dl, dr;
    const double f = pressure_function(p, l_, cl_, dl) + pressure_function(p, r_, cr_, dr) + du;
    const double pn = std::max(p - f / (dl + dr), 1e-14);
    const double change = 2 * std::fabs(pn - p) / (pn + p);
    p = pn;
    if (change < 1e-14) break;
  }
  pstar_ = p;
  double dl, dr;
  ustar_ = 0.5 * (l_.u + r_.u) + 0.5 * (pressure_function(p, r_, cr_, dr) - pressure_function(p, l_, cl_, dl));
}

// Toro eq. 4.6-4.7: shock branch for p > p_K, rarefaction branch otherwise.
double ExactRiemann::pressure_function(double p, const Primitive1d& k, double c, double& d) const {
  if (p > k.p) {
    const double a = 2 / ((g_ + 1) * k.rho), b = (g_ - 1) / (g_ + 1) * k.p;
    const double q = std::sqrt(a / (p + b));
    d = q * (1 - 0.5 * (p - k.p) / (b + p));
    return (p - k.p) * q;
  }
  const double pr = p / k.p;
  d = 1 / (k.rho * c) * std::pow(pr, -(g_ + 1) / (2 * g_));
  return 2 * c / (g_ - 1) * (std::pow(pr, (g_ - 1) / (2 * g_)) - 1);
}

double ExactRiemann::left_wave_speed() const {
  const double g = g_;
  if (pstar_ > l_.p) return l_.u - cl_ * std::sqrt((g + 1) / (2 * g) * pstar_ / l_.p + (g - 1) / (2 * g));
  return l_.u - cl_;
}

double ExactRiemann::right_wave_speed() const {
  const double g = g_;
  if (pstar_ > r_.p) return r_.u + cr_ * std::sqrt((g + 1) / (2 * g) * pstar_ / r_.p + (g - 1) / (2 * g));
  return r_.u + cr_;
}

// Toro section 4.5 sampling.
Primitive1d ExactRiemann::sample(double s) const {
  const double g = g_;
  if (s <= ustar_) {  // left of the contact
    if (pstar_ > l_.p) {
      const double sl = l_.u - cl_ * std::sqrt((g + 1) / (2 * g) * pstar_ / l_.p + (g - 1) / (2 * g));
      if (s <= sl) return l_;
      const double ratio = pstar_ / l_.p, gr = (g - 1) / (g + 1);
      return {l_.rho * (ratio + gr) / (gr * ratio + 1), ustar_, pstar_};
    }
    const double shl = l_.u - cl_;
    if (s <= shl) return l_;
    const double cstar = cl_ * std::pow(pstar_ / l_.p, (g - 1) / (2 * g));
    const double stl = ustar_ - cstar;
    if (s >= stl) return {l_.rho * std::pow(pstar_ / l_.p, 1 / g), ustar_, pstar_};
    const double c = 2 / (g + 1) * (cl_ + (g - 1) / 2 * (l_.u - s));
    const double u = 2 / (g + 1) * (cl_ + (g - 1) / 2 * l_.u + s);
    return {l_.rho * std::pow(c / cl_, 2 / (g - 1)), u, l_.p * std::pow(c / cl_, 2 * g / (g - 1))};
  }
  if (pstar_ > r_.p) {
    const double sr = r_.u + cr_ * std::sqrt((g + 1) / (2 * g) * pstar_ / r_.p + (g - 1) / (2 * g));
    if (s >= sr) return r_;
    const double ratio = pstar_ / r_.p, gr = (g - 1) / (g + 1);
    return {r_.rho * (ratio + gr) / (gr * ratio + 1), ustar_, pstar_};
  }
  const double shr = r_.u + cr_;
  if (s >= shr) return r_;
  const double cstar = cr_ * std::pow(pstar_ / r_.p, (g - 1) / (2 * g));
  const double str = ustar_ + cstar;
  if (s <= str) return {r_.rho * std::pow(pstar_ / r_.p, 1 / g), ustar_, pstar_};
  const double c = 2 / (g + 1) * (cr_ - (g - 1) / 2 * (r_.u - s));
  const double u = 2 / (g + 1) * (-cr_ + (g - 1) / 2 * r_.u + s);
  return {r_.rho * std::pow(c / cr_, 2 / (g - 1)), u, r_.p * std::pow(c / cr_, 2 * g / (g - 1))};
}

ExactRiemann sod_exact(double gamma) { return ExactRiemann({1.0, 0.0, 1.0}, {0.125, 0.0, 0.1}, gamma); }

double sod_l1_density_error(const OctMesh& m, const std::vector<double>& u, double gamma, double t) {
  const ExactRiemann ex = sod_exact(gamma);
  const std::int64_t n = m.ncell();
  const double x0 = 0.5 * m.cells[0] * m.dx;
  double sum = 0;
  for (std::int64_t o = 0; o < m.noct; ++o)
    for (int c = 0; c < 8; ++c) {
      const double x = m.cell_center(0, m.cell_coords(o, c)[0]);
      sum += std::fabs(u[o * 8 + c] - ex.sample((x - x0) / t).rho);
    }
  return sum / double(n);
}

RadialProfile radial_profile(const OctMesh& m, const std::vector<double>& u, double gamma) {
  const std::int64_t n = m.ncell();
  const int nbin = std::min(m.cells[0], std::min(m.cells[1], m.cells[2])) / 2;
  std::vector<double> srho(nbin, 0), sp(nbin, 0), cnt(nbin, 0);
  const double centre[3] = {0.5 * m.cells[0] * m.dx, 0.5 * m.cells[1] * m.dx, 0.5 * m.cells[2] * m.dx};
  for (std::int64_t o = 0; o < m.noct; ++o)
    for (int c = 0; c < 8; ++c) {
      const auto ic = m.cell_coords(o, c);
      double r2 = 0;
      for (int a = 0; a < 3; ++a) {
        const double d = m.cell_center(a, ic[a]) - centre[a];
        r2 += d * d;
      }
      const int b = static_cast<int>(std::sqrt(r2) / m.dx);
      if (b >= nbin) continue;
      const std::int64_t g = o * 8 + c;
      double uc[nvar], q[nvar];
      for (int f = 0; f < nvar; ++f) uc[f] = u[f * n + g];
      cons_to_prim(uc, gamma, q);
      srho[b] += q[0];
      sp[b] += q[4];
      cnt[b] += 1;
    }
  RadialProfile prof;
  for (int b = 0; b < nbin; ++b) {
    if (cnt[b] == 0) continue;
    prof.r.push_back((b + 0.5) * m.dx);
    prof.rho.push_back(srho[b] / cnt[b]);
    prof.p.push_back(sp[b] / cnt[b]);
  }
  return prof;
}

double shock_radius(const RadialProfile& prof) {
  if (prof.rho.size() < 3) return 0;
  const auto it = std::max_element(prof.rho.begin(), prof.rho.end());
  const std::size_t i = static_cast<std::size_t>(it - prof.rho.begin());
  if (i == 0 || i + 1 == prof.rho.size()) return prof.r[i];
  const double ym = prof.rho[i - 1], y0 = prof.rho[i], yp = prof.rho[i + 1];
  const double h = prof.r[i + 1] - prof.r[i];
  const double denom = ym - 2 * y0 + yp;
  const double shift = denom < 0 ? 0.5 * (ym - yp) / denom : 0.0;
  return prof.r[i] + std::clamp(shift, -0.5, 0.5) * h;
}

double sedov_radius(double energy, double t, double rho0, double gamma) {
  double xi0 = 0;
  if (std::fabs(gamma - 1.4) < 1e-12) xi0 = 1.0328;
  if (std::fabs(gamma - 5.0 / 3.0) < 1e-12) xi0 = 1.1517;
  return xi0 * std::pow(energy * t * t / rho0, 0.2);
}

double sound_relative_l1(const OctMesh& m, const std::vector<double>& u, const SoundWave& w, double t) {
  double sum = 0;
  for (std::int64_t o = 0; o < m.noct; ++o)
    for (int c = 0; c < 8; ++c) {
      const auto ic = m.cell_coords(o, c);
      const double ex = w.density(m.cell_center(0, ic[0]), m.cell_center(1, ic[1]), m.cell_center(2, ic[2]), t);
      sum += std::fabs(u[o * 8 + c] - ex);
    }
  return sum / double(m.ncell()) / w.amplitude;
}

Totals totals(const OctMesh& m, const std::vector<double>& u) {
  const std::int64_t n = m.ncell();
  const double dv = m.dx * m.dx * m.dx;
  CompensatedSum mass, energy;
  for (std::int64_t g = 0; g < n; ++g) {
    mass.add(u[g]);
    energy.add(u[4 * n + g]);
  }
  return {mass.value() * dv, energy.value() * dv};
}

std::uint64_t state_checksum(const std::vector<double>& u) {
  std::uint64_t h = 1469598103934665603ull;
  for (double v : u) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int b = 0; b < 8; ++b) {
      h ^= (bits >> (8 * b)) & 0xff;
      h *= 1099511628211ull;
    }
  }
  return h;
}

std::string hex(std::uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

double relative_l2(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = a[i] - b[i];
    num += d * d;
    den += b[i] * b[i];
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}

void write_profile(const std::string& path, const std::string& problem, const OctMesh& m,
                   const std::vector<double>& u, double gamma, double t, const SoundWave& w) {
  copa::write_output(path, "--profile", [&](std::ostream& os) {
    os.precision(12);
    const std::int64_t n = m.ncell();
    if (problem == "sedov") {
      const RadialProfile prof = radial_profile(m, u, gamma);
      os << "r,rho,p\n";
      for (std::size_t i = 0; i < prof.r.size(); ++i) os << prof.r[i] << "," << prof.rho[i] << "," << prof.p[i] << "\n";
      return;
    }
    const int jy = problem == "sod" ? m.cells[1] / 2 : 0, kz = problem == "sod" ? m.cells[2] / 2 : 0;
    os << (problem == "sod" ? "x,rho,u,p\n" : "x,rho,rho_exact\n");
    for (int i = 0; i < m.cells[0]; ++i) {
      const std::int64_t o = m.order.encode(i / 2, jy / 2, kz / 2);
      const std::int64_t g = o * 8 + (i & 1) + 2 * (jy & 1) + 4 * (kz & 1);
      double uc[nvar], q[nvar];
      for (int f = 0; f < nvar; ++f) uc[f] = u[f * n + g];
      cons_to_prim(uc, gamma, q);
      const double x = m.cell_center(0, i);
      if (problem == "sod")
        os << x << "," << q[0] << "," << q[1] << "," << q[4] << "\n";
      else
        os << x << "," << q[0] << "," << w.density(x, m.cell_center(1, jy), m.cell_center(2, kz), t) << "\n";
    }
  });
}

}  // namespace ro
