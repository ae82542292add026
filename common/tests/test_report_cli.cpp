#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "copa/output.hpp"
#include "copa/report.hpp"
#include "copa/testing.hpp"

namespace {
copa::Report sample_report() {
  copa::Report r("test-app", "1.2.3");
  r.set_backend(copa::Backend::serial);
  r.set_variant("plain");
  r.set_threads(4);
  r.set_command_line("test-app --size small");
  r.problem()["n"] = 64;
  copa::Ceilings c;
  c.source = "test";
  c.triad_GBs = 100;
  c.fp64_GFLOPs = 1000;
  r.set_ceilings(c);
  copa::Profile p;
  p.add("update", 0.010);
  p.add("update", 0.030);
  p.add("update", 0.020);
  r.add_kernel(p, "update", {2e9, 1e9, 0.5e9});
  r.set_fom({"cell updates per second", 1.5e9, "1/s"});
  r.set_verification({"exact Riemann solution", "l1_density_error", 0.004, 0.011, true});
  r.extra()["solution"] = {{"step", 42}};
  return r;
}
}  // namespace

TEST(ReportCli, json_document_has_every_schema_field) {
  const nlohmann::json d = sample_report().to_json();
  EXPECT_TRUE(d["schema"] == "copa-result/1");
  EXPECT_TRUE(d["app"] == "test-app" && d["version"] == "1.2.3");
  EXPECT_TRUE(d["git_sha"].is_string());
  for (const char* k : {"compiler", "compiler_version", "flags", "build_type", "cuda_version", "hip_version",
                        "backends", "git_sha", "git_dirty"})
    EXPECT_TRUE(d["build"].contains(k));
  for (const char* k : {"host", "cpu", "cores", "gpu", "ceilings"}) EXPECT_TRUE(d["machine"].contains(k));
  EXPECT_TRUE(d["machine"]["ceilings"]["triad_GBs"] == 100);
  for (const char* k : {"backend", "variant", "problem", "mpi_ranks", "threads", "command_line", "date"})
    EXPECT_TRUE(d["run"].contains(k));
  EXPECT_TRUE(d["run"]["problem"]["n"] == 64);
  const auto& k = d["kernels"][0];
  EXPECT_TRUE(k["name"] == "update" && k["calls"] == 3);
  COPA_EXPECT_NEAR_REL(k["time_s"]["median"].get<double>(), 0.020, 1e-15);
  COPA_EXPECT_NEAR_REL(k["time_s"]["min"].get<double>(), 0.010, 1e-15);
  COPA_EXPECT_NEAR_REL(k["time_s"]["max"].get<double>(), 0.030, 1e-15);
  EXPECT_TRUE(k["samples_s"].size() == 3);
  COPA_EXPECT_NEAR_REL(k["gflops"].get<double>(), 100, 1e-12);  // 2e9 FLOP / 0.02 s
  COPA_EXPECT_NEAR_REL(k["gbs"].get<double>(), 75, 1e-12);      // 1.5e9 B / 0.02 s
  for (const char* f : {"flops", "bytes_read", "bytes_written", "intensity", "frac_bandwidth", "frac_flops",
                        "frac_roofline", "precision", "bound"})
    EXPECT_TRUE(k.contains(f));
  EXPECT_TRUE(d["fom"]["value"] == 1.5e9 && d["fom"]["unit"] == "1/s");
  EXPECT_TRUE(d["verification"]["passed"] == true && d["verification"]["tolerance"] == 0.011);
  EXPECT_TRUE(d["memory"].contains("device_peak_bytes") && d["memory"].contains("host_peak_bytes"));
  EXPECT_TRUE(d["solution"]["step"] == 42);
}

TEST(ReportCli, json_round_trip_through_a_file) {
  const char* path = "test_report.json";
  copa::Report r = sample_report();
  // write_json and to_json each build the document, reading the process's peak RSS (which may grow
  // between the calls) and the wall clock: pin the memory figures so that both documents are built
  // from the same state, and drop the date, the one field that is meant to be read at build time.
  r.set_memory(4096, 1 << 20);
  r.write_json(path);
  std::ifstream in(path);
  nlohmann::json back;
  in >> back;
  nlohmann::json expected = r.to_json();
  back["run"].erase("date");
  expected["run"].erase("date");
  EXPECT_TRUE(back == expected);
  EXPECT_TRUE(back["memory"]["host_peak_bytes"] == 1 << 20);
  std::remove(path);
  // A file that cannot be written is a runtime failure (exit 3) naming the option and the file, and
  // leaves nothing behind; /dev/full accepts the open and fails the flush.
  EXPECT_THROW(r.write_json("/no/such/dir/x.json"), copa::RuntimeError);
  try {
    r.write_json("/dev/full");
    ADD_FAILURE() << "writing /dev/full did not fail";
  } catch (const copa::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("--json: writing '/dev/full' failed"), std::string::npos) << e.what();
  }
  // A FOM that is not a finite positive number is never written as a result.
  r.set_fom({"rate", std::nan(""), "1/s"});
  EXPECT_THROW(r.write_json(path), copa::RuntimeError);
  std::ifstream none(path);
  EXPECT_FALSE(none.good());
}

