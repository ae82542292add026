#include "copa/vtk.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <CLI/CLI.hpp>

#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "copa/output.hpp"
#include "copa/mpi.hpp"

namespace copa::vtk {

namespace {

bool little_endian() {
  const std::uint16_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

template <class T>
const char* type_name();
template <>
const char* type_name<double>() { return "Float64"; }
template <>
const char* type_name<std::int64_t>() { return "Int64"; }
template <>
const char* type_name<std::uint8_t>() { return "UInt8"; }

void put(std::ostream& os, double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", v);
  os << text;
}
void put(std::ostream& os, std::int64_t v) { os << v; }
void put(std::ostream& os, std::uint8_t v) { os << static_cast<int>(v); }

template <class T>
void data_array(std::ostream& os, const std::string& name, int components, const std::vector<T>& values,
                Encoding encoding) {
  os << "<DataArray type=\"" << type_name<T>() << "\"";
  if (!name.empty()) os << " Name=\"" << name << "\"";
  if (components > 1) os << " NumberOfComponents=\"" << components << "\"";
  os << " format=\"" << (encoding == Encoding::ascii ? "ascii" : "binary") << "\">\n";
  if (encoding == Encoding::ascii) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      put(os, values[i]);
      os << ((i + 1) % 9 == 0 || i + 1 == values.size() ? "\n" : " ");
    }
  } else {
    // One base64 block of the UInt64 byte count followed by the data.
    const std::uint64_t bytes = values.size() * sizeof(T);
    std::string block(sizeof(bytes) + bytes, '\0');
    std::memcpy(block.data(), &bytes, sizeof(bytes));
    if (bytes) std::memcpy(block.data() + sizeof(bytes), values.data(), bytes);
    os << base64(block.data(), block.size()) << "\n";
  }
  os << "</DataArray>\n";
}

void check_arrays(const std::vector<Array>& arrays, std::size_t count, const char* where) {
  for (const auto& a : arrays)
    if (a.components < 1 || a.values.size() != count * static_cast<std::size_t>(a.components))
      throw std::invalid_argument(std::string("vtk: ") + where + " array '" + a.name + "' has " +
                                  std::to_string(a.values.size()) + " values for " + std::to_string(count) +
                                  " tuples of " + std::to_string(a.components));
}

void arrays(std::ostream& os, const char* section, const std::vector<Array>& list, Encoding encoding) {
  if (list.empty()) return;
  os << "<" << section << ">\n";
  for (const auto& a : list) data_array(os, a.name, a.components, a.values, encoding);
  os << "</" << section << ">\n";
}

std::string header(const char* type) {
  return std::string("<?xml version=\"1.0\"?>\n<VTKFile type=\"") + type + "\" version=\"1.0\" byte_order=\"" +
         (little_endian() ? "LittleEndian" : "BigEndian") + "\" header_type=\"UInt64\">\n";
}

// Whole or not at all, exit 3 naming --vtk and the file on failure (copa/output.hpp).
void save(const std::string& path, const std::string& text) {
  write_output(path, "--vtk", [&](std::ostream& out) { out << text; });
}

std::string numbers(const std::array<double, 3>& v) {
  std::ostringstream os;
  for (int d = 0; d < 3; ++d) {
    if (d) os << " ";
    put(os, v[d]);
  }
  return os.str();
}

}  // namespace

std::string base64(const void* data, std::size_t bytes) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* in = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve((bytes + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes; i += 3) {
    const std::size_t n = bytes - i < 3 ? bytes - i : 3;
    const std::uint32_t word = (std::uint32_t(in[i]) << 16) | (n > 1 ? std::uint32_t(in[i + 1]) << 8 : 0u) |
                               (n > 2 ? std::uint32_t(in[i + 2]) : 0u);
    out += alphabet[(word >> 18) & 63];
    out += alphabet[(word >> 12) & 63];
    out += n > 1 ? alphabet[(word >> 6) & 63] : '=';
    out += n > 2 ? alphabet[word & 63] : '=';
  }
  return out;
}

void UnstructuredGrid::add_cell(CellType type, const std::vector<std::int64_t>& point_ids) {
  connectivity.insert(connectivity.end(), point_ids.begin(), point_ids.end());
  offsets.push_back(static_cast<std::int64_t>(connectivity.size()));
  types.push_back(type);
}

