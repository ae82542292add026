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
// Martin & Moyce, n^2 = 2: Z = z/a against T = t sqrt(2g/a) (references/mps.md): their Table 2
// (a = 2.25 in). DualSPHysics's digitisation of the experiment plotted by Koshizuka & Oka (1996),
// examples/main/01_DamBreak/EXP_X-DamTipPosition_Koshizula&Oka1996.txt, falls on the same T (to
// 0.02) and Z (to 0.035): both papers use these axes.
const std::vector<FrontPoint>& martin_moyce();
// Linear interpolation of Z(T) in the table (T within its range).
double martin_moyce_Z(double T);
// Koshizuka & Oka's (1996) own MPS front for the same column (instantaneous release, like ours):
// a comparison that needs no time offset (references/mps.md). The numbers are PySPH's digitisation
// of their figure (pysph/examples/db_exp_data.py, ko_data, "z/L vs t sqrt(2g/L)"), which does not
// say calculation or experiment; their even spacing in T (0.38-0.40) is that of a calculation.
const std::vector<FrontPoint>& koshizuka_oka();
double koshizuka_oka_Z(double T);  // linear interpolation, T within 0.381 .. 3.096
// The scatter of the literature on [T0, T1]: max |Z_KO(T) - Z_MM(T)| / Z_MM(T), Koshizuka & Oka's
// MPS front against Martin & Moyce's experiment (0.0912 on [1, 3], at T = 2.719).
double front_reference_scatter(double T0, double T1);

}  // namespace mps
