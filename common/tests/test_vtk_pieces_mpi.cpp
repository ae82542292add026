// copa::vtk::write_pieces on 2 and 3 ranks (ctest runs it both ways): every rank writes its own
// piece, nothing is gathered, and rank 0's .pvtu names every rank's piece in rank order.
#include <mpi.h>

#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "copa/mpi.hpp"
#include "copa/testing.hpp"
#include "copa/vtk.hpp"
#include "file_text.hpp"

namespace fs = std::filesystem;
using copa::test::file_text;

namespace {
// One unit quad per rank, shifted along x by the rank, its cell value the rank.
copa::vtk::UnstructuredGrid quad_of(int rank) {
  copa::vtk::UnstructuredGrid g;
  const double x = rank;
  g.points = {x, 0, 0, x + 1, 0, 0, x + 1, 1, 0, x, 1, 0};
  g.add_cell(copa::vtk::quad, {0, 1, 2, 3});
  g.cell_data.push_back({"rank", 1, {static_cast<double>(rank)}});
  return g;
}
}  // namespace

TEST(VtkPieces, every_rank_writes_its_piece_and_rank_0_the_pvtu) {
  const int rank = copa::mpi::rank(), ranks = copa::mpi::size();
  // One directory for the whole job: rank 0's pid.
  long pid = static_cast<long>(::getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const fs::path dir = fs::temp_directory_path() / ("copa-test-pieces-" + std::to_string(pid));
  if (rank == 0) fs::create_directories(dir);
  copa::mpi::barrier();
  copa::vtk::write_pieces((dir / "grid.pvtu").string(), quad_of(rank), copa::vtk::Encoding::ascii);
  copa::mpi::barrier();
  // Every rank's piece holds that rank's quad alone (the ASCII value of its "rank" array).
  const std::string mine = file_text(dir / ("grid_p" + std::to_string(rank) + ".vtu"));
  EXPECT_NE(mine.find("NumberOfPoints=\"4\" NumberOfCells=\"1\""), std::string::npos);
  EXPECT_NE(mine.find("Name=\"rank\" format=\"ascii\">\n" + std::to_string(rank) + "\n"), std::string::npos) << mine;
  if (rank == 0) {
    std::vector<std::string> names;
    for (int r = 0; r < ranks; ++r) names.push_back("grid_p" + std::to_string(r) + ".vtu");
    EXPECT_EQ(file_text(dir / "grid.pvtu"), copa::vtk::pvtu_text(quad_of(0), names));
    EXPECT_FALSE(fs::exists(dir / ("grid_p" + std::to_string(ranks) + ".vtu")));
  }
  copa::mpi::barrier();
  if (rank == 0) fs::remove_all(dir);
}