// The check before a run that its output can be written: each refusal is an InputError (exit 2)
// naming the option; a writable path leaves no probe file behind.
TEST(ReportCli, output_path_is_checked_before_the_run) {
  const auto message = [](const std::string& path) {
    try {
      copa::require_writable_output("--json", path);
    } catch (const copa::InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  EXPECT_TRUE(has(message("."), "--json: '.' is a directory")) << message(".");
  EXPECT_TRUE(has(message("/no/such/dir/x.json"), "directory '/no/such/dir' of '/no/such/dir/x.json' does not exist"));
  EXPECT_TRUE(has(message("/dev/null/x.json"), "directory '/dev/null' of '/dev/null/x.json' is not a directory"));
  // /proc refuses new files even to root, where access() would say yes.
  EXPECT_TRUE(has(message("/proc/copa-test.json"), "--json: cannot create a file in directory '/proc'"))
      << message("/proc/copa-test.json");
  EXPECT_EQ(message(""), "");
  EXPECT_EQ(message("/dev/null"), "");  // written in place
  // A new file and an existing one: accepted, and the directory holds only what it held.
  const std::string dir = ::testing::TempDir() + "copa-output-check";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directory(dir);
  EXPECT_EQ(message(dir + "/new.json"), "");
  { std::ofstream(dir + "/old.json") << "{}"; }
  EXPECT_EQ(message(dir + "/old.json"), "");
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"old.json"});
  std::filesystem::remove_all(dir);
}

TEST(ReportCli, verdict_line_format) {
  copa::Verification v{"Mie series", "rms_db", 0.25, 0.5, true};
  EXPECT_TRUE(copa::verdict_line(v) == "VERIFICATION PASSED: rms_db = 0.25 (tolerance 0.5, reference Mie series)");
  v.passed = false;
  EXPECT_TRUE(copa::verdict_line(v).rfind("VERIFICATION FAILED: ", 0) == 0);
}

// The one-rank comparison is part of the verdict line and the JSON, whether it found the bits equal
// or measured a difference.
TEST(ReportCli, one_rank_check_in_verdict_and_json) {
  copa::Verification v{"one-rank run", "max_abs_difference_vs_one_rank", 0, 0, true};
  v.one_rank_check = copa::Verification::OneRankCheck{true, "max_abs_difference", 0};
  EXPECT_TRUE(copa::verdict_line(v) ==
              "VERIFICATION PASSED: max_abs_difference_vs_one_rank = 0 (tolerance 0, reference one-rank run; "
              "one_rank_check: bitwise_equal true)");
  copa::Report r("app", "1");
  r.set_verification(v);
  EXPECT_TRUE(r.to_json()["verification"]["one_rank_check"]["bitwise_equal"] == true);
  v.one_rank_check = copa::Verification::OneRankCheck{false, "max_relative_difference", 0.5};
  v.passed = false;
  EXPECT_TRUE(copa::verdict_line(v).find("one_rank_check: max_relative_difference 0.5)") != std::string::npos);
  r.set_verification(v);
  EXPECT_TRUE(r.to_json()["verification"]["one_rank_check"]["difference"] == 0.5);
}

TEST(ReportCli, not_verified_is_neither_pass_nor_fail) {
  const copa::Verification v = copa::not_verified("no reference for RK4 runs");
  EXPECT_TRUE(copa::verdict_line(v) == "NOT VERIFIED: no reference for RK4 runs");
  copa::Report r("app", "1");
  r.set_verification(v);
  const auto d = r.to_json();
  EXPECT_TRUE(d["verification"]["passed"].is_null());
  EXPECT_TRUE(d["verification"]["reason"] == "no reference for RK4 runs");
}

TEST(ReportCli, json_path_per_backend) {
  EXPECT_TRUE(copa::json_path_for("out/r.json", copa::Backend::cuda, true) == "out/r.cuda.json");
  EXPECT_TRUE(copa::json_path_for("out.d/r", copa::Backend::openmp, true) == "out.d/r.openmp");
  EXPECT_TRUE(copa::json_path_for("r.json", copa::Backend::cuda, false) == "r.json");
}

namespace {
int parse(std::vector<std::string> args, copa::CommonOptions& o) {
  CLI::App app{"test"};
  copa::add_common_options(app, o);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return copa::parse_command_line(app, static_cast<int>(argv.size()), argv.data());
}
}  // namespace

