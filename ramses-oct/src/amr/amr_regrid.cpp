#include "amr/amr_regrid.hpp"

#include <algorithm>
#include <cmath>

#include "amr/amr_interp.hpp"
#include "amr/amr_ranks.hpp"
#include "amr/amr_regrid_body.hpp"
#include "copa/errors.hpp"

namespace ro::amr {

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
  // The owned ranges were the old tree's: the caller partitions the new one (amr_ranks.hpp).
  t.owned_begin.clear();
  t.owned_end.clear();
  return m;
}

RegridMap rebuild_tree(Tree& t, const std::vector<char>& flag, std::int64_t max_octs, const Loops& loops) {
  RegridMap m = rebuild_tree_unlinked(t, flag, max_octs, loops);
  link(t);
  return m;
}

void move_state(const RegridMap& m, const std::vector<double>& u_old, double gamma, const Loops& loops,
                std::vector<double>& u, const Tree* owner) {
  const std::int64_t n = static_cast<std::int64_t>(m.source.size());
  u.resize(n * 8 * nvar);
  // The device's parts (move_cell per new cell, then move_put_son once the oct's eight are known),
  // so the emulated device moves as the GPU.
  loops.run(n, [&](std::int64_t i, int) {
    if (owner && !owner->owns(i)) return;
    double uc[8][nvar], son[8][nvar];
    bool all_physical = true;
    for (int c = 0; c < 8; ++c)
      all_physical = move_cell(i, c, m.source.data(), m.src.data(), m.flip.data(), u_old.data(), m.old_noct * 8, gamma,
                               u.data(), n * 8, uc[c], son[c]) &&
                     all_physical;
    for (int c = 0; c < 8; ++c) move_put_son(i, c, m.source.data(), all_physical, uc[c], son[c], u.data(), n * 8);
  });
}

void regrid(Tree& t, std::vector<double>& u, const RefineCriterion& rc, double gamma, std::int64_t max_octs,
            const Loops& loops, RankComm* comm) {
  std::vector<char> crit;
  criterion_flags(t, u, rc, gamma, loops, crit);
  // Over ranks every rank gets every owner's criterion bytes and derives the same flags and tree.
  if (comm) comm->combine_criterion(t, crit);
  const RegridMap m = rebuild_tree(t, refinement_flags(t, crit, rc.buffer, loops), max_octs, loops);
  if (comm) comm->partition(t);
  std::vector<double> unew;
  move_state(m, u, gamma, loops, unew, comm ? &t : nullptr);
  u = std::move(unew);
  if (comm) comm->rebalance(t, base_work(t, comm->subcycle()), u.data());
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
