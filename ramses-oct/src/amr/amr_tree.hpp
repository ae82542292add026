// The oct tree of an AMR run (RAMSES's oct AMR, Teyssier 2002): level 0 is the base mesh of
// OctMesh; a cell of level l can own a son oct of level l+1 (2x2x2 cells of half the size).
// Structure of arrays over all octs of all levels, levels concatenated (level 0 first), each
// level in the order of its keys: the key of an oct is its base oct's Morton rank followed by 3
// bits per level (the octant of the oct in its father's oct), so the sons of a level's octs, taken
// in that level's order, come out sorted, and a contiguous key range of the finest level is a
// contiguous range of every coarser level (the partition a distributed AMR would cut).
// State [field][oct][8 cells], strided by all octs; a covered cell (one with a son) holds the
// volume average of its son's cells.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "amr/amr_clock.hpp"
#include "hydro/hydro_math.hpp"
#include "hydro/mesh.hpp"

namespace ro::amr {

// The deepest level the keys allow (3 bits per level above the base rank in 64 bits).
inline constexpr int max_levels = 8;

// The level of oct index o in a tree with these level bounds (Tree::level_begin, L + 2 entries):
// for a table that holds only the bounds (the GPU step's, the rank exchanges' after a device regrid).
inline int level_of_index(const std::vector<std::int64_t>& level_begin, std::int64_t o) {
  return static_cast<int>(std::upper_bound(level_begin.begin(), level_begin.end(), o) - level_begin.begin()) - 1;
}

struct Tree {
  const OctMesh* base = nullptr;       // level 0: extents, boundaries, base Morton ranks
  int max_level = 0;                   // L (--levels)
  std::vector<std::int64_t> level_begin;  // L + 2 entries: level l is [level_begin[l], level_begin[l+1])
  // Per oct.
  std::vector<std::uint64_t> key;
  std::vector<std::int8_t> level;
  std::vector<std::int32_t> coord[3];  // integer oct coordinates at the oct's level
  std::vector<std::int32_t> father;    // father cell (oct * 8 + cell), -1 on level 0
  std::vector<std::int32_t> nbor[6];   // same-level face neighbours (periodic wrap, itself across a
                                       // reflecting/outflow face), -1 where the region is coarser
  // Per cell (oct * 8 + cell): the son oct, -1 for a leaf.
  std::vector<std::int32_t> son;
  // Per level, the octs by coordinates (built by link()): an open-addressing hash table of the
  // packed coordinates, so that find_oct costs one or two probes instead of a Morton encoding and a
  // binary search over the level's keys (the regrid, the step plan and the gather call it ~50
  // times per cell). The levels' tables are concatenated (level l from hash_begin[l], a power-of-two
  // size, at most half full), so the device plan build takes them in one copy (amr_plan_body.hpp).
  struct HashEntry {
    std::uint64_t packed;  // x | y << 21 | z << 42; empty_slot where no oct is stored
    std::int32_t oct;
  };
  std::vector<HashEntry> hash_slots;
  std::vector<std::int64_t> hash_begin;  // L + 2 entries
  std::vector<int> hash_shift;           // per level, 64 - log2(its table's size)
  static constexpr std::uint64_t empty_slot = ~std::uint64_t(0);

  // Over several MPI ranks (amr_ranks.hpp): per level the octs this rank owns, [owned_begin[l],
  // owned_end[l]) (the descendants of its base-oct range are contiguous on every level). Empty on
  // one rank: every oct is owned. The state loops (update, reflux, restriction, dt scan, criterion,
  // state move) visit the owned octs only; the tree's metadata stays whole on every rank.
  std::vector<std::int64_t> owned_begin, owned_end;
  std::int64_t owned_first(int l) const { return owned_begin.empty() ? level_begin[l] : owned_begin[l]; }
  std::int64_t owned_last(int l) const { return owned_end.empty() ? level_begin[l + 1] : owned_end[l]; }
  bool owns(std::int64_t o) const {
    if (owned_begin.empty()) return true;
    const int l = level[o];
    return o >= owned_begin[l] && o < owned_end[l];
  }

  std::int64_t noct() const { return static_cast<std::int64_t>(key.size()); }
  std::int64_t octs_at(int l) const { return level_begin[l + 1] - level_begin[l]; }
  double dx(int l) const { return level_dx(base->dx, l); }
  int cells_at(int l, int axis) const { return base->cells[axis] << l; }
  std::int64_t leaf_cells() const;
  std::vector<std::int64_t> octs_per_level() const;
  std::vector<std::int64_t> leaf_cells_per_level() const;

