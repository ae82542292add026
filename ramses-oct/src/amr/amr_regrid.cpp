#include "amr_regrid.hpp"

#include <algorithm>
#include <cmath>

#include "amr_interp.hpp"
#include "amr_regrid_body.hpp"
#include "copa/errors.hpp"

namespace ro::amr {

namespace {

// The criterion byte of cell c of oct o (amr_regrid_body.hpp for the gradient; 2: unbalanced tree).
char criterion(const Tree& t, const TreeView& view, const std::vector<double>& u, const RefineCriterion& rc,
               double gamma, std::int64_t o, int c) {
  if (rc.kind == "everywhere") return 1;
  if (rc.kind == "band") {
    const int l = t.level[o];
    const auto ic = t.cell_coords(o, c);
    const double x0 = ic[0] * t.dx(l), x1 = x0 + t.dx(l);
    return x1 > rc.band_lo && x0 < rc.band_hi;
  }
  return gradient_criterion(view, u.data(), t.noct() * 8, o * 8 + c, gamma, rc.density, rc.pressure);
}

// The 26-neighbourhood of the cells of oct o (level l) without key searches per cell: per axis the
// cell coordinates 2x-1 .. 2x+2 after the boundary mapping (map_cell_axis, as locate() maps
// them), and the octs of the 27 oct slots they fall in, looked up once per oct. A neighbour
// (dx, dy, dz) of cell c sits at position p = 1 + c_a + d_a (0..3) per axis, in slot (p + 1) / 2.
class Around {
 public:
  Around(const Tree& t, std::int64_t o) {
    const int l = t.level[o];
    for (int a = 0; a < 3; ++a)
      for (int p = 0; p < 4; ++p) {
        m_[a][p] = 2 * t.coord[a][o] - 1 + p;
        bool flip;
        map_cell_axis(t, l, a, m_[a][p], flip);
      }
    for (int q = 0; q < 27; ++q) oct_[q] = coarse_[q] = unknown;
  }
  // body(m, q): the mapped cell coordinates m of each of the 26 neighbours of cell c, and its slot q.
  template <class F>
  void for_each_neighbour(int c, F&& body) const {
    const int ca[3] = {c & 1, (c >> 1) & 1, c >> 2};
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (dx == 0 && dy == 0 && dz == 0) continue;
          const int p[3] = {1 + ca[0] + dx, 1 + ca[1] + dy, 1 + ca[2] + dz};
          const int m[3] = {m_[0][p[0]], m_[1][p[1]], m_[2][p[2]]};
          body(m, (p[0] + 1) / 2 + 3 * ((p[1] + 1) / 2) + 9 * ((p[2] + 1) / 2));
        }
  }
  // The level-l cell at m, -1 where that region is coarser (locate() would find a coarser level).
  std::int64_t cell(const Tree& t, int l, const int m[3], int q) {
    if (oct_[q] == unknown) oct_[q] = t.find_oct(l, m[0] >> 1, m[1] >> 1, m[2] >> 1);
    return oct_[q] < 0 ? -1 : std::int64_t(oct_[q]) * 8 + (m[0] & 1) + 2 * (m[1] & 1) + 4 * (m[2] & 1);
  }
  // The level-(l-1) cell holding the level-l cell at m, -1 where it does not exist.
  std::int64_t coarse_cell(const Tree& t, int l, const int m[3], int q) {
    if (coarse_[q] == unknown) coarse_[q] = t.find_oct(l - 1, m[0] >> 2, m[1] >> 2, m[2] >> 2);
    return coarse_[q] < 0 ? -1
                          : std::int64_t(coarse_[q]) * 8 + ((m[0] >> 1) & 1) + 2 * ((m[1] >> 1) & 1) + 4 * ((m[2] >> 1) & 1);
  }

 private:
  static constexpr std::int32_t unknown = -2;
  int m_[3][4];
  std::int32_t oct_[27], coarse_[27];
};

}  // namespace

TreeView tree_view(const Tree& t) {
  TreeView v;
  v.level = t.level.data();
  for (int a = 0; a < 3; ++a) v.coord[a] = t.coord[a].data();
  for (int f = 0; f < 6; ++f) v.nbor[f] = t.nbor[f].data();
  v.father = t.father.data();
  for (int a = 0; a < 3; ++a) {
    v.base_cells[a] = t.base->cells[a];
    v.bc[a] = static_cast<int>(t.base->bc[a]);
  }
  return v;
}

