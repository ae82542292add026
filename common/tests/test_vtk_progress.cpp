// The VTK XML writer's encoding and checks, the time-series bookkeeping and the heartbeat's rules.
// The files themselves are read back by VTK's own readers in the apps' --vtk tests.
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include "copa/errors.hpp"
#include "copa/progress.hpp"
#include "copa/testing.hpp"
#include "copa/vtk.hpp"
#include "file_text.hpp"

namespace fs = std::filesystem;
using copa::test::file_text;

namespace {
fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("copa-test-vtk-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}
}  // namespace

TEST(VtkProgress, base64_matches_rfc4648_vectors) {
  // RFC 4648 section 10.
  EXPECT_TRUE(copa::vtk::base64("", 0) == "");
  EXPECT_TRUE(copa::vtk::base64("f", 1) == "Zg==");
  EXPECT_TRUE(copa::vtk::base64("fo", 2) == "Zm8=");
  EXPECT_TRUE(copa::vtk::base64("foo", 3) == "Zm9v");
  EXPECT_TRUE(copa::vtk::base64("foob", 4) == "Zm9vYg==");
  EXPECT_TRUE(copa::vtk::base64("foobar", 6) == "Zm9vYmFy");
}

TEST(VtkProgress, array_of_wrong_length_is_refused) {
  copa::vtk::ImageData g;
  g.cells = {2, 2, 1};
  g.cell_data.push_back({"density", 1, {1, 2, 3}});  // 4 cells
  EXPECT_THROW(copa::vtk::write("/dev/null", g, copa::vtk::Encoding::ascii), std::invalid_argument);
  copa::vtk::UnstructuredGrid u;
  u.points = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  u.add_cell(copa::vtk::triangle, {0, 1, 2});
  u.cell_data.push_back({"J", 2, {1}});
  EXPECT_THROW(copa::vtk::write("/dev/null", u, copa::vtk::Encoding::binary), std::invalid_argument);
}

TEST(VtkProgress, ascii_values_round_trip_exactly) {
  const fs::path d = scratch("ascii");
  fs::create_directories(d);
  copa::vtk::PolyData c;
  c.points = {0.1, 0.2, 0.3};
  c.point_data.push_back({"n", 1, {1.0 / 3.0}});
  copa::vtk::write((d / "p.vtp").string(), c, copa::vtk::Encoding::ascii);
  const std::string text = file_text(d / "p.vtp");
  EXPECT_TRUE(text.find("0.33333333333333331") != std::string::npos);
  EXPECT_TRUE(text.find("NumberOfVerts=\"1\"") != std::string::npos);
  fs::remove_all(d);
}

TEST(VtkProgress, unwritable_file_is_a_runtime_error) {
  copa::vtk::PolyData c;
  EXPECT_THROW(copa::vtk::write("/nonexistent-dir/x.vtp", c, copa::vtk::Encoding::ascii), copa::RuntimeError);
}

TEST(VtkProgress, prepare_refuses_bad_directories) {
  copa::vtk::Options o;
  o.every = 2;
  EXPECT_THROW(copa::vtk::prepare(o), copa::InputError);  // --vtk-every without --vtk
  o.dir = "/nonexistent-parent/out";
  EXPECT_THROW(copa::vtk::prepare(o), copa::InputError);
  const fs::path d = scratch("file");
  std::ofstream((d.string() + ".txt")).put('x');
  o.dir = d.string() + ".txt";  // a file, not a directory
  EXPECT_THROW(copa::vtk::prepare(o), copa::InputError);
  fs::remove(d.string() + ".txt");
  o.dir = d.string();
  copa::vtk::prepare(o);  // created: the parent exists
  EXPECT_TRUE(fs::is_directory(d));
  fs::remove_all(d);
}

TEST(VtkProgress, series_writes_step_zero_every_n_and_the_end_once) {
  const fs::path d = scratch("series");
  copa::vtk::Options o;
  o.dir = d.string();
  o.every = 3;
  copa::vtk::prepare(o);
  copa::vtk::Series s(o, "app", "vtp");
  int written = 0;
  auto writer = [&](const std::string& path) {
    std::ofstream(path) << "x";
    ++written;
  };
  for (long step = 0; step <= 7; ++step) s.at_step(step, 0.5 * step, writer);
  s.at_end(7, 3.5, writer);  // steps 0, 3, 6, then 7 and the end-of-run file
  EXPECT_TRUE(written == 5);
  EXPECT_TRUE(fs::exists(d / "app_000006.vtp"));
  EXPECT_TRUE(fs::exists(d / "app_000007.vtp"));
  EXPECT_TRUE(fs::exists(d / "app.vtp"));
  const std::string pvd = file_text(d / "app.pvd");
  EXPECT_TRUE(pvd.find("file=\"app_000003.vtp\"") != std::string::npos);
  EXPECT_TRUE(pvd.find("timestep=\"3.5\"") != std::string::npos);
  EXPECT_TRUE(s.files().size() == 6);  // 4 steps, the .pvd, the end file
  copa::vtk::Series once(o, "app", "vtp");
  written = 0;
  for (long step = 0; step <= 6; ++step) once.at_step(step, step, writer);
  once.at_end(6, 6, writer);  // the last step was written already: only the end file
  EXPECT_TRUE(written == 4);
  fs::remove_all(d);
}

TEST(VtkProgress, heartbeat_only_after_the_interval_and_never_when_quiet) {
  setenv("COPA_HEARTBEAT_S", "1000", 1);
  std::ostringstream slow;
  copa::Progress p("step", 10, false, slow);
  for (long k = 1; k <= 10; ++k) p.update(k);
  EXPECT_TRUE(p.lines() == 0 && slow.str().empty());
  setenv("COPA_HEARTBEAT_S", "0", 1);
  std::ostringstream every, none;
  copa::Progress q("step", 4, false, every);
  q.update(1);
  EXPECT_TRUE(q.lines() == 1);
  EXPECT_TRUE(every.str().rfind("step 1/4, elapsed ", 0) == 0);
  EXPECT_TRUE(every.str().find("25%, ETA ") != std::string::npos);
  copa::Progress quiet("step", 4, true, none);
  quiet.update(1);
  EXPECT_TRUE(none.str().empty());
  std::ostringstream a, b;
  copa::announce(false, "8 cells", "3 steps", a);
  copa::announce(true, "8 cells", "3 steps", b);
  EXPECT_TRUE(a.str() == "problem: 8 cells; plan: 3 steps\n");
  EXPECT_TRUE(b.str().empty());
  unsetenv("COPA_HEARTBEAT_S");
}
