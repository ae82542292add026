#include "problem.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "copa/errors.hpp"
#include "copa/output.hpp"
#include "far_field.hpp"

namespace efie {
namespace {

std::vector<Triangle> triangle_data(const Mesh& mesh, const std::vector<Rwg>& rwg) {
  std::vector<Triangle> tris(mesh.triangles.size());
  for (std::size_t t = 0; t < tris.size(); ++t) {
    Triangle& d = tris[t];
    for (int i = 0; i < 3; ++i) {
      d.v[i] = mesh.vertices[mesh.triangles[t][i]];
      d.coef[i] = 0;
      d.basis[i] = -1;
    }
    d.centroid = (1.0 / 3.0) * (d.v[0] + d.v[1] + d.v[2]);
    d.diameter = std::max({norm(d.v[1] - d.v[0]), norm(d.v[2] - d.v[1]), norm(d.v[0] - d.v[2])});
  }
  for (std::size_t n = 0; n < rwg.size(); ++n)
    for (int s = 0; s < 2; ++s) {
      Triangle& d = tris[rwg[n].tri[s]];
      d.basis[rwg[n].local[s]] = int(n);
      d.coef[rwg[n].local[s]] = s == 0 ? rwg[n].length : -rwg[n].length;
    }
  return tris;
}

// Near pairs by a uniform grid of cell 2 x the largest diameter: is_near pairs are at most one cell apart.
void near_list(Problem& p) {
  const auto& tris = p.triangles;
  double dmax = 0;
  for (const auto& t : tris) dmax = std::max(dmax, t.diameter);
  const double cell = near_factor * dmax;
  auto cell_of = [&](Vec3 c) {
    return std::array<long, 3>{long(std::floor(c.x / cell)), long(std::floor(c.y / cell)), long(std::floor(c.z / cell))};
  };
  auto key = [](long i, long j, long k) { return (i * 73856093L) ^ (j * 19349663L) ^ (k * 83492791L); };
  std::unordered_map<long, std::vector<int>> grid;
  for (std::size_t t = 0; t < tris.size(); ++t) {
    const auto c = cell_of(tris[t].centroid);
    grid[key(c[0], c[1], c[2])].push_back(int(t));
  }
  p.near_offsets.assign(tris.size() + 1, 0);
  std::vector<int> row;
  for (std::size_t t = 0; t < tris.size(); ++t) {
    const auto c = cell_of(tris[t].centroid);
    row.clear();
    for (long i = -1; i <= 1; ++i)
      for (long j = -1; j <= 1; ++j)
        for (long k = -1; k <= 1; ++k) {
          auto it = grid.find(key(c[0] + i, c[1] + j, c[2] + k));
          if (it == grid.end()) continue;
          for (int s : it->second)
            if (is_near(tris[t], tris[s])) row.push_back(s);
        }
    // hash collisions may visit a cell twice
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (int s : row) p.near_pairs.push_back({int(t), s});
    p.near_offsets[t + 1] = int(p.near_pairs.size());
  }
}

}  // namespace

Problem make_problem(Mesh mesh, double k, double radius, PlaneWave wave) {
  if (!(k > 0)) throw copa::InputError("--ka / --frequency must give a positive wavenumber");
  const double dn = norm(wave.direction), en = norm(wave.polarisation);
  if (dn == 0 || en == 0) throw copa::InputError("--incidence / --polarisation must be non-zero");
  wave.direction = (1.0 / dn) * wave.direction;
  wave.polarisation = (1.0 / en) * wave.polarisation;
  if (std::fabs(dot(wave.direction, wave.polarisation)) > 1e-9)
    throw copa::InputError("--polarisation must be orthogonal to the incidence direction");
  Problem p;
  p.k = k;
  p.radius = radius;
  p.wave = wave;
  p.summary = check_mesh(mesh);
  p.rwg = build_rwg(mesh);
  p.triangles = triangle_data(mesh, p.rwg);
  p.mesh = std::move(mesh);
  near_list(p);
  return p;
}

std::vector<complex> plane_wave_rhs(const Problem& p) {
  std::vector<complex> v(p.rwg.size(), 0.0);
  const Vec3 e = p.wave.polarisation;
  tested_plane_wave(p, [&](const Triangle& t, int i, double s, const Vec3& d, complex phase) { v[t.basis[i]] += s * dot(d, e) * phase; });
  return v;
}

std::vector<complex> plane_wave_rhs_mfie(const Problem& p) {
  std::vector<complex> v(p.rwg.size(), 0.0);
  const Vec3 h = cross(p.wave.direction, p.wave.polarisation);
  // The field n x H varies per triangle: n x h is computed at its first test point, kept for the rest.
  const Triangle* last = nullptr;
  Vec3 n_x_h{0, 0, 0};
  tested_plane_wave(p, [&](const Triangle& t, int i, double s, const Vec3& d, complex phase) {
    if (&t != last) {
      const Vec3 nn = cross(t.v[1] - t.v[0], t.v[2] - t.v[0]);
      n_x_h = cross((1.0 / norm(nn)) * nn, h);
      last = &t;
    }
    v[t.basis[i]] += s * dot(d, n_x_h) * phase;
  });
  return v;
}

std::vector<complex> excitation(const Problem& p, double alpha) {
  if (alpha == 1) return plane_wave_rhs(p);
  if (alpha == 0) return plane_wave_rhs_mfie(p);
  auto v = plane_wave_rhs(p);
  const auto h = plane_wave_rhs_mfie(p);
  for (std::size_t m = 0; m < v.size(); ++m) v[m] = alpha * v[m] + (1 - alpha) * h[m];
  return v;
}

double signed_volume6(const Mesh& m) {
  double v = 0;
  for (const auto& t : m.triangles) v += dot(m.vertices[t[0]], cross(m.vertices[t[1]], m.vertices[t[2]]));
  return v;
}

RcsCuts bistatic_rcs(const Problem& p, const std::vector<complex>& x, int samples) {
  return far_field_cuts(p, source_moments(p, x, false), std::pow(p.k, 4) / (4 * M_PI), samples);
}

void write_rcs_csv(const std::string& path, const RcsCuts& cuts) {
  copa::write_output(path, "--rcs", [&](std::ostream& out) {
    out.precision(10);
    out << "theta_deg,sigma_E_over_pia2,sigma_H_over_pia2\n";
    for (std::size_t i = 0; i < cuts.theta_deg.size(); ++i)
      out << cuts.theta_deg[i] << "," << cuts.e_plane[i] << "," << cuts.h_plane[i] << "\n";
  });
}

}  // namespace efie
