#include "vtk_output.hpp"

namespace mps {

void write_particles_vtk(const std::string& path, const Particles& ps, const std::vector<double>& n, bool flow,
                         copa::vtk::Encoding encoding) {
  const std::size_t N = ps.size();
  copa::vtk::PolyData cloud;
  cloud.points.resize(3 * N);
  copa::vtk::Array type{"type", 1, std::vector<double>(N)}, id{"id", 1, std::vector<double>(N)};
  for (std::size_t i = 0; i < N; ++i) {
    cloud.points[3 * i] = ps.x[i];
    cloud.points[3 * i + 1] = ps.y[i];
    cloud.points[3 * i + 2] = ps.z[i];
    type.values[i] = ps.type[i];
    id.values[i] = static_cast<double>(i);
  }
  cloud.point_data.push_back({"number_density", 1, n});
  cloud.point_data.push_back(std::move(type));
  cloud.point_data.push_back(std::move(id));
  if (flow) {
    copa::vtk::Array velocity{"velocity", 3, std::vector<double>(3 * N)};
    for (std::size_t i = 0; i < N; ++i) {
      velocity.values[3 * i] = ps.u[i];
      velocity.values[3 * i + 1] = ps.v[i];
      velocity.values[3 * i + 2] = ps.w[i];
    }
    cloud.point_data.push_back(std::move(velocity));
    cloud.point_data.push_back({"pressure", 1, ps.p});
  }
  copa::vtk::write(path, cloud, encoding);
}

}  // namespace mps
