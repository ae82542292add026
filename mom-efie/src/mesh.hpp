// Triangulated surfaces: built-in PEC sphere (geodesic icosahedron, vertices on the exact sphere),
// cube and square plate, Gmsh ASCII readers (2.2 and 4.1), the mesh checks (exit 2 on bad input)
// and the RWG functions on interior edges.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "math.hpp"

namespace efie {

struct Mesh {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 3>> triangles;  // counter-clockwise seen from outside
};

// Geodesic sphere: every icosahedron face split into frequency^2 triangles, vertices projected
// onto the sphere. 20 f^2 triangles, 30 f^2 edges (= RWG unknowns), 10 f^2 + 2 vertices.
Mesh make_sphere(double radius, int frequency);
// Smallest frequency whose mean edge is at most edge_length (a double: a tiny edge exceeds int).
double sphere_frequency_for_edge(double radius, double edge_length);
// Frequency whose unknown count 30 f^2 is nearest to the target.
int sphere_frequency_for_unknowns(long target);

// Cube of the given side centred at the origin, divisions x divisions squares per face.
Mesh make_cube(double side, int divisions);
// Open square plate in z = 0 (boundary edges carry no RWG function).
Mesh make_plate(double side, int divisions);

// Gmsh ASCII, format 2.2 or 4.1: the triangles (element type 2); other elements are ignored.
Mesh read_gmsh(const std::string& path);

struct MeshSummary {
  std::size_t interior_edges = 0, boundary_edges = 0;
  bool closed = false;
  double min_edge = 0, max_edge = 0, mean_edge = 0;
};
// Throws InputError (exit 2) for degenerate or duplicate triangles, vertex indices out of range,
// non-manifold edges (more than two triangles) and inconsistent orientation (an edge traversed
// in the same direction by its two triangles).
MeshSummary check_mesh(const Mesh& mesh);

// One RWG function: the edge shared by triangles tri[0] (T+) and tri[1] (T-); local[s] is the
// index (0..2) of the free vertex (opposite the edge) in tri[s].
struct Rwg {
  int tri[2];
  int local[2];
  double length;
};
// RWG functions on the interior edges, numbered when their second triangle appears in the list (so that
// neighbouring triangles have neighbouring unknowns).
std::vector<Rwg> build_rwg(const Mesh& mesh);

}  // namespace efie
