// ParaView-readable output: the VTK XML formats (ImageData .vti, UnstructuredGrid .vtu, PolyData
// .vtp points, and the .pvd collection of a time series), written without any VTK library.
// Every array is Float64 (coordinates, fields) or Int64/UInt8 (topology); data are inline, either
// ASCII (%.17g: exact round trip) or "binary" (base64 of a UInt64 byte count followed by the
// little-endian bytes, VTK's inline binary encoding with header_type="UInt64").
// The file format: "VTK File Formats", VTK User's Guide 11th ed., ch. 19 (XML file formats).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace copa::vtk {

enum class Encoding { ascii, binary };

// VTK's cell type numbers (vtkCellType.h) of the cells the apps write.
enum CellType : std::uint8_t {
  vertex = 1,
  triangle = 5,
  quad = 9,
  hexahedron = 12,
  lagrange_quadrilateral = 70,
  lagrange_hexahedron = 72,
};

// One named array: `components` values per point or per cell, tuple after tuple.
struct Array {
  std::string name;
  int components = 1;
  std::vector<double> values;
};

// A uniform grid of cells[0] x cells[1] x cells[2] cells; cell data in x-fastest order
// (i + nx (j + ny k)), point data likewise over (nx+1)(ny+1)(nz+1) points.
struct ImageData {
  std::array<int, 3> cells{};
  std::array<double, 3> origin{};
  std::array<double, 3> spacing{1, 1, 1};
  std::vector<Array> point_data, cell_data;
};

// Cells of any type: points (x,y,z per point), connectivity (point indices of every cell one after
// another), offsets (the end of each cell's run in connectivity) and one type per cell.
struct UnstructuredGrid {
  std::vector<double> points;
  std::vector<std::int64_t> connectivity, offsets;
  std::vector<std::uint8_t> types;
  std::vector<Array> point_data, cell_data;
  std::size_t point_count() const { return points.size() / 3; }
  std::size_t cell_count() const { return types.size(); }
  // Appends a cell of the given type over the given points.
  void add_cell(CellType type, const std::vector<std::int64_t>& point_ids);
};

// Particles: points with point data, each point also written as a vertex cell so that ParaView
// draws them with the Surface representation.
struct PolyData {
  std::vector<double> points;
  std::vector<Array> point_data;
  std::size_t point_count() const { return points.size() / 3; }
};

// Throw copa::RuntimeError (exit 3) naming the file when it cannot be written, and
// std::invalid_argument when an array's size does not match its point or cell count.
void write(const std::string& path, const ImageData& grid, Encoding encoding);
void write(const std::string& path, const UnstructuredGrid& grid, Encoding encoding);
void write(const std::string& path, const PolyData& cloud, Encoding encoding);

// ParaView's parallel format over MPI ranks, nothing gathered: every rank writes its own piece
// `<stem>_p<rank>.vtu` next to `<stem>.pvtu` with the writer above, and rank 0 writes the .pvtu
// (a PUnstructuredGrid declaring the pieces' arrays, names, types and components, and one
// <Piece Source=...> per rank, relative to the .pvtu's directory). Every rank must call it with
// the same arrays in the same order. On one rank it writes the .pvtu and the one piece too.
void write_pieces(const std::string& pvtu_path, const UnstructuredGrid& piece, Encoding encoding);
// The piece file name of `rank` for a .pvtu path (`<stem>_p<rank>.vtu`, no directory).
std::string piece_name(const std::string& pvtu_path, int rank);
// The .pvtu text over `pieces` (relative file names) with the arrays of `layout` (its values unused).
std::string pvtu_text(const UnstructuredGrid& layout, const std::vector<std::string>& pieces);

// A .pvd collection: one (time, file) entry per data set of a time series; `file` is written as
// given (a name relative to the .pvd's directory keeps the directory movable).
class Collection {
 public:
  void add(double time, const std::string& file);
  void write(const std::string& path) const;
  std::size_t size() const { return entries_.size(); }

 private:
  std::vector<std::pair<double, std::string>> entries_;
};

// RFC 4648 base64 (with '=' padding) of a byte range.
std::string base64(const void* data, std::size_t bytes);

// The options every app shares for its output: --vtk DIR, --vtk-every N, --vtk-encoding.
struct Options {
  std::string dir;
  long every = 0;                // 0: only at the end of the run
  std::string encoding = "binary";
  bool enabled() const { return !dir.empty(); }
  Encoding format() const { return encoding == "ascii" ? Encoding::ascii : Encoding::binary; }
};
void add_options(CLI::App& app, Options& options);

// Before the run: --vtk-every needs --vtk; the directory exists or its parent does (it is then
// created), and a file can be created in it. Throws copa::InputError naming the option (exit 2).
void prepare(const Options& options);

// The files of one run: DIR/<name>.<ext> at the end, and with --vtk-every N also
// DIR/<name>_<step>.<ext> at step 0, every N steps and at the end, listed in DIR/<name>.pvd
// (rewritten after each file, so that a run cut short leaves a readable series). Over MPI ranks
// <ext> is pvtu (the writer calls write_pieces), and only rank 0 writes the .pvd.
class Series {
 public:
  // Writes one data set to the given path.
  using Writer = std::function<void(const std::string& path)>;
  Series(const Options& options, std::string name, std::string extension);
  bool enabled() const { return options_.enabled(); }
  Encoding encoding() const { return options_.format(); }
  // True at step 0 and every N-th step of a --vtk-every run: the caller then builds its data set.
  bool due(long step) const;
  // Writes the data set of `step` (when due) and adds it to the .pvd.
  void at_step(long step, double time, const Writer& write);
  // End of the run: the last step into the series (when not written yet), then DIR/<name>.<ext>.
  void at_end(long step, double time, const Writer& write);
  // Every file written so far (data sets and the .pvd), in order.
  const std::vector<std::string>& files() const { return files_; }

 private:
  void add_step(long step, double time, const Writer& write);
  Options options_;
  std::string name_, extension_;
  Collection collection_;
  long last_step_ = -1;
  std::vector<std::string> files_;
};

}  // namespace copa::vtk
