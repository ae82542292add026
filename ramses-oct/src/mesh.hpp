// The oct mesh: a uniform level of octs (2x2x2 cells) over a brick root domain of nx x ny x nz
// cells (each a power of two, >= 4), stored as structure of arrays and ordered along a Morton
// curve. Field data live elsewhere (state.hpp) as [field][oct][8 cells].
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ro {

enum class Boundary : int { periodic = 0, reflecting = 1, outflow = 2 };
Boundary parse_boundary(const std::string& name);  // throws InputError naming --bc
std::string to_string(Boundary b);

// Face f = 2*axis + side (side 0 = low, 1 = high).
inline constexpr int face_index(int axis, int side) { return 2 * axis + side; }

// Truncated Morton code: bit b of every coordinate whose extent still has bit b is interleaved
// (x, then y, then z). On a cube this is the plain Morton code; on a brick of unequal powers of
// two it stays a dense bijection onto [0, nx*ny*nz) that keeps Morton locality, so no sort and
// no holes are needed.
struct MortonBrick {
  std::array<int, 3> bits{};  // log2 of the extent along each axis
  std::uint64_t encode(int x, int y, int z) const;
  std::array<int, 3> decode(std::uint64_t code) const;
};

struct OctMesh {
  std::array<int, 3> cells{};      // cells per axis
  std::array<int, 3> octs{};       // octs per axis (cells / 2)
  std::array<Boundary, 3> bc{};    // per axis, both sides
  double dx = 0;                   // cubic cells; the box is cells * dx, 1 along x
  int level = 0;                   // log2(max cells): the level of a uniform mesh
  std::int64_t noct = 0;
  MortonBrick order;
  // Structure of arrays, indexed by oct (Morton rank).
  std::vector<std::int8_t> oct_level;
  std::vector<std::int32_t> coord[3];   // integer oct coordinates
  std::vector<std::int32_t> nbor[6];    // face neighbour octs; itself across a non-periodic face

  std::int64_t ncell() const { return noct * 8; }
  // Oct index (Morton rank) of integer oct coordinates, wrapped periodically.
  std::int32_t oct_at(int x, int y, int z) const;
  // Global integer cell coordinates of cell c (0..7, x fastest) of oct o.
  std::array<int, 3> cell_coords(std::int64_t o, int c) const;
  double cell_center([[maybe_unused]] int axis, int i) const { return (i + 0.5) * dx; }
};

// Throws InputError naming the option when an extent is not a power of two >= 4.
OctMesh build_mesh(std::array<int, 3> cells, std::array<Boundary, 3> bc);

// Bytes of mesh tables per oct (for the memory estimate).
inline constexpr double mesh_bytes_per_oct = 1 + 3 * 4 + 6 * 4;

}  // namespace ro
