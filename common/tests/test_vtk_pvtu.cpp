// ParaView's parallel unstructured format: the .pvtu text that names the ranks' pieces, the piece
// file names, and a one-rank write_pieces (the .pvtu and its single piece). Several ranks: the
// laghos-like mpi tests read the .pvtu back with VTK's vtkXMLPUnstructuredGridReader.
#include <filesystem>

#include <unistd.h>

#include <gtest/gtest.h>

#include "copa/vtk.hpp"
#include "file_text.hpp"

namespace fs = std::filesystem;

namespace {
copa::vtk::UnstructuredGrid two_quads() {
  copa::vtk::UnstructuredGrid g;
  g.points = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0};
  g.add_cell(copa::vtk::quad, {0, 1, 4, 3});
  g.add_cell(copa::vtk::quad, {1, 2, 5, 4});
  g.point_data.push_back({"velocity", 3, std::vector<double>(18, 0.5)});
  g.cell_data.push_back({"density", 1, {1.0, 2.0}});
  g.cell_data.push_back({"e_bernstein", 4, std::vector<double>(8, 0.25)});
  return g;
}
}  // namespace

TEST(VtkPvtu, piece_name_is_the_stem_and_rank_without_directory) {
  EXPECT_EQ(copa::vtk::piece_name("out/laghos-like_000005.pvtu", 2), "laghos-like_000005_p2.vtu");
  EXPECT_EQ(copa::vtk::piece_name("laghos-like.pvtu", 0), "laghos-like_p0.vtu");
}

TEST(VtkPvtu, text_of_three_pieces_declares_the_arrays_and_names_each_piece) {
  const std::string text = copa::vtk::pvtu_text(two_quads(), {"a_p0.vtu", "a_p1.vtu", "a_p2.vtu"});
  const std::string body =
      "<PUnstructuredGrid GhostLevel=\"0\">\n"
      "<PPointData>\n"
      "<PDataArray type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\"/>\n"
      "</PPointData>\n"
      "<PCellData>\n"
      "<PDataArray type=\"Float64\" Name=\"density\"/>\n"
      "<PDataArray type=\"Float64\" Name=\"e_bernstein\" NumberOfComponents=\"4\"/>\n"
      "</PCellData>\n"
      "<PPoints>\n"
      "<PDataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"/>\n"
      "</PPoints>\n"
      "<Piece Source=\"a_p0.vtu\"/>\n"
      "<Piece Source=\"a_p1.vtu\"/>\n"
      "<Piece Source=\"a_p2.vtu\"/>\n"
      "</PUnstructuredGrid>\n"
      "</VTKFile>\n";
  EXPECT_NE(text.find("<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\""), std::string::npos) << text;
  EXPECT_NE(text.find("header_type=\"UInt64\""), std::string::npos) << text;
  ASSERT_GE(text.size(), body.size());
  EXPECT_EQ(text.substr(text.size() - body.size()), body);
}

TEST(VtkPvtu, text_without_arrays_has_points_only) {
  copa::vtk::UnstructuredGrid g;
  const std::string text = copa::vtk::pvtu_text(g, {"x_p0.vtu"});
  EXPECT_EQ(text.find("PPointData"), std::string::npos);
  EXPECT_EQ(text.find("PCellData"), std::string::npos);
  EXPECT_NE(text.find("<Piece Source=\"x_p0.vtu\"/>"), std::string::npos);
}

TEST(VtkPvtu, one_rank_writes_the_pvtu_and_its_piece_next_to_it) {
  const fs::path dir = fs::temp_directory_path() / ("copa-test-pvtu-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto g = two_quads();
  copa::vtk::write_pieces((dir / "grid_000003.pvtu").string(), g, copa::vtk::Encoding::ascii);
  ASSERT_TRUE(fs::exists(dir / "grid_000003.pvtu"));
  ASSERT_TRUE(fs::exists(dir / "grid_000003_p0.vtu"));
  EXPECT_EQ(copa::test::file_text(dir / "grid_000003.pvtu"), copa::vtk::pvtu_text(g, {"grid_000003_p0.vtu"}));
  EXPECT_NE(copa::test::file_text(dir / "grid_000003_p0.vtu").find("NumberOfPoints=\"6\" NumberOfCells=\"2\""), std::string::npos);
  fs::remove_all(dir);
}
