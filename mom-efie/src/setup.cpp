#include "setup.hpp"

#include <cmath>
#include <sstream>

#include "copa/errors.hpp"

namespace efie {
namespace {

// The comma-separated numbers of an option's value; InputError "<option> '<text>': <bad>" when an
// item is not a number.
std::vector<double> parse_numbers(const std::string& text, const std::string& option, const std::string& bad) {
  std::vector<double> v;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      std::size_t used = 0;
      v.push_back(std::stod(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw copa::InputError(option + " '" + text + "': " + bad);
    }
  }
  return v;
}

std::vector<double> parse_list(const std::string& text, std::size_t count, const std::string& option) {
  const std::vector<double> v = parse_numbers(text, option, "not a comma-separated list of numbers");
  if (v.size() != count) throw copa::InputError(option + " '" + text + "': expected " + std::to_string(count) + " numbers");
  return v;
}

constexpr double speed_of_light = 299792458.0;

}  // namespace

long size_target_unknowns(const std::string& size) {
  if (size == "small") return 1500;
  if (size == "medium") return 10000;
  if (size == "large") return 30000;
  throw copa::InputError("--size '" + size + "': expected small, medium or large");
}

double wavenumber(const ProblemOptions& o) {
  if (o.radius <= 0) throw copa::InputError("--radius must be positive");
  if (o.ka > 0 && o.frequency > 0) throw copa::InputError("--ka and --frequency are exclusive");
  if (o.ka < 0) throw copa::InputError("--ka must be positive");
  if (o.frequency < 0) throw copa::InputError("--frequency must be positive");
  if (o.frequency > 0) return 2 * M_PI * o.frequency / speed_of_light;
  return (o.ka > 0 ? o.ka : 2.0) / o.radius;
}

PlaneWave plane_wave(const ProblemOptions& o) {
  const auto ang = parse_list(o.incidence, 2, "--incidence");
  const double th = ang[0] * M_PI / 180, ph = ang[1] * M_PI / 180;
  PlaneWave w;
  w.direction = {std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), std::cos(th)};
  if (o.polarisation.empty()) {
    w.polarisation = {std::cos(th) * std::cos(ph), std::cos(th) * std::sin(ph), -std::sin(th)};  // theta_hat
  } else {
    const auto e = parse_list(o.polarisation, 3, "--polarisation");
    w.polarisation = {e[0], e[1], e[2]};
  }
  return w;
}

namespace {

// The target mean edge: --edge-length or --elements-per-wavelength, else 0 (the --size preset).
double requested_edge(const ProblemOptions& o, double k) {
  if (o.elements_per_wavelength < 0) throw copa::InputError("--elements-per-wavelength must be positive");
  if (o.edge_length < 0) throw copa::InputError("--edge-length must be positive");
  if (o.elements_per_wavelength > 0 && o.edge_length > 0)
    throw copa::InputError("--elements-per-wavelength and --edge-length are exclusive");
  if (o.elements_per_wavelength > 0) return 2 * M_PI / k / o.elements_per_wavelength;
  return o.edge_length;
}

// Divisions of the built-in geometry: the sphere's frequency f (20 f^2 triangles) or the cube's
// and plate's squares per side m. A --size preset is refined to min_elements_per_wavelength.
double divisions(const ProblemOptions& o, double k) {
  const double h = requested_edge(o, k), lambda_edge = 2 * M_PI / k / min_elements_per_wavelength;
  const long target = size_target_unknowns(o.size);
  const double side = 2 * o.radius;
  if (o.geometry == "sphere") {
    if (h > 0) return sphere_frequency_for_edge(o.radius, h);
    return std::max(double(sphere_frequency_for_unknowns(target)), sphere_frequency_for_edge(o.radius, lambda_edge));
  }
  // Squares of side s cut by one diagonal: edges s, s and s sqrt 2 per square, mean (2 + sqrt 2)/3 s.
  const double square_edges = std::ceil((2 + std::sqrt(2.0)) / 3 * side / lambda_edge);
  if (o.geometry == "cube") {
    if (h > 0) return std::ceil(side / h);
    return std::max(std::max(1.0, std::round(std::sqrt(target / 18.0))), square_edges);
  }
  if (o.geometry == "plate") {
    if (h > 0) return std::ceil(side / h);
    return std::max(std::max(1.0, std::round(std::sqrt(target / 3.0))), square_edges);
  }
  throw copa::InputError("--geometry '" + o.geometry + "': expected sphere, cube or plate");
}

}  // namespace

