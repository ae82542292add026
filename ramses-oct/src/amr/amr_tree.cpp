#include "amr/amr_tree.hpp"

#include <algorithm>

#include "copa/errors.hpp"

namespace ro::amr {

std::int64_t Tree::leaf_cells() const {
  return std::count(son.begin(), son.end(), -1);
}

std::vector<std::int64_t> Tree::octs_per_level() const {
  std::vector<std::int64_t> n;
  for (int l = 0; l <= max_level; ++l) n.push_back(octs_at(l));
  return n;
}

std::vector<std::int64_t> Tree::leaf_cells_per_level() const {
  std::vector<std::int64_t> n(max_level + 1, 0);
  for (int l = 0; l <= max_level; ++l)
    for (std::int64_t c = level_begin[l] * 8; c < level_begin[l + 1] * 8; ++c) n[l] += son[c] < 0;
  return n;
}

void map_cell_axis(const Tree& t, int l, int axis, int& i, bool& flip) {
  map_axis(t.cells_at(l, axis), static_cast<int>(t.base->bc[axis]), i, flip);
}

Located locate(const Tree& t, int l, std::array<int, 3> ic) {
  Located r{};
  for (int a = 0; a < 3; ++a) map_cell_axis(t, l, a, ic[a], r.flip[a]);
  for (int m = l; m >= 0; --m) {
    const int s = l - m;
    const int x = ic[0] >> s, y = ic[1] >> s, z = ic[2] >> s;
    const std::int32_t o = t.find_oct(m, x >> 1, y >> 1, z >> 1);
    if (o >= 0) {
      r.cell = std::int64_t(o) * 8 + (x & 1) + 2 * (y & 1) + 4 * (z & 1);
      r.level = m;
      return r;
    }
  }
  throw copa::RuntimeError("amr: a cell of level " + std::to_string(l) + " has no level-0 oct (broken tree)");
}

std::int64_t same_level_neighbour(const Tree& t, std::int64_t o, int c, int a, bool side) {
  const int bit = 1 << a;
  if (bool(c & bit) != side) return o * 8 + (c ^ bit);
  const int l = t.level[o];
  const bool at_domain_face = side ? t.coord[a][o] == t.cells_at(l, a) / 2 - 1 : t.coord[a][o] == 0;
  if (at_domain_face && t.base->bc[a] != Boundary::periodic) return o * 8 + c;
  const std::int32_t n = t.nbor[face_index(a, side)][o];
  return n < 0 ? -1 : std::int64_t(n) * 8 + (c ^ bit);
}

Tree base_tree(const OctMesh& m, int max_level) {
  if (max_level > max_levels)
    throw copa::InputError("--levels: " + std::to_string(max_level) + " is above the " + std::to_string(max_levels) +
                           " levels the 64-bit oct keys hold");
  Tree t;
  t.base = &m;
  t.max_level = max_level;
  t.level_begin.assign(max_level + 2, m.noct);
  t.level_begin[0] = 0;
  t.key.resize(m.noct);
  t.level.assign(m.noct, 0);
  for (int a = 0; a < 3; ++a) t.coord[a] = m.coord[a];
  for (std::int64_t o = 0; o < m.noct; ++o) t.key[o] = static_cast<std::uint64_t>(o);
  link(t);
  return t;
}

std::int32_t Tree::find_oct(int l, int x, int y, int z) const {
  const std::uint64_t mask = static_cast<std::uint64_t>(hash_begin[l + 1] - hash_begin[l] - 1);
  return probe(hash_slots.data() + hash_begin[l], mask, hash_shift[l], x, y, z);
}

void hash_layout(const std::vector<std::int64_t>& level_begin, int max_level, std::vector<std::int64_t>& hash_begin,
                 std::vector<int>& hash_shift) {
  hash_begin.assign(max_level + 2, 0);
  hash_shift.assign(max_level + 1, 60);
  for (int l = 0; l <= max_level; ++l) {
    std::int64_t size = 16;
    while (size < 2 * (level_begin[l + 1] - level_begin[l])) {
      size *= 2;
      --hash_shift[l];
    }
    hash_begin[l + 1] = hash_begin[l] + size;
  }
}

namespace {

void build_index(Tree& t) {
  hash_layout(t.level_begin, t.max_level, t.hash_begin, t.hash_shift);
  t.hash_slots.assign(t.hash_begin.back(), {Tree::empty_slot, -1});
  for (int l = 0; l <= t.max_level; ++l) {
    Tree::HashEntry* slots = t.hash_slots.data() + t.hash_begin[l];
    const std::uint64_t mask = static_cast<std::uint64_t>(t.hash_begin[l + 1] - t.hash_begin[l] - 1);
    for (std::int64_t o = t.level_begin[l]; o < t.level_begin[l + 1]; ++o) {
      const std::uint64_t p = Tree::pack(t.coord[0][o], t.coord[1][o], t.coord[2][o]);
      std::uint64_t h = Tree::hash(p, t.hash_shift[l]);
      while (slots[h].packed != Tree::empty_slot) h = (h + 1) & mask;
      slots[h] = {p, static_cast<std::int32_t>(o)};
    }
  }
}

}  // namespace

void link(Tree& t) {
  const std::int64_t n = t.noct();
  build_index(t);
  t.father.assign(n, -1);
  t.son.assign(n * 8, -1);
  for (int f = 0; f < 6; ++f) t.nbor[f].assign(n, -1);
  for (int l = 0; l <= t.max_level; ++l) {
    for (std::int64_t o = t.level_begin[l]; o < t.level_begin[l + 1] && l > 0; ++o) {
      const int x = t.coord[0][o], y = t.coord[1][o], z = t.coord[2][o];
      const std::int32_t fo = t.find_oct(l - 1, x >> 1, y >> 1, z >> 1);
      if (fo < 0) throw copa::RuntimeError("amr: an oct of level " + std::to_string(l) + " has no father (broken tree)");
      const int fc = (x & 1) + 2 * (y & 1) + 4 * (z & 1);
      t.father[o] = fo * 8 + fc;
      t.son[std::int64_t(fo) * 8 + fc] = static_cast<std::int32_t>(o);
    }
    for (std::int64_t o = t.level_begin[l]; o < t.level_begin[l + 1]; ++o)
      for (int a = 0; a < 3; ++a)
        for (int side = 0; side < 2; ++side) {
          if (l > 0) {
            // Oct coordinates of level l are cell coordinates of level l-1 and both map the same
            // way at the domain faces, so the neighbour oct is the son of the father cell's
            // neighbour (none where that cell is missing or a leaf).
            const std::int64_t g = same_level_neighbour(t, t.father[o] / 8, t.father[o] % 8, a, side);
            t.nbor[face_index(a, side)][o] = g < 0 ? -1 : t.son[g];
            continue;
          }
          // The neighbour oct: the oct holding the cell beyond this oct's face, after the mapping.
          std::array<int, 3> ic = {2 * t.coord[0][o], 2 * t.coord[1][o], 2 * t.coord[2][o]};
          ic[a] += side ? 2 : -1;
          bool flip;
          map_cell_axis(t, l, a, ic[a], flip);
          t.nbor[face_index(a, side)][o] = t.find_oct(l, ic[0] >> 1, ic[1] >> 1, ic[2] >> 1);
        }
  }
}

std::string check_father_son(const Tree& t) {
  for (int l = 0; l <= t.max_level; ++l)
    for (std::int64_t o = t.level_begin[l]; o < t.level_begin[l + 1]; ++o) {
      if (t.level[o] != l) return "oct " + std::to_string(o) + " stored in level " + std::to_string(l) + " has level " + std::to_string(t.level[o]);
      if (o > t.level_begin[l] && t.key[o] <= t.key[o - 1]) return "keys of level " + std::to_string(l) + " not increasing at oct " + std::to_string(o);
      if (l == 0 && t.father[o] != -1) return "level-0 oct " + std::to_string(o) + " has a father";
      if (l > 0) {
        const std::int32_t fc = t.father[o];
        if (fc < 0 || t.son[fc] != o) return "oct " + std::to_string(o) + ": father cell's son is not the oct";
        if (t.level[fc / 8] != l - 1) return "oct " + std::to_string(o) + ": father not on the level above";
        const auto p = t.cell_coords(fc / 8, fc % 8);
        for (int a = 0; a < 3; ++a)
          if (p[a] != t.coord[a][o]) return "oct " + std::to_string(o) + ": not at its father cell's position";
      }
      for (int c = 0; c < 8; ++c) {
        const std::int32_t s = t.son[o * 8 + c];
        if (s >= 0 && t.father[s] != o * 8 + c) return "cell " + std::to_string(o * 8 + c) + ": son's father is not the cell";
      }
    }
  return "";
}

std::string check_balance(const Tree& t) {
  for (int l = 0; l < t.max_level; ++l)
    for (std::int64_t o = t.level_begin[l]; o < t.level_begin[l + 1]; ++o)
      for (int c = 0; c < 8; ++c) {
        if (t.son[o * 8 + c] < 0) continue;
        const auto ic = t.cell_coords(o, c);
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const Located n = locate(t, l, {ic[0] + dx, ic[1] + dy, ic[2] + dz});
              if (n.level != l)
                return "refined cell " + std::to_string(o * 8 + c) + " (level " + std::to_string(l) +
                       ") has a neighbour only on level " + std::to_string(n.level);
            }
      }
  return "";
}

}  // namespace ro::amr
