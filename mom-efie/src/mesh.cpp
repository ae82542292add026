#include "mesh.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "copa/errors.hpp"

namespace efie {
namespace {

// Flips triangles whose normal points towards the centre (closed convex surfaces only).
void orient_outward(Mesh& m, Vec3 centre) {
  for (auto& t : m.triangles) {
    const Vec3 a = m.vertices[t[0]], b = m.vertices[t[1]], c = m.vertices[t[2]];
    const Vec3 n = cross(b - a, c - a);
    if (dot(n, (1.0 / 3.0) * (a + b + c) - centre) < 0) std::swap(t[1], t[2]);
  }
}

// The 20 faces of the icosahedron with vertices (0, +-1, +-phi) and cyclic permutations:
// the triples of vertices at mutual distance 2.
std::vector<std::array<int, 3>> icosahedron_faces(const std::vector<Vec3>& v) {
  std::vector<std::array<int, 3>> faces;
  auto adjacent = [&](int a, int b) { return std::fabs(norm(v[a] - v[b]) - 2.0) < 1e-9; };
  for (int a = 0; a < 12; ++a)
    for (int b = a + 1; b < 12; ++b)
      for (int c = b + 1; c < 12; ++c)
        if (adjacent(a, b) && adjacent(b, c) && adjacent(a, c)) faces.push_back({a, b, c});
  return faces;
}

}  // namespace

Mesh make_sphere(double radius, int frequency) {
  if (radius <= 0) throw copa::InputError("--radius must be positive");
  if (frequency < 1) throw copa::InputError("sphere subdivision frequency must be at least 1");
  const double phi = 0.5 * (1.0 + std::sqrt(5.0));
  std::vector<Vec3> ico;
  for (double s1 : {-1.0, 1.0})
    for (double s2 : {-1.0, 1.0}) {
      ico.push_back({0, s1, s2 * phi});
      ico.push_back({s1, s2 * phi, 0});
      ico.push_back({s2 * phi, 0, s1});
    }
  const auto faces = icosahedron_faces(ico);
  Mesh m;
  // A subdivision point is sum_c (w_c / f) ico[c] over the face corners with weight w_c > 0; the key
  // (corner, weight) sorted by corner makes points on shared edges identical from either face.
  std::map<std::array<int, 6>, int> index;
  const int f = frequency;
  auto point = [&](const std::array<int, 3>& face, int wa, int wb, int wc) {
    std::array<std::pair<int, int>, 3> cw{{{wa > 0 ? face[0] : -1, wa}, {wb > 0 ? face[1] : -1, wb}, {wc > 0 ? face[2] : -1, wc}}};
    std::sort(cw.begin(), cw.end());
    std::array<int, 6> key{};
    Vec3 p{0, 0, 0};
    for (int i = 0; i < 3; ++i) {
      key[2 * i] = cw[i].first;
      key[2 * i + 1] = cw[i].second;
      if (cw[i].second > 0) p = p + (double(cw[i].second) / f) * ico[cw[i].first];
    }
    auto [it, fresh] = index.emplace(key, int(m.vertices.size()));
    if (fresh) m.vertices.push_back((radius / norm(p)) * p);
    return it->second;
  };
  for (const auto& face : faces)
    for (int i = 0; i < f; ++i)
      for (int j = 0; i + j < f; ++j) {
        // barycentric weights (f-i-j, i, j) on corners (A, B, C)
        const int p00 = point(face, f - i - j, i, j), p10 = point(face, f - i - j - 1, i + 1, j),
                  p01 = point(face, f - i - j - 1, i, j + 1);
        m.triangles.push_back({p00, p10, p01});
        if (i + j + 2 <= f) {
          const int p11 = point(face, f - i - j - 2, i + 1, j + 1);
          m.triangles.push_back({p10, p11, p01});
        }
      }
  orient_outward(m, {0, 0, 0});
  return m;
}

// The icosahedron inscribed in a sphere of radius a has edge a / sin(2 pi / 5) = 1.0515 a; the
// geodesic edges after projection are on average about 1.08 times the chord divided by f.
double sphere_frequency_for_edge(double radius, double edge_length) {
  if (edge_length <= 0) throw copa::InputError("--edge-length must be positive");
  const double chord = radius / std::sin(2.0 * M_PI / 5.0);
  return std::max(1.0, std::ceil(1.08 * chord / edge_length));
}

int sphere_frequency_for_unknowns(long target) {
  return std::max(1, int(std::lround(std::sqrt(double(target) / 30.0))));
}

Mesh make_cube(double side, int divisions) {
  if (side <= 0) throw copa::InputError("--radius (cube half side) must be positive");
  if (divisions < 1) throw copa::InputError("cube divisions must be at least 1");
  const int n = divisions;
  Mesh m;
  std::map<std::tuple<int, int, int>, int> index;
  auto vertex = [&](int i, int j, int k) {
    auto [it, fresh] = index.emplace(std::make_tuple(i, j, k), int(m.vertices.size()));
    if (fresh) m.vertices.push_back({side * (double(i) / n - 0.5), side * (double(j) / n - 0.5), side * (double(k) / n - 0.5)});
    return it->second;
  };
  for (int axis = 0; axis < 3; ++axis)
    for (int fixed : {0, n})
      for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
          auto v = [&](int u, int w) {
            int c[3];
            c[axis] = fixed;
            c[(axis + 1) % 3] = u;
            c[(axis + 2) % 3] = w;
            return vertex(c[0], c[1], c[2]);
          };
          const int v00 = v(a, b), v10 = v(a + 1, b), v01 = v(a, b + 1), v11 = v(a + 1, b + 1);
          m.triangles.push_back({v00, v10, v11});
          m.triangles.push_back({v00, v11, v01});
        }
  orient_outward(m, {0, 0, 0});
  return m;
}

