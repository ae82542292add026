// The command line's input rules (copa::parse_command_line): config files, non-finite numbers and
// the thread cap. The ranks' agreement is tested in test_mpi.cpp.
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "copa/testing.hpp"

namespace {

struct Parsed {
  int rc = 0;
  std::string err;
  copa::CommonOptions common;
  double tend = 1.0;
};

// copa::parse_command_line on `args` (the program name is added); stderr goes to `err`.
int parse_app(CLI::App& app, std::vector<std::string> args, std::string& err) {
  args.insert(args.begin(), "test-app");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  testing::internal::CaptureStderr();
  const int rc = copa::parse_command_line(app, static_cast<int>(argv.size()), argv.data());
  err = testing::internal::GetCapturedStderr();
  return rc;
}

// Parses `args` with the common options and one app option (--tend), capturing stderr.
Parsed parse(std::vector<std::string> args) {
  Parsed r;
  CLI::App app("test", "test-app");
  copa::add_common_options(app, r.common);
  app.add_option("--tend", r.tend, "end time")->check(CLI::Range(0.0, 10.0));
  r.rc = parse_app(app, std::move(args), r.err);
  return r;
}

std::string write_file(const std::string& name, const std::string& text) {
  std::ofstream(name, std::ios::binary) << text;
  return name;
}

}  // namespace

TEST(CliInput, a_config_file_sets_options) {
  const auto f = write_file("cli_ok.toml", "# a comment\ntend = 2.5\nreps = 3\n\nquiet = true\n");
  const Parsed r = parse({"--config", f});
  EXPECT_EQ(r.rc, -1) << r.err;
  EXPECT_EQ(r.tend, 2.5);
  EXPECT_EQ(r.common.reps, 3);
  EXPECT_TRUE(r.common.quiet);
  std::remove(f.c_str());
}

TEST(CliInput, config_errors_name_the_file_the_line_and_the_key) {
  const auto f = write_file("cli_bad.toml", "tend = 2.5\nrepz = 3\n");
  Parsed r = parse({"--config", f});
  EXPECT_EQ(r.rc, copa::exit_bad_input);
  EXPECT_NE(r.err.find("--config: 'cli_bad.toml', line 2: unknown option 'repz' (the nearest option is --reps)"),
            std::string::npos)
      << r.err;
  write_file(f, "[run]\ntend = 2.5\n");
  r = parse({"--config", f});
  EXPECT_EQ(r.rc, copa::exit_bad_input);
  EXPECT_NE(r.err.find("line 1: sections are not read"), std::string::npos) << r.err;
  write_file(f, std::string("tend = 1\n\0\0\0", 12));
  r = parse({"--config", f});
  EXPECT_NE(r.err.find("is not a text file"), std::string::npos) << r.err;
  std::remove(f.c_str());
  for (const char* path : {"/dev/zero", ".", "no_such_config.toml"}) {
    r = parse({"--config", path});
    EXPECT_EQ(r.rc, copa::exit_bad_input) << path;
    EXPECT_NE(r.err.find(std::string("--config: '") + path + "'"), std::string::npos) << r.err;
  }
}

