// One scattering problem: mesh, RWG unknowns, the per-triangle data the fill kernels read, the
// near-pair list (the pairs that need singularity extraction), and the plane-wave excitation.
#pragma once
#include <array>
#include <complex>
#include <string>
#include <vector>

#include "efie_pair.hpp"
#include "mesh.hpp"

namespace efie {

using complex = std::complex<double>;

struct PlaneWave {
  Vec3 direction{0, 0, 1};     // unit propagation direction k_hat
  Vec3 polarisation{1, 0, 0};  // unit E direction, orthogonal to k_hat
};

struct Problem {
  double k = 1;       // wavenumber
  double radius = 1;  // for sigma / (pi a^2)
  Mesh mesh;
  MeshSummary summary;
  std::vector<Rwg> rwg;
  std::vector<Triangle> triangles;
  std::vector<std::array<int, 2>> near_pairs;  // (test, source), sorted by test, self pairs included
  std::vector<int> near_offsets;               // CSR: near_pairs[near_offsets[t] .. near_offsets[t+1]) have test t
  PlaneWave wave;

  long unknowns() const { return long(rwg.size()); }
  long triangle_count() const { return long(triangles.size()); }
  double near_fraction() const {
    return double(near_pairs.size()) / (double(triangles.size()) * double(triangles.size()));
  }
};

// Checks the mesh (InputError on bad meshes) and builds the RWG functions, triangle data and near list.
Problem make_problem(Mesh mesh, double k, double radius, PlaneWave wave);

// The plane wave tested with every RWG half by the 3-point test rule: for each triangle t, test
// point r (weight w) and edge i that carries a basis, add(t, i, s, d, phase) with s = c_i w / 2,
// d = r - v_i and phase = exp(-j k k_hat.r); a field F exp(-j k k_hat.r) adds s (d.F) phase to
// basis t.basis[i] (f_i(r) = c_i d / (2A), the rule's weights summing to 1 over the area).
template <class Add>
void tested_plane_wave(const Problem& p, Add add) {
  const Vec3 kh = p.wave.direction;
  for (const auto& t : p.triangles)
    for (int q = 0; q < test_points; ++q) {
      Vec3 r;
      double w;
      test_rule(q, t.v[0], t.v[1], t.v[2], r, w);
      const complex phase = std::exp(complex(0, -p.k * dot(kh, r)));
      for (int i = 0; i < 3; ++i)
        if (t.basis[i] >= 0) add(t, i, 0.5 * t.coef[i] * w, r - t.v[i], phase);
    }
}

// Right-hand side V_m = int f_m . E_inc by the 3-point test rule, E_inc = e exp(-j k k_hat.r).
std::vector<complex> plane_wave_rhs(const Problem& p);

// Right-hand side of the MFIE for the unknowns x of the EFIE (kernels.hpp, Formulation):
// <f_m, n x eta H_inc> = int f_m . n x (k_hat x e) exp(-j k k_hat.r), by the same test rule.
std::vector<complex> plane_wave_rhs_mfie(const Problem& p);
// The right-hand side of C = alpha A - j k (1 - alpha) M: alpha V_E + (1 - alpha) V_H.
std::vector<complex> excitation(const Problem& p, double alpha);
// 6 x the volume enclosed by the surface (positive when the normals point outwards).
double signed_volume6(const Mesh& m);

// Bistatic cuts relative to the incidence: E-plane (k_hat, e) and H-plane (k_hat, k_hat x e), theta
// measured from k_hat (theta = 180 deg is the monostatic direction). sigma / (pi a^2) of the current
// I = (k / (j eta)) x, where A x = V.
struct RcsCuts {
  std::vector<double> theta_deg, e_plane, h_plane;
};
RcsCuts bistatic_rcs(const Problem& p, const std::vector<complex>& x, int samples = 181);
void write_rcs_csv(const std::string& path, const RcsCuts& cuts);

}  // namespace efie