Mesh make_plate(double side, int divisions) {
  if (side <= 0) throw copa::InputError("--radius (plate half side) must be positive");
  if (divisions < 1) throw copa::InputError("plate divisions must be at least 1");
  const int n = divisions;
  Mesh m;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) m.vertices.push_back({side * (double(i) / n - 0.5), side * (double(j) / n - 0.5), 0});
  auto id = [&](int i, int j) { return j * (n + 1) + i; };
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      m.triangles.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      m.triangles.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  return m;
}

namespace {

[[noreturn]] void bad_mesh(const std::string& path, const std::string& why) {
  throw copa::InputError("--mesh " + path + ": " + why);
}

void skip_to(std::istream& in, const std::string& section, const std::string& path) {
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(section, 0) == 0) return;
  bad_mesh(path, "section " + section + " not found");
}

// After the entries a section's count announced, the section must end: a count smaller than the
// entries present would silently drop the rest.
void expect_end(std::istream& in, const std::string& section, const std::string& path) {
  const std::string end = "$End" + section.substr(1);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.rfind(end, 0) == 0) return;
    bad_mesh(path, section + ": more entries than its count says (" + line + ")");
  }
  bad_mesh(path, end + " not found");
}

// The next element line; the section's end before it means the count exceeds the lines present.
std::string element_line(std::istream& in, const std::string& path) {
  std::string line;
  if (!std::getline(in, line)) bad_mesh(path, "truncated $Elements");
  if (line.rfind("$End", 0) == 0) bad_mesh(path, "$Elements: fewer element lines than its count says");
  return line;
}

// A node's three coordinates: a value that is no number or not finite is named as such (a NaN
// read by operator>> would otherwise look like the end of the section).
Vec3 node_coordinates(std::istream& in, const std::string& path, long tag) {
  double c[3];
  for (double& x : c) {
    std::string word;
    if (!(in >> word)) bad_mesh(path, "truncated $Nodes");
    char* end = nullptr;
    x = std::strtod(word.c_str(), &end);
    if (end == word.c_str() || *end != '\0')
      bad_mesh(path, "$Nodes: node " + std::to_string(tag) + " has a coordinate '" + word + "' that is not a number");
    if (!std::isfinite(x))
      bad_mesh(path, "$Nodes: node " + std::to_string(tag) + " has a coordinate '" + word + "' that is not finite");
  }
  return {c[0], c[1], c[2]};
}

// The three node tags left on a triangle's line, as vertex indices.
std::array<int, 3> triangle_nodes(std::istream& ls, const std::unordered_map<long, int>& node, const std::string& path,
                                  const std::string& line) {
  std::array<int, 3> tri{};
  for (int k = 0; k < 3; ++k) {
    long nt;
    if (!(ls >> nt) || !node.count(nt)) bad_mesh(path, "triangle refers to an unknown node: " + line);
    tri[k] = node.at(nt);
  }
  return tri;
}