TEST(CliInput, numbers_must_be_finite) {
  for (const char* v : {"nan", "NaN", "inf", "-inf", "1e999"}) {
    const Parsed r = parse({"--tend", v});
    EXPECT_EQ(r.rc, copa::exit_bad_input) << v;
    // A range check names infinity itself; NaN passes every comparison and meets the finite rule.
    EXPECT_NE(r.err.find("--tend"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(v), std::string::npos) << r.err;
  }
  EXPECT_NE(parse({"--tend", "nan"}).err.find("--tend: 'nan' is not a finite number"), std::string::npos);
  EXPECT_EQ(parse({"--tend", "0.5"}).rc, -1);
  // The same rule holds for values from a config file.
  const auto f = write_file("cli_nan.toml", "tend = nan\n");
  EXPECT_EQ(parse({"--config", f}).rc, copa::exit_bad_input);
  std::remove(f.c_str());
}

TEST(CliInput, threads_are_capped_at_the_cores_unless_oversubscribed) {
  const int cores = copa::available_cores();
  ASSERT_GE(cores, 1);
  const std::string many = std::to_string(cores + 3);
  Parsed r = parse({"--threads", many});
  EXPECT_EQ(r.rc, -1);
  EXPECT_EQ(r.common.threads, cores);
  EXPECT_NE(r.err.find("is more than the " + std::to_string(cores) + " cores available"), std::string::npos) << r.err;
  r = parse({"--threads", many, "--oversubscribe"});
  EXPECT_EQ(r.common.threads, cores + 3);
  EXPECT_EQ(r.err, "");
}

namespace {

struct Counted {
  int rc = 0;
  std::string err;
  std::size_t particles = 7;
  double tend = 1.0;
};

// One unsigned count and one real with declared ranges (copa::cli).
Counted parse_ranged(std::vector<std::string> args) {
  Counted r;
  CLI::App app("test", "test-app");
  app.add_option("--particles", r.particles, "count")->check(copa::cli::count(1, 1000));
  app.add_option("--tend", r.tend, "end time")->check(copa::cli::positive());
  r.rc = parse_app(app, std::move(args), r.err);
  return r;
}

}  // namespace

TEST(CliRanges, values_in_range_are_taken) {
  const Counted r = parse_ranged({"--particles", "1000", "--tend", "1e-9"});
  EXPECT_EQ(r.rc, -1) << r.err;
  EXPECT_EQ(r.particles, 1000u);
  EXPECT_EQ(r.tend, 1e-9);
}

TEST(CliRanges, a_refusal_names_the_option_the_value_and_the_range) {
  for (const auto& [args, text] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--particles", "-5"}, "--particles: '-5' is outside [1, 1000]"},  // no wrap to 2^64 - 5
           {{"--particles", "0"}, "--particles: '0' is outside [1, 1000]"},
           {{"--particles", "1001"}, "--particles: '1001' is outside [1, 1000]"},
           {{"--particles", "2.5"}, "--particles: '2.5' is not an integer"},
           {{"--particles", "1e2"}, "--particles: '1e2' is not an integer"},
           {{"--particles", "ten"}, "--particles: 'ten' is not an integer in [1, 1000]"},
           {{"--tend", "0"}, "--tend: '0' is outside (0, inf)"},
           {{"--tend", "nan"}, "--tend: 'nan' is not a finite number"},
           {{"--tend", "-inf"}, "--tend: '-inf' is not a finite number"},
           {{"--tend", "1e999"}, "--tend: '1e999' is not a finite number"}}) {
    const Counted r = parse_ranged(args);
    EXPECT_EQ(r.rc, copa::exit_bad_input) << args[1];
    EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
  }
}

TEST(CliRanges, the_declared_range_is_read_back_and_listed) {
  std::size_t n = 0;
  double x = 0;
  CLI::App app("test", "test-app");
  app.add_option("--n", n, "count")->check(copa::cli::count(4, 16384));
  app.add_option("--x", x, "real")->check(copa::cli::range_open_low(1, 10));
  app.add_option("--free", x, "no range");
  const auto b = copa::cli::declared_bounds(*app.get_option("--n"));
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->lo, 4);
  EXPECT_EQ(b->hi, 16384);
  EXPECT_TRUE(b->integer);
  const auto x_bounds = copa::cli::declared_bounds(*app.get_option("--x"));
  ASSERT_TRUE(x_bounds.has_value());
  EXPECT_EQ(x_bounds->text(), "(1, 10]");
  EXPECT_FALSE(copa::cli::declared_bounds(*app.get_option("--free")).has_value());
  const std::string text = copa::cli::options_json(app);
  const auto listed = nlohmann::json::parse(text);
  const auto entry = [&](const std::string& name) {
    for (const auto& o : listed)
      if (o["name"] == name) return o;
    return nlohmann::json();
  };
  EXPECT_EQ(entry("--n"), nlohmann::json::parse(R"({"name": "--n", "type": "UINT", "items_min": 1, "items_max": 1,
      "range": {"lo": 4, "hi": 16384, "lo_open": false, "hi_open": false, "integer": true}})"))
      << text;
  EXPECT_EQ(entry("--free"), nlohmann::json::parse(R"({"name": "--free", "type": "FLOAT", "items_min": 1, "items_max": 1})"))
      << text;
}
