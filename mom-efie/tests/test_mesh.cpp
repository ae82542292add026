// Geometry: built-in surfaces (counts, vertices on the sphere, closedness), Gmsh readers, the mesh
// checks (InputError), RWG functions (interior edges only, signs).
#include <cmath>
#include <iostream>

#include "copa/errors.hpp"
#include "copa/testing.hpp"
#include "mesh.hpp"
#include "problem.hpp"
#include "setup.hpp"

using namespace efie;

TEST(Mesh, sphere_counts_and_radius) {
  for (int f : {1, 3, 7}) {
    const Mesh m = make_sphere(1.7, f);
    EXPECT_TRUE(long(m.triangles.size()) == 20L * f * f);
    EXPECT_TRUE(long(m.vertices.size()) == 10L * f * f + 2);
    for (const auto& v : m.vertices) COPA_EXPECT_NEAR_REL(norm(v), 1.7, 1e-14);
    const auto s = check_mesh(m);
    EXPECT_TRUE(s.closed);
    EXPECT_TRUE(long(s.interior_edges) == 30L * f * f);
    EXPECT_TRUE(long(build_rwg(m).size()) == 30L * f * f);
  }
  EXPECT_TRUE(sphere_frequency_for_unknowns(1500) == 7);
  EXPECT_TRUE(sphere_frequency_for_unknowns(30000) == 32);
}

TEST(Mesh, sphere_edge_length_target) {
  const double h = 0.2;
  const Mesh m = make_sphere(1.0, int(sphere_frequency_for_edge(1.0, h)));
  EXPECT_TRUE(check_mesh(m).mean_edge <= h);
}

TEST(Mesh, cube_and_plate) {
  const Mesh c = make_cube(2.0, 3);
  const auto sc = check_mesh(c);
  EXPECT_TRUE(c.triangles.size() == 6u * 2 * 9);
  EXPECT_TRUE(sc.closed);
  EXPECT_TRUE(sc.interior_edges == 3u * c.triangles.size() / 2);
  const Mesh p = make_plate(1.0, 4);
  const auto sp = check_mesh(p);
  EXPECT_TRUE(!sp.closed);
  EXPECT_TRUE(sp.boundary_edges == 16u);
  EXPECT_TRUE(sp.interior_edges == 40u);
  EXPECT_TRUE(build_rwg(p).size() == 40u);
}

TEST(Mesh, rwg_signs_and_free_vertices) {
  const Problem pr = make_problem(make_sphere(1.0, 2), 1.0, 1.0, PlaneWave{});
  for (std::size_t n = 0; n < pr.rwg.size(); ++n) {
    const auto& r = pr.rwg[n];
    const Triangle &tp = pr.triangles[r.tri[0]], &tm = pr.triangles[r.tri[1]];
    EXPECT_TRUE(tp.basis[r.local[0]] == int(n) && tm.basis[r.local[1]] == int(n));
    EXPECT_TRUE(tp.coef[r.local[0]] == r.length && tm.coef[r.local[1]] == -r.length);
    // the free vertices are not on the shared edge: the edge has length r.length
    const Vec3 e0 = tp.v[(r.local[0] + 1) % 3], e1 = tp.v[(r.local[0] + 2) % 3];
    COPA_EXPECT_NEAR_REL(norm(e1 - e0), r.length, 1e-15);
  }
  // every triangle pair sharing a vertex is near
  for (const auto& t : pr.triangles)
    for (const auto& s : pr.triangles) {
      bool shared = false;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) shared |= norm(t.v[i] - s.v[j]) == 0;
      if (shared) { EXPECT_TRUE(is_near(t, s)); }
    }
}

TEST(Mesh, gmsh_readers) {
  const Mesh a = read_gmsh(std::string(MOM_TEST_DATA) + "/tetra22.msh");
  const Mesh b = read_gmsh(std::string(MOM_TEST_DATA) + "/tetra41.msh");
  EXPECT_TRUE(a.triangles.size() == 4u && b.triangles.size() == 4u);
  EXPECT_TRUE(a.vertices.size() == 4u && b.vertices.size() == 4u);
  EXPECT_TRUE(check_mesh(a).closed && check_mesh(b).closed);
  for (int t = 0; t < 4; ++t)
    for (int k = 0; k < 3; ++k) EXPECT_TRUE(a.triangles[t][k] == b.triangles[t][k]);
  EXPECT_THROW(read_gmsh(std::string(MOM_TEST_DATA) + "/missing.msh"), copa::InputError);
}

TEST(Mesh, mesh_checks_reject_bad_meshes) {
  for (const char* bad : {"nonmanifold", "orientation", "duplicate", "degenerate"}) {
    const Mesh m = read_gmsh(std::string(MOM_TEST_DATA) + "/" + bad + ".msh");
    EXPECT_THROW(check_mesh(m), copa::InputError);
  }
  Mesh flipped = make_sphere(1.0, 2);
  std::swap(flipped.triangles[5][1], flipped.triangles[5][2]);
  EXPECT_THROW(check_mesh(flipped), copa::InputError);
}

// The size estimate the app refuses problems by (before any mesh exists) is the size of the mesh
// that build_mesh then builds, for every built-in geometry and way of choosing the density; a
// preset at a large ka is refined to about 10 elements per wavelength (the sphere's edge formula
// is approximate: 9.6 at ka = 12, hence the 0.9).
TEST(Mesh, size_estimate_matches_mesh) {
  struct Case {
    const char* geometry;
    double ka, epw, edge;
  };
  for (const Case c : {Case{"sphere", 2, 0, 0}, Case{"sphere", 12, 0, 0}, Case{"sphere", 2, 14, 0}, Case{"cube", 2, 0, 0},
                       Case{"cube", 1, 0, 0.3}, Case{"plate", 2, 0, 0}, Case{"plate", 9, 0, 0}, Case{"plate", 2, 0, 0.25}}) {
    ProblemOptions o;
    o.geometry = c.geometry;
    o.ka = c.ka;
    o.elements_per_wavelength = c.epw;
    o.edge_length = c.edge;
    const double k = wavenumber(o);
    const SizeEstimate e = estimate_size(o, k);
    const Mesh m = build_mesh(o, k);
    const auto s = check_mesh(m);
    EXPECT_TRUE(e.triangles == double(m.triangles.size()));
    EXPECT_TRUE(e.unknowns == double(s.interior_edges));
    std::cout << "  " << c.geometry << " ka " << c.ka << ": " << 2 * M_PI / k / s.mean_edge << " per wavelength\n";
    if (c.epw == 0 && c.edge == 0) { EXPECT_TRUE(2 * M_PI / k / s.mean_edge >= 0.9 * min_elements_per_wavelength); }
  }
}
