// The radiated far field of RWG currents, evaluated at the 7-point source rule of every triangle:
// the one loop behind the PEC RCS (bistatic_rcs, J only) and the dielectric one (bistatic_rcs_jm,
// J and M).
#pragma once
#include <array>
#include <complex>
#include <vector>

#include "problem.hpp"

namespace efie {

// Current moments at the source points: for current c (x[c N .. (c + 1) N) the coefficients of
// its RWG functions) X_q = sum_i x_i (c_i / 2) w_q (r_q - v_i), so that X~(r_hat) = sum_q X_q
// exp(j k r_hat.r_q).
struct SourceMoments {
  std::vector<Vec3> position;
  std::vector<std::array<std::complex<double>, 3>> electric, magnetic;  // magnetic empty without M
};
SourceMoments source_moments(const Problem& p, const std::vector<std::complex<double>>& x, bool with_magnetic);

// sigma / (pi a^2) on the E- and H-plane cuts: sigma = scale |J~_perp + M~ x r_hat|^2 (PEC:
// scale = k^4 / (4 pi) and the current I = (k / (j eta)) x; dielectric: k^2 / (4 pi), J~ from
// eta0 J).
RcsCuts far_field_cuts(const Problem& p, const SourceMoments& s, double scale, int samples);

}  // namespace efie
