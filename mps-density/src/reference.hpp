// References: lattice constants n0 and lambda0 (computed here by the lattice sum, compared with the
// table of references/mps.md in the tests) and Martin & Moyce's (1952) surge-front data.
#pragma once
#include <vector>

namespace mps {

struct LatticeConstants {
  double n0 = 0;       // sum_j w(|r_j|) over the perfect lattice, origin excluded
  double lambda0 = 0;  // sum_j w r^2 / sum_j w, in units of l0^2
  int neighbours = 0;
};
// Spacing 1, offsets -ceil(re)..ceil(re) per axis (the table's -4..4 covers every r_e <= 4).
LatticeConstants lattice_constants(int dim, double re_over_l0);

struct FrontPoint {
  double T, Z;
};
// Martin & Moyce, n^2 = 2: Z = z/a against T = t sqrt(2g/a) (references/mps.md).
const std::vector<FrontPoint>& martin_moyce();
// Linear interpolation of Z(T) in the table (T within its range).
double martin_moyce_Z(double T);
// Koshizuka & Oka's (1996) own MPS front for the same column (instantaneous release, like ours):
// a comparison that needs no time offset (references/mps.md).
const std::vector<FrontPoint>& koshizuka_oka();
double koshizuka_oka_Z(double T);  // linear interpolation, T within 0.381 .. 3.096
// The scatter of the literature on [T0, T1]: max |Z_KO(T) - Z_MM(T)| / Z_MM(T), Koshizuka & Oka's
// MPS front against Martin & Moyce's experiment (0.0912 on [1, 3], at T = 2.719).
double front_reference_scatter(double T0, double T1);

}  // namespace mps