void criterion_flags(const Tree& t, const std::vector<double>& u, const RefineCriterion& rc, double gamma,
                     const Loops& loops, std::vector<char>& crit) {
  const TreeView view = tree_view(t);
  crit.resize(t.noct() * 8);
  loops.run(t.noct(), [&](std::int64_t o, int) {
    for (int c = 0; c < 8; ++c) crit[o * 8 + c] = criterion(t, view, u, rc, gamma, o, c);
  });
}

std::vector<char> refinement_flags(const Tree& t, const std::vector<char>& crit, const Loops& loops) {
  const std::int64_t n = t.noct();
  for (char c : crit)
    if (c > 1) throw copa::RuntimeError("amr: 2:1 balance broken before the regrid (a face neighbour is missing)");
  std::vector<char> flag(n * 8, 0);
  // A leaf is flagged by the criterion; a refined cell stays refined while a cell of its son oct
  // is flagged (or, on the finest level, meets the criterion).
  for (int l = t.max_level - 1; l >= 0; --l)
    for (std::int64_t g = t.level_begin[l] * 8; g < t.level_begin[l + 1] * 8; ++g) {
      const std::int32_t s = t.son[g];
      if (s < 0) {
        flag[g] = crit[g];
        continue;
      }
      for (int c = 0; c < 8; ++c) flag[g] = flag[g] || (l + 1 < t.max_level ? flag[s * 8 + c] : crit[s * 8 + c]);
    }
  // One-cell buffer on every level (26 neighbours that exist on the same level), then the 2:1
  // balance. Each pass reads the flags of one level and sets flags that it does not read in the
  // same pass, so the octs run in parallel, each worker collecting the cells it sets; setting a
  // flag to 1 commutes, so the result does not depend on the schedule.
  std::vector<std::vector<std::int64_t>> add(loops.workers());
  std::vector<char> broken(loops.workers(), 0);
  const auto apply = [&] {
    for (auto& w : add) {
      for (std::int64_t g : w) flag[g] = 1;
      w.clear();
    }
  };
  for (int l = 0; l < t.max_level; ++l) {
    const std::int64_t first = t.level_begin[l];
    loops.run(t.octs_at(l), [&](std::int64_t i, int worker) {
      const std::int64_t o = first + i;
      Around ar(t, o);
      for (int c = 0; c < 8; ++c) {
        if (!flag[o * 8 + c]) continue;
        ar.for_each_neighbour(c, [&](const int m[3], int q) {
          const std::int64_t nb = ar.cell(t, l, m, q);
          if (nb >= 0 && !flag[nb]) add[worker].push_back(nb);
        });
      }
    });
    apply();
  }
  // 2:1 balance (RAMSES): a cell of level l can be refined only if its 26 neighbours exist on
  // level l, i.e. the level l-1 cells that hold them are refined. Finest level first, so a flag
  // set on level l-1 is carried on to l-2. Those cells exist: the tree was balanced before.
  for (int l = t.max_level - 1; l >= 1; --l) {
    const std::int64_t first = t.level_begin[l];
    loops.run(t.octs_at(l), [&](std::int64_t i, int worker) {
      const std::int64_t o = first + i;
      Around ar(t, o);
      for (int c = 0; c < 8; ++c) {
        if (!flag[o * 8 + c]) continue;
        ar.for_each_neighbour(c, [&](const int m[3], int q) {
          const std::int64_t cc = ar.coarse_cell(t, l, m, q);
          if (cc < 0) broken[worker] = 1;  // thrown below: not from inside a parallel loop
          else if (!flag[cc]) add[worker].push_back(cc);
        });
      }
    });
    for (char b : broken)
      if (b) throw copa::RuntimeError("amr: 2:1 balance broken before the regrid");
    apply();
  }
  return flag;
}

