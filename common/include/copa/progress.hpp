// What a run is about to do and how far it has got: one line up front with the problem size and
// the planned steps or repetitions, then a heartbeat ("step k/N, elapsed, ETA") at most every
// few seconds, so that a long run is never silent. Neither prints under --quiet, which leaves
// only the verdict line and errors on the console (the JSON is the same either way).
#pragma once
#include <iostream>
#include <string>

namespace copa {

// "problem: <size>; plan: <plan>" on `os` unless quiet (apps pass quiet || !mpi::is_root()).
void announce(bool quiet, const std::string& problem, const std::string& plan, std::ostream& os = std::cout);

class Progress {
 public:
  // `total` steps (or repetitions) are planned; `label` names them ("step", "repetition").
  // The interval between lines is 5 s, or COPA_HEARTBEAT_S seconds when that is set (tests).
  Progress(std::string label, long total, bool quiet, std::ostream& os = std::cout);
  // After step k of the planned total: a line when the interval has passed since the start or the
  // previous line. ETA = elapsed (1 - f) / f with f = k / total.
  void update(long k);
  // A run that ends at a time rather than a step count: f = the fraction of that time reached.
  void update(long k, double fraction);
  // Lines printed so far.
  long lines() const { return lines_; }

 private:
  std::string label_;
  long total_;
  bool quiet_;
  std::ostream& os_;
  double interval_, start_, last_;
  long lines_ = 0;
};

}  // namespace copa
