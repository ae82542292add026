// The oct mesh: a uniform level of octs (2x2x2 cells) over a brick root domain of nx x ny x nz
// cells (each even, >= 4), stored as structure of arrays and ordered along a Morton curve. Field
// data live elsewhere as [field][oct][8 cells]. A mesh is either the global mesh or one rank's
// part of it (decomposition.hpp): its first `nowned` octs are updated, the rest are ghosts.
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
// no holes are needed. Extents that are not powers of two use the code of the enclosing
// power-of-two brick: the codes of the octs that exist are sorted and the holes skipped.
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
  std::int64_t noct = 0;           // octs stored (owned, then ghosts)
  std::int64_t nowned = 0;         // octs updated by this mesh's owner: the first nowned
  std::int64_t first_global = 0;   // global index (Morton rank) of oct 0
  MortonBrick order;
  bool dense = true;               // every extent a power of two: the Morton code is the index
  std::vector<std::uint64_t> keys; // !dense: the sorted Morton codes of the global octs
  // Structure of arrays, indexed by oct (Morton rank).
  std::vector<std::int8_t> oct_level;
  std::vector<std::int32_t> coord[3];   // integer oct coordinates
  std::vector<std::int32_t> nbor[6];    // face neighbour octs; itself across a non-periodic face

  std::int64_t ncell() const { return noct * 8; }
  std::int64_t nowned_cells() const { return nowned * 8; }
  // Global oct index (Morton rank) of integer oct coordinates, wrapped periodically.
  std::int32_t oct_at(int x, int y, int z) const;
  // Every aligned 2x2x2 oct group is complete (even oct extents): the groups are 8 consecutive
  // indices, the tiles of the OpenMP and GPU variants.
  bool whole_groups() const { return octs[0] % 2 == 0 && octs[1] % 2 == 0 && octs[2] % 2 == 0; }
  // Global integer cell coordinates of cell c (0..7, x fastest) of oct o.
  std::array<int, 3> cell_coords(std::int64_t o, int c) const;
  double cell_center([[maybe_unused]] int axis, int i) const { return (i + 0.5) * dx; }
};

// Throws InputError naming the option when an extent is not even in [4, 16384].
OctMesh build_mesh(std::array<int, 3> cells, std::array<Boundary, 3> bc);

// Bytes of mesh tables per oct (for the memory estimate).
inline constexpr double mesh_bytes_per_oct = 1 + 3 * 4 + 6 * 4;

}  // namespace ro