RegridMap rebuild_tree_unlinked(Tree& t, const std::vector<char>& flag, std::int64_t max_octs,
                                const Loops& loops) {
  // New octs top-down in key order: each keeps its old index, or -1 with the old father cell.
  std::vector<std::int64_t> old_of(t.octs_at(0)), new_father_old;
  std::vector<std::int64_t> begin = {0};
  std::vector<std::uint64_t> key(t.key.begin(), t.key.begin() + t.octs_at(0));
  std::vector<std::int32_t> coord[3];
  std::vector<std::int8_t> level(t.octs_at(0), 0);
  for (std::int64_t o = 0; o < t.octs_at(0); ++o) old_of[o] = o;
  new_father_old.assign(t.octs_at(0), -1);
  for (int a = 0; a < 3; ++a) coord[a].assign(t.coord[a].begin(), t.coord[a].begin() + t.octs_at(0));
  begin.push_back(static_cast<std::int64_t>(key.size()));
  for (int l = 0; l < t.max_level; ++l) {
    for (std::int64_t i = begin[l]; i < begin[l + 1]; ++i) {
      const std::int64_t old = old_of[i];
      if (old < 0) continue;  // created by this regrid: no flags, no sons yet
      for (int c = 0; c < 8; ++c) {
        if (!flag[old * 8 + c]) continue;
        old_of.push_back(t.son[old * 8 + c]);
        new_father_old.push_back(old * 8 + c);
        key.push_back(key[i] * 8 + c);
        coord[0].push_back(2 * coord[0][i] + (c & 1));
        coord[1].push_back(2 * coord[1][i] + ((c >> 1) & 1));
        coord[2].push_back(2 * coord[2][i] + (c >> 2));
        level.push_back(static_cast<std::int8_t>(l + 1));
      }
      if (static_cast<std::int64_t>(key.size()) > max_octs)
        throw copa::RuntimeError("amr: the refined grid needs more than --max-octs " + std::to_string(max_octs) +
                                 " octs (regrid refused before allocating its state)");
    }
    begin.push_back(static_cast<std::int64_t>(key.size()));
  }
  // How the state moves: kept octs copy theirs, new octs are prolonged from the old father cell
  // and its six face neighbours as prolong_from reads them (locate: the finest existing cells,
  // mirrored at reflecting faces), looked up on the old tree.
  const std::int64_t n = static_cast<std::int64_t>(key.size());
  RegridMap m;
  m.old_noct = t.noct();
  m.source.resize(n);
  std::int64_t rows = 0;
  for (std::int64_t i = 0; i < n; ++i) m.source[i] = static_cast<std::int32_t>(old_of[i] >= 0 ? old_of[i] : -1 - rows++);
  m.src.resize(7 * rows);
  m.flip.resize(7 * rows);
  loops.run(n, [&](std::int64_t i, int) {
    if (m.source[i] >= 0) return;
    const std::int64_t r = -1 - std::int64_t(m.source[i]), fc = new_father_old[i];
    const std::array<int, 3> ic = t.cell_coords(fc / 8, int(fc % 8));
    for (int k = 0; k < 7; ++k) {
      std::array<int, 3> q = ic;
      if (k > 0) q[(k - 1) / 2] += (k - 1) % 2 ? 1 : -1;
      const Located s = locate(t, level[i] - 1, q);
      m.src[7 * r + k] = s.cell;
      m.flip[7 * r + k] = static_cast<std::uint8_t>(s.flip[0] | (s.flip[1] << 1) | (s.flip[2] << 2));
    }
  });
  t.key = std::move(key);
  t.level = std::move(level);
  for (int a = 0; a < 3; ++a) t.coord[a] = std::move(coord[a]);
  t.level_begin = std::move(begin);
  return m;
}

RegridMap rebuild_tree(Tree& t, const std::vector<char>& flag, std::int64_t max_octs, const Loops& loops) {
  RegridMap m = rebuild_tree_unlinked(t, flag, max_octs, loops);
  link(t);
  return m;
}

void move_state(const RegridMap& m, const std::vector<double>& u_old, double gamma, const Loops& loops,
                std::vector<double>& u) {
  const std::int64_t n = static_cast<std::int64_t>(m.source.size());
  u.resize(n * 8 * nvar);
  loops.run(n, [&](std::int64_t i, int) {
    move_oct(i, m.source.data(), m.src.data(), m.flip.data(), u_old.data(), m.old_noct * 8, gamma, u.data(), n * 8);
  });
}

void regrid(Tree& t, std::vector<double>& u, const RefineCriterion& rc, double gamma, std::int64_t max_octs,
            const Loops& loops) {
  std::vector<char> crit;
  criterion_flags(t, u, rc, gamma, loops, crit);
  const RegridMap m = rebuild_tree(t, refinement_flags(t, crit, loops), max_octs, loops);
  std::vector<double> unew;
  move_state(m, u, gamma, loops, unew);
  u = std::move(unew);
}

void initial_grid(Tree& t, std::vector<double>& u, const ProblemParams& pp, const RefineCriterion& rc,
                  std::int64_t max_octs, const Loops& loops) {
  initial_state(t, pp, u);
  for (int round = 0; round < t.max_level; ++round) {
    restrict_all(t, u, loops);
    regrid(t, u, rc, pp.gamma, max_octs, loops);
    initial_state(t, pp, u);
  }
  restrict_all(t, u, loops);
}

}  // namespace ro::amr
