// The global step's dt, written once for the host and the device: the
// host's cfl_dt and the tend clip of the driver, and the device clock that the GPU step's dt scan
// advances, so that the device computes the next step's dt itself and the host need not compute
// it between two steps. One function each, called by both sides, so they cannot drift apart;
// the driver checks every device dt against its own bit for bit.
//
// The same bits on both sides: each formula is a product, a quotient, a sum or a comparison whose
// result is rounded before the next operation uses it, and no product feeds an addition, so
// nvcc and hipcc have nothing to contract into an FMA (courant * dx_l rounds, then the division,
// IEEE-rounded for doubles on both; the min is exact). Keep it so: a * b + c here would let the
// device fuse what the host rounds twice.
#pragma once
#include <cmath>

#include "hydro/hydro_math.hpp"

namespace ro::amr {

// The cell size of level l: Tree::dx's expression (dx0 / 2^l, exact for a power of two).
RO_HD double level_dx(double dx0, int l) { return dx0 / double(1 << l); }

// dt = min over the levels with leaves (max_speed > 0) of courant * dx_l / max_speed_l; +inf
// when no level moves (the clip below then ends the run at tend). The min is std::min's
// (the new value where it is smaller), so a NaN speed, which no comparison passes, is skipped alike.
RO_HD double cfl_dt_of(const double* max_speed, int nlevel, double dx0, double courant) {
  double dt = INFINITY;
  for (int l = 0; l < nlevel; ++l)
    if (max_speed[l] > 0) {
      const double level_dt = courant * level_dx(dx0, l) / max_speed[l];
      dt = level_dt < dt ? level_dt : dt;
    }
  return dt;
}

// The last step ends exactly at tend.
RO_HD double clip_dt(double time, double dt, double tend) { return time + dt > tend ? tend - time : dt; }

// The device's copy of the run's clock, set by the host once (start_clock) and kept across
// regrids; the last block of every dt scan moves it on (clock_after_scan).
struct DeviceClock {
  double time = 0;     // the start of the next step
  double dt = 0;       // the next step's dt (0 when halted)
  double courant = 0, tend = 0, dx0 = 0;
  int halt = 0;        // the scan found a bad leaf cell: the next step leaves the state as it is
};

// The clock after a scan of the state: step_ended when the scan ran at the end of a step (whose
// dt the clock still holds: time += dt as the driver adds it), not after an upload or a regrid,
// which leave the time as it is. A bad leaf cell halts the next step (dt = 0): the driver
// reports the cell before it would use that dt.
RO_HD void clock_after_scan(DeviceClock& c, const double* max_speed, int nlevel, bool bad, bool step_ended) {
  if (step_ended) c.time = c.time + c.dt;
  c.halt = bad ? 1 : 0;
  c.dt = bad ? 0.0 : clip_dt(c.time, cfl_dt_of(max_speed, nlevel, c.dx0, c.courant), c.tend);
}

}  // namespace ro::amr
