#include "setup.hpp"

#include <cmath>
#include <sstream>

#include "copa/errors.hpp"

namespace efie {
namespace {

std::vector<double> parse_list(const std::string& text, std::size_t count, const std::string& option) {
  std::vector<double> v;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      std::size_t used = 0;
      v.push_back(std::stod(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw copa::InputError(option + " '" + text + "': not a comma-separated list of numbers");
    }
  }
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

Mesh build_mesh(const ProblemOptions& o, double k) {
  if (!o.mesh_file.empty()) return read_gmsh(o.mesh_file);
  if (o.elements_per_wavelength < 0) throw copa::InputError("--elements-per-wavelength must be positive");
  if (o.edge_length < 0) throw copa::InputError("--edge-length must be positive");
  if (o.elements_per_wavelength > 0 && o.edge_length > 0)
    throw copa::InputError("--elements-per-wavelength and --edge-length are exclusive");
  double h = o.edge_length;
  if (o.elements_per_wavelength > 0) h = 2 * M_PI / k / o.elements_per_wavelength;
  const long target = size_target_unknowns(o.size);
  const double side = 2 * o.radius;
  if (o.geometry == "sphere") {
    const int f = h > 0 ? sphere_frequency_for_edge(o.radius, h) : sphere_frequency_for_unknowns(target);
    return make_sphere(o.radius, f);
  }
  if (o.geometry == "cube") {
    const int m = h > 0 ? int(std::ceil(side / h)) : std::max(1, int(std::lround(std::sqrt(target / 18.0))));
    return make_cube(side, m);
  }
  if (o.geometry == "plate") {
    const int m = h > 0 ? int(std::ceil(side / h)) : std::max(1, int(std::lround(std::sqrt(target / 3.0))));
    return make_plate(side, m);
  }
  throw copa::InputError("--geometry '" + o.geometry + "': expected sphere, cube or plate");
}

double sphere_radius_of(const Mesh& m) {
  double lo = 1e300, hi = 0;
  for (const auto& v : m.vertices) {
    const double r = norm(v);
    lo = std::min(lo, r);
    hi = std::max(hi, r);
  }
  return hi > 0 && hi - lo <= 1e-6 * hi ? 0.5 * (lo + hi) : 0.0;
}

}  // namespace efie
