// Uses the installed headers and library: statistics, a report document, the build's version.
#include <iostream>

#include "copa/build_config.hpp"
#include "copa/report.hpp"
#include "copa/stats.hpp"

int main() {
  const copa::Stats s = copa::summarize({3.0, 1.0, 2.0});
  copa::Report r("consumer", COPA_VERSION);
  r.add_kernel("k", s, copa::KernelCost{});
  const auto doc = r.to_json();
  const bool ok = s.median == 2.0 && doc["schema"] == "copa-result/1" && doc["kernels"][0]["samples_s"].size() == 3;
  std::cout << "consumer: copa " << COPA_VERSION << (ok ? " ok" : " WRONG") << "\n";
  return ok ? 0 : 1;
}
