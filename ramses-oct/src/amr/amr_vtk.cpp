#include "amr/amr_vtk.hpp"

#include "hydro/hydro_math.hpp"

namespace ro::amr {

LeafCells leaf_cells(const Tree& t, const std::vector<double>& u, double gamma) {
  LeafCells cells;
  const std::int64_t stride = t.noct() * 8;  // the state is [field][oct][cell]
  for (std::int64_t o = 0; o < t.noct(); ++o)
    for (int c = 0; c < 8; ++c) {
      if (t.son[o * 8 + c] >= 0) continue;
      const double h = t.dx(t.level[o]);
      const auto ic = t.cell_coords(o, c);
      double uc[nvar], q[nvar];
      for (int f = 0; f < nvar; ++f) uc[f] = u[f * stride + o * 8 + c];
      cons_to_prim(uc, gamma, q);
      cells.add({(ic[0] + 0.5) * h, (ic[1] + 0.5) * h, (ic[2] + 0.5) * h}, h, q, uc[4]);
    }
  return cells;
}

}  // namespace ro::amr