Mesh read_gmsh22(std::istream& in, const std::string& path) {
  Mesh m;
  std::unordered_map<long, int> node;
  skip_to(in, "$Nodes", path);
  long count = 0;
  if (!(in >> count) || count <= 0) bad_mesh(path, "bad $Nodes count");
  for (long i = 0; i < count; ++i) {
    long tag;
    if (!(in >> tag)) bad_mesh(path, "truncated $Nodes");
    const Vec3 p = node_coordinates(in, path, tag);
    node[tag] = int(m.vertices.size());
    m.vertices.push_back(p);
  }
  expect_end(in, "$Nodes", path);
  skip_to(in, "$Elements", path);
  if (!(in >> count) || count <= 0) bad_mesh(path, "bad $Elements count");
  std::string line;
  std::getline(in, line);
  for (long e = 0; e < count; ++e) {
    line = element_line(in, path);
    std::istringstream ls(line);
    long tag, type, ntags;
    if (!(ls >> tag >> type >> ntags)) bad_mesh(path, "bad element line: " + line);
    if (ntags < 0) bad_mesh(path, "bad element line: " + line);
    for (long t = 0; t < ntags; ++t)
      if (!(ls >> tag)) bad_mesh(path, "bad element line (fewer tags than it says): " + line);
    if (type == 2) m.triangles.push_back(triangle_nodes(ls, node, path, line));
  }
  expect_end(in, "$Elements", path);
  return m;
}

Mesh read_gmsh41(std::istream& in, const std::string& path) {
  Mesh m;
  std::unordered_map<long, int> node;
  skip_to(in, "$Nodes", path);
  long blocks, count, minTag, maxTag;
  if (!(in >> blocks >> count >> minTag >> maxTag)) bad_mesh(path, "bad $Nodes header");
  long listed = 0;
  for (long b = 0; b < blocks; ++b) {
    long dim, entity, parametric, n;
    if (!(in >> dim >> entity >> parametric >> n)) bad_mesh(path, "bad node block");
    if (parametric) bad_mesh(path, "parametric nodes are not supported");
    if (n < 0 || (listed += n) > count) bad_mesh(path, "$Nodes: the blocks hold more nodes than its count says");
    std::vector<long> tags;  // grown as read: the count is the file's word, not memory to reserve
    for (long i = 0; i < n; ++i) {
      long t;
      if (!(in >> t)) bad_mesh(path, "truncated $Nodes");
      tags.push_back(t);
    }
    for (long i = 0; i < n; ++i) {
      const Vec3 p = node_coordinates(in, path, tags[i]);
      node[tags[i]] = int(m.vertices.size());
      m.vertices.push_back(p);
    }
  }
  if (listed != count) bad_mesh(path, "$Nodes: the blocks hold fewer nodes than its count says");
  expect_end(in, "$Nodes", path);
  skip_to(in, "$Elements", path);
  if (!(in >> blocks >> count >> minTag >> maxTag)) bad_mesh(path, "bad $Elements header");
  listed = 0;
  for (long b = 0; b < blocks; ++b) {
    long dim, entity, type, n;
    if (!(in >> dim >> entity >> type >> n)) bad_mesh(path, "bad element block");
    if (n < 0 || (listed += n) > count) bad_mesh(path, "$Elements: the blocks hold more elements than its count says");
    std::string line;
    std::getline(in, line);
    for (long e = 0; e < n; ++e) {
      line = element_line(in, path);
      if (type != 2) continue;
      std::istringstream ls(line);
      long tag;
      ls >> tag;
      m.triangles.push_back(triangle_nodes(ls, node, path, line));
    }
  }
  if (listed != count) bad_mesh(path, "$Elements: the blocks hold fewer elements than its count says");
  expect_end(in, "$Elements", path);
  return m;
}

}  // namespace

Mesh read_gmsh(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) bad_mesh(path, "is a directory, not a Gmsh file");
  std::ifstream in(path);
  if (!in) bad_mesh(path, "cannot open the file");
  skip_to(in, "$MeshFormat", path);
  double version;
  int file_type, data_size;
  if (!(in >> version >> file_type >> data_size)) bad_mesh(path, "bad $MeshFormat");
  if (file_type != 0) bad_mesh(path, "only ASCII Gmsh files are supported");
  Mesh m;
  if (version >= 2.0 && version < 3.0)
    m = read_gmsh22(in, path);
  else if (version >= 4.0 && version < 5.0)
    m = read_gmsh41(in, path);
  else
    bad_mesh(path, "unsupported Gmsh format version " + std::to_string(version) + " (2.2 or 4.1)");
  if (m.triangles.empty()) bad_mesh(path, "no triangles (element type 2)");
  return m;
}

