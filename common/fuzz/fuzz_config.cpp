// libFuzzer target of the --config reader (copa::parse_command_line): any file content either
// parses or is refused with exit 2; a crash, a sanitizer report, a hang or any other exception is
// a finding. Built with clang's -fsanitize=fuzzer in the fuzz preset; replay_main.cpp replays the
// corpus and every kept crash in the ordinary builds.
#include <cstdio>
#include <string>
#include <vector>

#include "copa/cli.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = copa::fuzz::input_file(data, size, ".toml");
  CLI::App app("fuzz", "copa-fuzz-config");
  copa::CommonOptions common;
  copa::add_common_options(app, common);
  double tend = 1;
  long steps = 10;
  std::vector<int> grid;
  app.add_option("--tend", tend, "a real")->check(copa::cli::positive());
  app.add_option("--steps", steps, "a count")->check(copa::cli::count(1, 1000));
  app.add_option("--proc-grid", grid, "a list")->expected(2, 3)->check(copa::cli::count(1, 64));
  std::string a0 = "copa-fuzz-config", a1 = "--config", a2 = path;
  char* argv[] = {a0.data(), a1.data(), a2.data()};
  const int rc = copa::parse_command_line(app, 3, argv);
  if (rc != -1 && rc != 0 && rc != 2) __builtin_trap();  // only "go on", help/version and bad input
  std::remove(path.c_str());
  return 0;
}
