#include "copa/progress.hpp"

#include <cstdio>
#include <cstdlib>

#include "copa/timing.hpp"

namespace copa {

namespace {

double heartbeat_interval() {
  if (const char* s = std::getenv("COPA_HEARTBEAT_S")) {
    char* end = nullptr;
    const double v = std::strtod(s, &end);
    if (end != s && v >= 0) return v;
  }
  return 5.0;
}

std::string seconds(double s) {
  char text[32];
  if (s < 120) std::snprintf(text, sizeof(text), "%.1f s", s);
  else if (s < 7200) std::snprintf(text, sizeof(text), "%.1f min", s / 60);
  else std::snprintf(text, sizeof(text), "%.1f h", s / 3600);
  return text;
}

}  // namespace

void announce(bool quiet, const std::string& problem, const std::string& plan, std::ostream& os) {
  if (!quiet) os << "problem: " << problem << "; plan: " << plan << std::endl;
}

Progress::Progress(std::string label, long total, bool quiet, std::ostream& os)
    : label_(std::move(label)), total_(total), quiet_(quiet), os_(os), interval_(heartbeat_interval()),
      start_(host_seconds()), last_(start_) {}

void Progress::update(long k) { update(k, total_ > 0 ? double(k) / double(total_) : 0.0); }

void Progress::update(long k, double fraction) {
  if (quiet_) return;
  const double now = host_seconds();
  if (now - last_ < interval_) return;
  last_ = now;
  ++lines_;
  const double elapsed = now - start_;
  os_ << label_ << " " << k;
  if (total_ > 0) os_ << "/" << total_;
  os_ << ", elapsed " << seconds(elapsed);
  if (fraction > 0 && fraction <= 1) {
    char percent[16];
    std::snprintf(percent, sizeof(percent), "%.0f%%", 100 * fraction);
    os_ << ", " << percent << ", ETA " << seconds(elapsed * (1 - fraction) / fraction);
  }
  os_ << std::endl;
}

}  // namespace copa
