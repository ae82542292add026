#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "copa/errors.hpp"
#include "geometry.hpp"

namespace mps {

LatticeConstants lattice_constants(int dim, double re) {
  LatticeConstants c;
  const int m = static_cast<int>(std::ceil(re));
  const int mz = dim == 2 ? 0 : m;
  double sw = 0, swr2 = 0;
  for (int k = -mz; k <= mz; ++k)
    for (int j = -m; j <= m; ++j)
      for (int i = -m; i <= m; ++i) {
        const double r2 = double(i) * i + double(j) * j + double(k) * k;
        if (r2 == 0 || r2 >= re * re) continue;
        const double w = weight_from_r2(r2, re);
        sw += w;
        swr2 += w * r2;
        ++c.neighbours;
      }
  c.n0 = sw;
  c.lambda0 = swr2 / sw;
  return c;
}

const std::vector<FrontPoint>& martin_moyce() {
  static const std::vector<FrontPoint> table = {
      {0.41, 1.11}, {0.84, 1.22}, {1.19, 1.44}, {1.43, 1.67}, {1.63, 1.89},
      {1.83, 2.11}, {1.98, 2.33}, {2.20, 2.56}, {2.32, 2.78}, {2.51, 3.00},
      {2.65, 3.22}, {2.83, 3.44}, {2.98, 3.67}, {3.11, 3.89}, {3.33, 4.11}};
  return table;
}

namespace {
double interpolate(const std::vector<FrontPoint>& t, double T, const char* name) {
  if (T < t.front().T || T > t.back().T) throw copa::InputError(std::string("T outside the ") + name + " table");
  for (std::size_t k = 1; k < t.size(); ++k)
    if (T <= t[k].T) {
      const double s = (T - t[k - 1].T) / (t[k].T - t[k - 1].T);
      return t[k - 1].Z + s * (t[k].Z - t[k - 1].Z);
    }
  return t.back().Z;
}
}  // namespace

double martin_moyce_Z(double T) { return interpolate(martin_moyce(), T, "Martin & Moyce"); }

const std::vector<FrontPoint>& koshizuka_oka() {
  static const std::vector<FrontPoint> table = {{0.381, 1.111}, {0.769, 1.252}, {1.153, 1.505}, {1.537, 1.892},
                                                {1.935, 2.241}, {2.323, 2.615}, {2.719, 3.003}, {3.096, 3.624}};
  return table;
}

double koshizuka_oka_Z(double T) { return interpolate(koshizuka_oka(), T, "Koshizuka & Oka"); }

double front_reference_scatter(double T0, double T1) {
  // Between the tables' breakpoints both curves are linear, so (Z_KO - Z_MM) / Z_MM is monotone
  // there: its largest magnitude is at a breakpoint of either table or at T0, T1.
  std::vector<double> at = {T0, T1};
  for (const auto* table : {&martin_moyce(), &koshizuka_oka()})
    for (const auto& p : *table)
      if (p.T > T0 && p.T < T1) at.push_back(p.T);
  double scatter = 0;
  for (double T : at) scatter = std::max(scatter, std::fabs(koshizuka_oka_Z(T) - martin_moyce_Z(T)) / martin_moyce_Z(T));
  return scatter;
}

}  // namespace mps