void write(const std::string& path, const ImageData& g, Encoding encoding) {
  const std::size_t cells = std::size_t(g.cells[0]) * g.cells[1] * g.cells[2];
  const std::size_t points = std::size_t(g.cells[0] + 1) * (g.cells[1] + 1) * (g.cells[2] + 1);
  check_arrays(g.cell_data, cells, "cell");
  check_arrays(g.point_data, points, "point");
  std::ostringstream os;
  const std::string extent = "0 " + std::to_string(g.cells[0]) + " 0 " + std::to_string(g.cells[1]) + " 0 " +
                             std::to_string(g.cells[2]);
  os << header("ImageData") << "<ImageData WholeExtent=\"" << extent << "\" Origin=\"" << numbers(g.origin)
     << "\" Spacing=\"" << numbers(g.spacing) << "\">\n<Piece Extent=\"" << extent << "\">\n";
  arrays(os, "PointData", g.point_data, encoding);
  arrays(os, "CellData", g.cell_data, encoding);
  os << "</Piece>\n</ImageData>\n</VTKFile>\n";
  save(path, os.str());
}

void write(const std::string& path, const UnstructuredGrid& g, Encoding encoding) {
  if (g.points.size() % 3 != 0) throw std::invalid_argument("vtk: point coordinates are not triples");
  if (g.offsets.size() != g.types.size() || (!g.offsets.empty() && g.offsets.back() != std::int64_t(g.connectivity.size())))
    throw std::invalid_argument("vtk: offsets, types and connectivity do not match");
  check_arrays(g.point_data, g.point_count(), "point");
  check_arrays(g.cell_data, g.cell_count(), "cell");
  std::ostringstream os;
  os << header("UnstructuredGrid") << "<UnstructuredGrid>\n<Piece NumberOfPoints=\"" << g.point_count()
     << "\" NumberOfCells=\"" << g.cell_count() << "\">\n";
  arrays(os, "PointData", g.point_data, encoding);
  arrays(os, "CellData", g.cell_data, encoding);
  os << "<Points>\n";
  data_array(os, "Points", 3, g.points, encoding);
  os << "</Points>\n<Cells>\n";
  data_array(os, "connectivity", 1, g.connectivity, encoding);
  data_array(os, "offsets", 1, g.offsets, encoding);
  data_array(os, "types", 1, g.types, encoding);
  os << "</Cells>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n";
  save(path, os.str());
}

void write(const std::string& path, const PolyData& c, Encoding encoding) {
  if (c.points.size() % 3 != 0) throw std::invalid_argument("vtk: point coordinates are not triples");
  const std::size_t n = c.point_count();
  check_arrays(c.point_data, n, "point");
  std::vector<std::int64_t> ids(n);
  for (std::size_t i = 0; i < n; ++i) ids[i] = static_cast<std::int64_t>(i);
  std::ostringstream os;
  os << header("PolyData") << "<PolyData>\n<Piece NumberOfPoints=\"" << n << "\" NumberOfVerts=\"" << n
     << "\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n";
  arrays(os, "PointData", c.point_data, encoding);
  os << "<Points>\n";
  data_array(os, "Points", 3, c.points, encoding);
  // Vertex i is point i: the connectivity and the offsets (ends) are 0..n-1 and 1..n.
  os << "</Points>\n<Verts>\n";
  data_array(os, "connectivity", 1, ids, encoding);
  for (auto& id : ids) ++id;
  data_array(os, "offsets", 1, ids, encoding);
  os << "</Verts>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  save(path, os.str());
}

std::string piece_name(const std::string& pvtu_path, int rank) {
  const std::filesystem::path p(pvtu_path);
  return p.stem().string() + "_p" + std::to_string(rank) + ".vtu";
}

std::string pvtu_text(const UnstructuredGrid& layout, const std::vector<std::string>& pieces) {
  // The parallel file repeats each array's declaration (no data): PDataArray with the piece's
  // type, name and component count, in the pieces' order.
  auto declare = [](std::ostream& os, const char* type, const std::string& name, int components) {
    os << "<PDataArray type=\"" << type << "\"";
    if (!name.empty()) os << " Name=\"" << name << "\"";
    if (components > 1) os << " NumberOfComponents=\"" << components << "\"";
    os << "/>\n";
  };
  auto section = [&](std::ostream& os, const char* tag, const std::vector<Array>& list) {
    if (list.empty()) return;
    os << "<" << tag << ">\n";
    for (const auto& a : list) declare(os, type_name<double>(), a.name, a.components);
    os << "</" << tag << ">\n";
  };
  std::ostringstream os;
  os << header("PUnstructuredGrid") << "<PUnstructuredGrid GhostLevel=\"0\">\n";
  section(os, "PPointData", layout.point_data);
  section(os, "PCellData", layout.cell_data);
  os << "<PPoints>\n";
  declare(os, type_name<double>(), "Points", 3);
  os << "</PPoints>\n";
  for (const auto& piece : pieces) os << "<Piece Source=\"" << piece << "\"/>\n";
  os << "</PUnstructuredGrid>\n</VTKFile>\n";
  return os.str();
}