TEST(ReportCli, cli_errors_give_exit_code_2) {
  copa::CommonOptions o;
  EXPECT_TRUE(parse({"app", "--reps", "0"}, o) == copa::exit_bad_input);
  copa::CommonOptions o2;
  EXPECT_TRUE(parse({"app", "--no-such-option"}, o2) == copa::exit_bad_input);
  copa::CommonOptions o3;
  EXPECT_TRUE(parse({"app", "--size", "huge"}, o3) == copa::exit_bad_input);
  copa::CommonOptions o4;
  EXPECT_TRUE(parse({"app", "--help"}, o4) == 0);
  copa::CommonOptions o5;
  EXPECT_TRUE(parse({"app", "--reps", "7", "--size", "medium"}, o5) == -1);
  EXPECT_TRUE(o5.reps == 7 && o5.size == "medium");
}

TEST(ReportCli, backend_selection_is_checked_against_the_build) {
  copa::CommonOptions o;
  o.backend = "fortran";
  EXPECT_THROW(copa::requested_backends(o), copa::InputError);
  o.backend = "serial";
  EXPECT_TRUE(copa::requested_backends(o).size() == 1);
  o.backend = "all";
  EXPECT_TRUE(copa::requested_backends(o).size() == copa::built_backends().size());
  EXPECT_TRUE(copa::built_backends().front() == copa::Backend::serial);
  for (copa::Backend b : {copa::Backend::openmp, copa::Backend::cuda, copa::Backend::hip}) {
    o.backend = copa::to_string(b);
    if (!copa::is_built(b)) { EXPECT_THROW(copa::requested_backends(o), copa::InputError); }
  }
}

TEST(ReportCli, config_file_sets_options) {
  const char* path = "test_config.toml";
  {
    std::ofstream f(path);
    f << "reps = 9\nsize = \"large\"\n";
  }
  copa::CommonOptions o;
  EXPECT_TRUE(parse({"app", "--config", path, "--size", "medium"}, o) == -1);
  EXPECT_TRUE(o.reps == 9);            // from the file
  EXPECT_TRUE(o.size == "medium");     // the command line wins
  std::remove(path);
}

TEST(ReportCli, guarded_main_maps_exceptions_to_exit_codes) {
  EXPECT_TRUE(copa::guarded_main([] { return 0; }) == 0);
  EXPECT_TRUE(copa::guarded_main([]() -> int { throw copa::InputError("--n: must be a power of two"); }) == 2);
  EXPECT_TRUE(copa::guarded_main([]() -> int { throw copa::RuntimeError("density negative"); }) == 3);
  EXPECT_TRUE(copa::guarded_main([]() -> int { throw copa::OutOfMemoryError("x", 10, 5, "device"); }) == 3);
  EXPECT_TRUE(copa::guarded_main([]() -> int { throw std::bad_alloc(); }) == 3);
}

TEST(ReportCli, run_ceilings_from_file_or_builtin) {
  copa::CommonOptions o;
  EXPECT_TRUE(!copa::run_ceilings(o, copa::Backend::serial, -1));  // a CPU has no built-in ceilings
  const char* path = "test_run_ceilings.json";
  {
    std::ofstream f(path);
    f << R"({"schema":"copa-ceilings/1","backends":{"serial":{"triad_GBs":12,"fp64_GFLOPs":40}}})";
  }
  o.ceilings = path;
  const auto c = copa::run_ceilings(o, copa::Backend::serial, -1);
  EXPECT_TRUE(c && c->triad_GBs == 12 && c->source == path);
  EXPECT_THROW(copa::run_ceilings(o, copa::Backend::openmp, -1), copa::InputError);
  std::remove(path);
}

TEST(ReportCli, distributed_run_fields_on_one_rank) {
  copa::Report r("test-app", "0.1");
  auto doc = r.to_json();
  EXPECT_TRUE(doc["run"]["mpi_ranks"] == 1);
  EXPECT_TRUE(doc["run"]["transport"].is_null());
  EXPECT_TRUE(doc["run"]["decomposition"].is_null());
  r.set_transport("ipc");
  r.set_decomposition(copa::Report::make_decomposition({{"grid", {1, 1, 1}}}, 4096, "cells"));
  r.set_mpi(1);
  r.add_kernel("k", copa::summarize({1.0, 2.0}), {});
  r.reduce_over_ranks();  // one rank: nothing to reduce, no imbalance fields
  doc = r.to_json();
  EXPECT_TRUE(doc["run"]["transport"] == "ipc");
  EXPECT_TRUE(doc["run"]["decomposition"]["local_work"] == nlohmann::json::array({4096.0}));
  EXPECT_TRUE(doc["run"]["decomposition"]["ranks"]["grid"][2] == 1);
  EXPECT_TRUE(!doc["kernels"][0].contains("imbalance"));
}