Mesh build_mesh(const ProblemOptions& o, double k) {
  if (!o.mesh_file.empty()) return read_gmsh(o.mesh_file);
  const int d = int(divisions(o, k));
  if (o.geometry == "sphere") return make_sphere(o.radius, d);
  if (o.geometry == "cube") return make_cube(2 * o.radius, d);
  return make_plate(2 * o.radius, d);
}

SizeEstimate estimate_size(const ProblemOptions& o, double k) {
  SizeEstimate e;
  if (!o.mesh_file.empty()) {
    // Every interior edge is shared by two triangles: at most 3/2 unknowns per triangle.
    e.triangles = double(read_gmsh(o.mesh_file).triangles.size());
    e.unknowns = 1.5 * e.triangles;
    return e;
  }
  const double d = divisions(o, k);
  if (o.geometry == "sphere") {
    e.triangles = 20 * d * d;
    e.unknowns = 30 * d * d;
  } else if (o.geometry == "cube") {
    e.triangles = 12 * d * d;
    e.unknowns = 18 * d * d;
  } else {
    e.triangles = 2 * d * d;
    e.unknowns = 3 * d * d - 2 * d;  // the 4 d boundary edges carry none
  }
  return e;
}

double sphere_radius_for_mie(const ProblemOptions& o, const Problem& p, std::string& why_not) {
  if (o.mesh_file.empty()) {
    if (o.geometry == "sphere") return o.radius;
    why_not = "not a sphere";
    return 0.0;
  }
  const Mesh& m = p.mesh;
  if (!p.summary.closed) {
    why_not = "the mesh is not a sphere: it is open (" + std::to_string(p.summary.boundary_edges) + " boundary edges)";
    return 0.0;
  }
  // Connected pieces: union-find over the vertices, joined along the triangles' edges.
  std::vector<int> parent(m.vertices.size());
  for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = int(i);
  auto root = [&](int v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (const auto& t : m.triangles)
    for (int k = 1; k < 3; ++k) parent[root(t[k])] = root(t[0]);
  std::vector<char> used(m.vertices.size(), 0);
  for (const auto& t : m.triangles)
    for (int v : t) used[v] = 1;
  long pieces = 0;
  for (std::size_t v = 0; v < used.size(); ++v) pieces += used[v] && root(int(v)) == int(v);
  if (pieces != 1) {
    why_not = "the mesh is not a sphere: " + std::to_string(pieces) + " separate surfaces";
    return 0.0;
  }
  double lo = 1e300, hi = 0;
  for (std::size_t v = 0; v < used.size(); ++v) {
    if (!used[v]) continue;
    const double r = norm(m.vertices[v]);
    lo = std::min(lo, r);
    hi = std::max(hi, r);
  }
  if (!(hi > 0 && hi - lo <= 1e-6 * hi)) {
    std::ostringstream os;
    os << "the mesh is not a sphere: vertex distances from the origin span [" << lo << ", " << hi
       << "], beyond the 1e-6 relative tolerance";
    why_not = os.str();
    return 0.0;
  }
  return 0.5 * (lo + hi);
}

std::complex<double> parse_complex(const std::string& text, const std::string& option) {
  const std::vector<double> v = parse_numbers(text, option, "expected a number or re,im");
  if (v.empty() || v.size() > 2) throw copa::InputError(option + " '" + text + "': expected a number or re,im");
  return {v[0], v.size() == 2 ? v[1] : 0.0};
}

}  // namespace efie