void write_pieces(const std::string& pvtu_path, const UnstructuredGrid& piece, Encoding encoding) {
  const int rank = mpi::rank(), ranks = mpi::size();
  const std::filesystem::path dir = std::filesystem::path(pvtu_path).parent_path();
  write((dir / piece_name(pvtu_path, rank)).string(), piece, encoding);
  if (rank != 0) return;
  std::vector<std::string> pieces;
  for (int r = 0; r < ranks; ++r) pieces.push_back(piece_name(pvtu_path, r));
  save(pvtu_path, pvtu_text(piece, pieces));
}

void Collection::add(double time, const std::string& file) { entries_.emplace_back(time, file); }

void Collection::write(const std::string& path) const {
  std::ostringstream os;
  os << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\">\n<Collection>\n";
  for (const auto& [time, file] : entries_) {
    os << "<DataSet timestep=\"";
    put(os, time);
    os << "\" part=\"0\" file=\"" << file << "\"/>\n";
  }
  os << "</Collection>\n</VTKFile>\n";
  save(path, os.str());
}

void add_options(CLI::App& app, Options& o) {
  app.add_option("--vtk", o.dir, "Write ParaView (VTK XML) output of the final state into directory DIR (created if its parent exists)");
  app.add_option("--vtk-every", o.every, "Also write the state every N steps (and step 0) into DIR, listed in DIR/<app>.pvd")
      ->check(cli::count(1, 1000000000));
  app.add_option("--vtk-encoding", o.encoding, "VTK data arrays: binary (base64) or ascii")
      ->check(CLI::IsMember({"binary", "ascii"}))
      ->capture_default_str();
}

void prepare(const Options& o) {
  namespace fs = std::filesystem;
  if (o.every > 0 && o.dir.empty()) throw InputError("--vtk-every: needs --vtk DIR (where the files go)");
  if (o.dir.empty()) return;
  std::error_code ec;
  const fs::path dir(o.dir);
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) throw InputError("--vtk: '" + o.dir + "' is not a directory");
  if (!fs::exists(dir, ec)) {
    const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
    if (!fs::is_directory(parent, ec))
      throw InputError("--vtk: the parent directory '" + parent.string() + "' of '" + o.dir + "' does not exist");
    if (!fs::create_directory(dir, ec) && !fs::is_directory(dir))
      throw InputError("--vtk: cannot create directory '" + o.dir + "' (" + ec.message() + ")");
  }
  // A file must be creatable in it (read-only mounts and permissions show only on creation).
  const fs::path probe = dir / ".copa-vtk-probe";
  std::ofstream f(probe);
  if (!f) throw InputError("--vtk: cannot create files in '" + o.dir + "' (" + std::strerror(errno) + ")");
  f.close();
  fs::remove(probe, ec);
}

Series::Series(const Options& options, std::string name, std::string extension)
    : options_(options), name_(std::move(name)), extension_(std::move(extension)) {}

bool Series::due(long step) const { return enabled() && options_.every > 0 && step % options_.every == 0; }

void Series::add_step(long step, double time, const Writer& write) {
  char index[24];
  std::snprintf(index, sizeof(index), "%06ld", step);
  const std::string file = name_ + "_" + index + "." + extension_;
  const std::string path = (std::filesystem::path(options_.dir) / file).string();
  write(path);
  files_.push_back(path);
  collection_.add(time, file);
  const std::string pvd = (std::filesystem::path(options_.dir) / (name_ + ".pvd")).string();
  if (mpi::is_root()) collection_.write(pvd);
  if (collection_.size() == 1) files_.push_back(pvd);
  last_step_ = step;
}

void Series::at_step(long step, double time, const Writer& write) {
  if (due(step)) add_step(step, time, write);
}

void Series::at_end(long step, double time, const Writer& write) {
  if (!enabled()) return;
  if (options_.every > 0 && last_step_ != step) add_step(step, time, write);
  const std::string path = (std::filesystem::path(options_.dir) / (name_ + "." + extension_)).string();
  write(path);
  files_.push_back(path);
}

}  // namespace copa::vtk
