// The energy meter of copa/energy.hpp on a machine without NVML or ROCm SMI: a fake powercap tree
// (COPA_POWERCAP_ROOT) for the RAPL path and its wraparound, null energy with the reason without one,
// and the report fields built from a measurement.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "copa/energy.hpp"
#include "copa/report.hpp"
#include "copa/timing.hpp"

namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, unsigned long long v) {
  std::ofstream(p) << v << "\n";
}

struct FakePowercap {
  fs::path root = fs::temp_directory_path() / ("copa-powercap-" + std::to_string(::getpid()));
  FakePowercap() {
    fs::create_directories(root / "intel-rapl:0");
    fs::create_directories(root / "intel-rapl:0:0");  // a subzone: inside the package, never added
    write(root / "intel-rapl:0" / "max_energy_range_uj", 1000000);
    write(root / "intel-rapl:0" / "energy_uj", 900000);
    write(root / "intel-rapl:0:0" / "max_energy_range_uj", 1000000);
    write(root / "intel-rapl:0:0" / "energy_uj", 0);
    setenv("COPA_POWERCAP_ROOT", root.c_str(), 1);
    copa::energy::reset();
  }
  ~FakePowercap() {
    unsetenv("COPA_POWERCAP_ROOT");
    copa::energy::reset();
    fs::remove_all(root);
  }
};

}  // namespace

TEST(Energy, CounterDeltaWrapsAtTheMaximumRange) {
  EXPECT_EQ(copa::energy::counter_delta(100, 250, 1000), 150u);
  EXPECT_EQ(copa::energy::counter_delta(900, 100, 1000), 200u);  // 900 -> 1000 -> 0 -> 100
}

TEST(Energy, RaplCounterOverTheTimedRunWithWraparound) {
  FakePowercap fake;
  copa::energy::begin();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  write(fake.root / "intel-rapl:0" / "energy_uj", 400000);  // wrapped: 0.1 J + 0.4 J
  write(fake.root / "intel-rapl:0:0" / "energy_uj", 999999);
  copa::energy::end();
  const copa::energy::Measurement m = copa::energy::measurement(false);
  ASSERT_TRUE(m.available()) << m.reason;
  EXPECT_EQ(m.source, "rapl energy counter");
  EXPECT_EQ(m.devices, 1);
  EXPECT_NEAR(m.joules, 0.5, 1e-12);
  EXPECT_GT(m.seconds, 0.004);
  EXPECT_NEAR(m.mean_power_w(), 0.5 / m.seconds, 1e-9);
  EXPECT_FALSE(m.throttled());
}

TEST(Energy, NoPowercapIsNullWithTheReason) {
  setenv("COPA_POWERCAP_ROOT", "/nonexistent/copa-powercap", 1);
  copa::energy::reset();
  copa::Profile profile;
  copa::HostTimer timer(profile);  // a timed region starts and ends the meter
  timer.begin("k");
  timer.end();
  copa::Report report("test", "1");
  report.set_backend(copa::Backend::serial);
  report.add_kernel("k", copa::summarize({1e-3}), {});
  report.set_fom({"rate", 10, "items/s"});
  const nlohmann::json doc = report.to_json();
  unsetenv("COPA_POWERCAP_ROOT");
  EXPECT_TRUE(doc["energy"]["joules"].is_null());
  EXPECT_NE(doc["energy"]["reason"].get<std::string>().find("/nonexistent/copa-powercap absent"), std::string::npos);
  EXPECT_TRUE(doc["fom"]["per_joule"].is_null());
  EXPECT_EQ(doc["fom"]["per_joule_unit"], "items/J");
  EXPECT_TRUE(doc["kernels"][0]["joules_per_call"].is_null());
  EXPECT_TRUE(doc["clocks"]["throttled"].is_null());
  EXPECT_TRUE(doc["clocks"]["reason"].is_string());
}

TEST(Energy, ReportGivesFomPerJouleAndJoulesPerCall) {
  FakePowercap fake;
  copa::Profile profile;
  copa::HostTimer timer(profile);
  timer.begin("k");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write(fake.root / "intel-rapl:0" / "energy_uj", 950000);  // 0.05 J
  // The sampler (every 0.1 s) reads the counter before the region ends: the energy at the end is
  // that reading, not an interpolation towards the report's.
  std::this_thread::sleep_for(std::chrono::milliseconds(350));
  timer.end();
  copa::Report report("test", "1");
  report.set_backend(copa::Backend::serial);
  report.add_kernel("k", copa::summarize({2e-3}), {});
  report.set_fom({"rate", 10, "cell-updates/s"});
  std::ostringstream text;
  report.print(text);
  EXPECT_NE(text.str().find("J/call"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("FOM per joule: "), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("rapl energy counter"), std::string::npos) << text.str();
  const nlohmann::json doc = report.to_json();
  const double w = doc["energy"]["mean_power_w"].get<double>();
  EXPECT_NEAR(doc["energy"]["joules"].get<double>(), 0.05, 1e-12);
  EXPECT_NEAR(w, 0.05 / doc["energy"]["seconds"].get<double>(), 1e-9);
  EXPECT_NEAR(doc["fom"]["per_joule"].get<double>(), 10 / w, 1e-9 * 10 / w);
  EXPECT_EQ(doc["fom"]["per_joule_unit"], "cell-updates/J");
  EXPECT_NEAR(doc["kernels"][0]["joules_per_call"].get<double>(), w * 2e-3, 1e-12);
  // The report took the measurement: the next run of the process meters afresh.
  EXPECT_EQ(copa::energy::measurement(false).reason, "no timed region in this run");
}

TEST(Energy, ThrottleReasonsAndUnits) {
  using copa::energy::reason_names;
  EXPECT_EQ(reason_names(0x4 | 0x40), (std::vector<std::string>{"sw_power_cap", "hw_thermal"}));
  copa::energy::Measurement m;
  m.any_reasons = true;
  m.reasons_seen = 0x1;  // idle is not throttling
  EXPECT_FALSE(m.throttled());
  m.reasons_seen |= 0x20;
  EXPECT_TRUE(m.throttled());
  EXPECT_EQ(copa::energy::clocks_json(m)["throttled"], true);
  EXPECT_EQ(copa::energy::per_joule_unit("megadofs x time steps / second"), "megadofs x time steps / joule");
  EXPECT_EQ(copa::energy::per_joule_unit("Gpairs/s"), "Gpairs/J");
}

TEST(Energy, OffByEnvironmentIsNullWithTheReason) {
  FakePowercap fake;  // a readable counter that the meter must not read
  setenv("COPA_ENERGY", "off", 1);
  copa::energy::begin();
  copa::energy::end();
  const copa::energy::Measurement m = copa::energy::measurement(false);
  unsetenv("COPA_ENERGY");
  EXPECT_FALSE(m.available());
  EXPECT_EQ(m.reason, "the meter is off (COPA_ENERGY=off)");
}
