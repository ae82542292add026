#include "reference.hpp"

namespace laghos {

const std::vector<LaghosRun>& laghos_table() {
  static const std::vector<LaghosRun> table = {
      {1, 0, "square01_quad", 3, 2, 1, 0.75, 4, 1.0, 339, 0.000702, 4.9695537349e+01},
      {2, 0, "cube01_hex", 1, 2, 1, 0.75, 4, 1.0, 1041, 0.000121, 3.3909635545e+03},
      {3, 1, "square01_quad", 3, 2, 1, 0.8, 4, 1.0, 1154, 0.001655, 4.6303396053e+01},
      {4, 1, "cube01_hex", 2, 2, 1, 0.6, 4, 2.0, 560, 0.002449, 1.3408616722e+02},
      {6, 3, "rectangle01_quad", 2, 2, 1, 3.0, 4, 1.0, 2872, 0.000064, 5.6547039096e+01},
      {7, 3, "box01_hex", 1, 2, 1, 5.0, 4, 1.0, 858, 0.000474, 5.6691500623e+01},
      {8, 4, "square_gresho", 3, 3, 2, 0.62831853, 7, 1.0, 776, 0.000045, 4.0982431726e+02},
  };
  return table;
}

std::optional<LaghosRun> laghos_run(int number) {
  for (const auto& r : laghos_table())
    if (r.run == number) return r;
  return std::nullopt;
}

}  // namespace laghos