  // The oct of level l at integer oct coordinates (inside the domain) of that level, -1 if absent.
  std::int32_t find_oct(int l, int x, int y, int z) const;
  // Oct coordinates are below 2^21 on every level (8192 base octs per axis, 8 levels).
  // Host and device (the device plan build, amr_plan_body.hpp, probes the uploaded table).
  RO_HD static std::uint64_t pack(int x, int y, int z) {
    return std::uint64_t(std::uint32_t(x)) | std::uint64_t(std::uint32_t(y)) << 21 | std::uint64_t(std::uint32_t(z)) << 42;
  }
  // Fibonacci hashing (Knuth, TAOCP 6.4): the top bits of the product depend on all the coordinates.
  RO_HD static std::uint64_t hash(std::uint64_t p, int shift) { return (p * 0x9E3779B97F4A7C15ull) >> shift; }
  // One level's lookup: linear probing from the hash in a power-of-two table of size mask + 1.
  // find_oct on the host and view_find_oct on the device (amr_plan_body.hpp) both probe through it.
  RO_HD static std::int32_t probe(const HashEntry* slots, std::uint64_t mask, int shift, int x, int y, int z) {
    const std::uint64_t p = pack(x, y, z);
    for (std::uint64_t h = hash(p, shift);; h = (h + 1) & mask) {
      if (slots[h].packed == p) return slots[h].oct;
      if (slots[h].packed == empty_slot) return -1;
    }
  }
  // Integer cell coordinates of cell c (0..7, x fastest) of oct o at its level.
  std::array<int, 3> cell_coords(std::int64_t o, int c) const {
    return {2 * coord[0][o] + (c & 1), 2 * coord[1][o] + ((c >> 1) & 1), 2 * coord[2][o] + ((c >> 2) & 1)};
  }
};

// Boundary mapping of a cell coordinate of level l along one axis: periodic
// wraps, reflecting mirrors (i -> -1 - i; flip: the caller negates the normal momentum), outflow
// clamps (zero gradient): the same cells the uniform gather reads (tile_axis_source).
void map_cell_axis(const Tree& t, int l, int axis, int& i, bool& flip);
// The same on n cells of boundary kind bc (Boundary as int): host and device (view_map_cell_axis).
RO_HD void map_axis(int n, int bc, int& i, bool& flip) {
  flip = false;
  if (i >= 0 && i < n) return;
  if (bc == static_cast<int>(Boundary::periodic)) {
    i = ((i % n) + n) % n;
  } else if (bc == static_cast<int>(Boundary::reflecting)) {
    i = i < 0 ? -1 - i : 2 * n - 1 - i;
    flip = true;
  } else {
    i = i < 0 ? 0 : n - 1;
  }
}

// A cell of level l by coordinates, after the boundary mapping: the finest existing cell that
// contains it (level <= l), as a global cell index, with that level and the momentum flips.
struct Located {
  std::int64_t cell;
  int level;
  bool flip[3];
};
Located locate(const Tree& t, int l, std::array<int, 3> ic);

// The cell beyond face (a, side) of cell c of oct o on o's level, without a key search: inside the
// oct, or through the oct's neighbour table; the cell itself across a reflecting or outflow domain
// face (the mirror i -> -1 - i and the clamp of map_cell_axis both land on it). -1 where the region
// beyond is coarser: there locate() finds the coarse cell. Otherwise the cell locate() finds.
std::int64_t same_level_neighbour(const Tree& t, std::int64_t o, int c, int a, bool side);

// A tree of level 0 only (the base mesh).
Tree base_tree(const OctMesh& m, int max_level);
// Rebuilds the coordinate index, father, son and neighbour links from the levels and coordinates.
void link(Tree& t);
// The sizes of the levels' hash tables that link() builds (the device rebuild builds the same):
// level l's table from hash_begin[l], the smallest power of two >= 16 and >= twice its octs (at
// most half full), hash_shift[l] = 64 - log2(its size); level_begin as Tree::level_begin.
void hash_layout(const std::vector<std::int64_t>& level_begin, int max_level, std::vector<std::int64_t>& hash_begin,
                 std::vector<int>& hash_shift);

// Structural checks for the tests; each returns an empty string when it holds, else what failed.
std::string check_father_son(const Tree& t);
// 2:1 balance in RAMSES's form: the 26 neighbours (faces, edges, corners) of every refined cell
// exist at its level.
std::string check_balance(const Tree& t);

}  // namespace ro::amr
