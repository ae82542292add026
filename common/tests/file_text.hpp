// The whole text of a file the writer tests (test_vtk_progress, test_vtk_pvtu, test_vtk_pieces_mpi)
// read back to compare with what they expect.
#pragma once
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace copa::test {

inline std::string file_text(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace copa::test