MeshSummary check_mesh(const Mesh& mesh) {
  if (mesh.triangles.empty()) throw copa::InputError("mesh: no triangles");
  const int nv = int(mesh.vertices.size());
  double max_edge = 0, min_edge = 1e300, sum_edge = 0;
  std::size_t edge_count = 0;
  for (const auto& t : mesh.triangles)
    for (int k = 0; k < 3; ++k) {
      if (t[k] < 0 || t[k] >= nv) throw copa::InputError("mesh: a triangle refers to vertex " + std::to_string(t[k]) + " out of range");
      const double l = norm(mesh.vertices[t[(k + 1) % 3]] - mesh.vertices[t[k]]);
      max_edge = std::max(max_edge, l);
      min_edge = std::min(min_edge, l);
    }
  std::map<std::array<int, 3>, std::size_t> seen;
  // edge (min, max) -> list of (triangle, traversed from min to max?)
  std::map<std::pair<int, int>, std::vector<std::pair<std::size_t, bool>>> edges;
  for (std::size_t i = 0; i < mesh.triangles.size(); ++i) {
    const auto& t = mesh.triangles[i];
    const Vec3 a = mesh.vertices[t[0]], b = mesh.vertices[t[1]], c = mesh.vertices[t[2]];
    const double area = 0.5 * norm(cross(b - a, c - a));
    if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2] || area <= 1e-12 * max_edge * max_edge)
      throw copa::InputError("mesh: triangle " + std::to_string(i) + " is degenerate (zero area)");
    auto key = t;
    std::sort(key.begin(), key.end());
    auto [it, fresh] = seen.emplace(key, i);
    if (!fresh)
      throw copa::InputError("mesh: triangles " + std::to_string(it->second) + " and " + std::to_string(i) + " are duplicates");
    for (int k = 0; k < 3; ++k) {
      const int u = t[k], v = t[(k + 1) % 3];
      edges[{std::min(u, v), std::max(u, v)}].push_back({i, u < v});
    }
  }
  MeshSummary s;
  for (const auto& [e, tris] : edges) {
    const double l = norm(mesh.vertices[e.second] - mesh.vertices[e.first]);
    sum_edge += l;
    ++edge_count;
    if (tris.size() > 2)
      throw copa::InputError("mesh: edge (" + std::to_string(e.first) + ", " + std::to_string(e.second) + ") is non-manifold (" +
                             std::to_string(tris.size()) + " triangles)");
    if (tris.size() == 2) {
      if (tris[0].second == tris[1].second)
        throw copa::InputError("mesh: inconsistent orientation: triangles " + std::to_string(tris[0].first) + " and " +
                               std::to_string(tris[1].first) + " traverse their shared edge in the same direction");
      ++s.interior_edges;
    } else {
      ++s.boundary_edges;
    }
  }
  s.closed = s.boundary_edges == 0;
  s.min_edge = min_edge;
  s.max_edge = max_edge;
  s.mean_edge = sum_edge / double(edge_count);
  if (s.interior_edges == 0) throw copa::InputError("mesh: no interior edge, so no RWG function");
  return s;
}

std::vector<Rwg> build_rwg(const Mesh& mesh) {
  std::map<std::pair<int, int>, int> edge_index;
  std::vector<Rwg> rwg;
  std::vector<std::array<int, 2>> slots;  // (triangle, local vertex) of each edge's first triangle
  for (std::size_t i = 0; i < mesh.triangles.size(); ++i) {
    const auto& t = mesh.triangles[i];
    for (int k = 0; k < 3; ++k) {
      // edge opposite vertex k
      const int u = t[(k + 1) % 3], v = t[(k + 2) % 3];
      const auto key = std::make_pair(std::min(u, v), std::max(u, v));
      auto [it, fresh] = edge_index.emplace(key, int(slots.size()));
      if (fresh) {
        slots.push_back({int(i), k});
      } else {
        Rwg r;
        r.tri[0] = slots[it->second][0];
        r.local[0] = slots[it->second][1];
        r.tri[1] = int(i);
        r.local[1] = k;
        r.length = norm(mesh.vertices[v] - mesh.vertices[u]);
        rwg.push_back(r);
      }
    }
  }
  return rwg;
}

}  // namespace efie
