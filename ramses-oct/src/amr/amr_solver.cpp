#include "amr/amr_solver.hpp"

#include <algorithm>
#include <cmath>

#include "amr/amr_clock.hpp"
#include "amr/amr_interp.hpp"
#include "amr/amr_lists_body.hpp"
#include "hydro/compensated_sum.hpp"
#include "copa/errors.hpp"
#include "hydro/tile_host.hpp"

namespace ro::amr {

namespace {

class SerialLoops final : public Loops {
 public:
  int workers() const override { return 1; }
  void run(std::int64_t n, const std::function<void(std::int64_t, int)>& body) const override {
    for (std::int64_t i = 0; i < n; ++i) body(i, 0);
  }
};

// The value of a cell of level l (coordinates before the boundary mapping): the finest existing
// cell containing it, momentum negated across reflecting faces.
void read_cell(const Tree& t, const double* u, std::int64_t stride, int l, std::array<int, 3> ic, double out[nvar]) {
  const Located c = locate(t, l, ic);
  for (int f = 0; f < nvar; ++f) out[f] = u[f * stride + c.cell];
  for (int a = 0; a < 3; ++a)
    if (c.flip[a]) out[1 + a] = -out[1 + a];
}

}  // namespace

std::unique_ptr<Loops> make_serial_loops() { return std::make_unique<SerialLoops>(); }

std::unique_ptr<Loops> make_loops(copa::Backend b) {
  if (b == copa::Backend::serial) return make_serial_loops();
#if defined(COPA_HAVE_OPENMP)
  if (b == copa::Backend::openmp) return make_openmp_loops();
#endif
  throw copa::InputError("--levels: AMR runs on the serial and openmp backends only (" + copa::to_string(b) +
                         ": not done)");
}

void prolong_from(const Tree& t, const double* u, std::int64_t stride, int l, std::array<int, 3> ic, double gamma,
                  double sons[8][nvar]) {
  double uc[nvar], um[3][nvar], up[3][nvar];
  read_cell(t, u, stride, l, ic, uc);
  for (int a = 0; a < 3; ++a) {
    std::array<int, 3> m = ic, p = ic;
    --m[a];
    ++p[a];
    read_cell(t, u, stride, l, m, um[a]);
    read_cell(t, u, stride, l, p, up[a]);
  }
  prolong(uc, um, up, gamma, sons);
}

// Per oct a count (parallel), an exclusive prefix sum, then the entries written at their offsets
// (parallel): the lists come out in oct order whatever the schedule, as a serial build gives them.
void build_step_lists(const Tree& t, const Loops& loops, StepLists& s) {
  const std::int64_t n = t.noct(), ncoarse = t.level_begin[t.max_level];
  const TreeView v = tree_view(t);
  const std::int32_t* son = t.son.data();
  s.count.resize(n + 1);
  s.face_count.resize(ncoarse + 1);
  s.face_mask.resize(ncoarse);
  loops.run(n, [&](std::int64_t o, int) {
    s.count[o + 1] = lists_leaf_flag(son, o);
    if (o >= ncoarse) return;
    s.face_mask[o] = lists_face_mask(v, son, o);
    s.face_count[o + 1] = lists_popcount(s.face_mask[o]);
  });
  s.count[0] = s.face_count[0] = 0;
  s.leaf_octs_begin.resize(t.max_level + 2);
  s.reflux_octs.clear();
  s.reflux_begin.clear();
  for (std::int64_t o = 0; o < n; ++o) {
    if (o < ncoarse && s.face_count[o + 1] > 0) {
      s.reflux_octs.push_back(static_cast<std::int32_t>(o));
      s.reflux_begin.push_back(s.face_count[o]);
    }
    s.count[o + 1] += s.count[o];
    if (o < ncoarse) s.face_count[o + 1] += s.face_count[o];
  }
  for (int l = 0; l <= t.max_level + 1; ++l) s.leaf_octs_begin[l] = s.count[t.level_begin[l]];
  s.reflux_begin.push_back(s.face_count[ncoarse]);
  s.leaf_octs.resize(s.count[n]);
  s.faces.resize(s.face_count[ncoarse]);
  loops.run(n, [&](std::int64_t o, int) {
    lists_fill(v, son, o, ncoarse, s.count.data(), s.face_count.data(), s.face_mask.data(), s.leaf_octs.data(),
               s.faces.data());
  });
  if (!t.owned_begin.empty()) keep_owned(t, s);
}

// Over ranks: the lists of the owned octs only (same order), so that every state loop of the step
// visits this rank's octs.
void keep_owned(const Tree& t, StepLists& s) {
  std::size_t kept = 0;
  std::vector<std::int64_t> begin(t.max_level + 2, 0);
  for (int l = 0; l <= t.max_level; ++l) {
    begin[l] = static_cast<std::int64_t>(kept);
    for (std::int64_t i = s.leaf_octs_begin[l]; i < s.leaf_octs_begin[l + 1]; ++i)
      if (t.owns(s.leaf_octs[i])) s.leaf_octs[kept++] = s.leaf_octs[i];
  }
  begin[t.max_level + 1] = static_cast<std::int64_t>(kept);
  s.leaf_octs.resize(kept);
  s.leaf_octs_begin = std::move(begin);
  std::vector<std::int32_t> octs;
  std::vector<std::int64_t> rbegin;
  std::vector<RefluxFace> faces;
  for (std::size_t i = 0; i < s.reflux_octs.size(); ++i) {
    if (!t.owns(s.reflux_octs[i])) continue;
    octs.push_back(s.reflux_octs[i]);
    rbegin.push_back(static_cast<std::int64_t>(faces.size()));
    faces.insert(faces.end(), s.faces.begin() + s.reflux_begin[i], s.faces.begin() + s.reflux_begin[i + 1]);
  }
  rbegin.push_back(static_cast<std::int64_t>(faces.size()));
  s.reflux_octs = std::move(octs);
  s.reflux_begin = std::move(rbegin);
  s.faces = std::move(faces);
}

StepLists build_step_lists(const Tree& t) {
  StepLists s;
  build_step_lists(t, *make_serial_loops(), s);
  return s;
}

LeafScan scan_leaves(const Tree& t, const std::vector<double>& u, double gamma, const Loops& loops) {
  const std::int64_t n = t.noct(), stride = n * 8;
  std::vector<double> speed(n, 0.0);
  std::vector<std::int64_t> bad(n, -1);
  loops.run(n, [&](std::int64_t o, int) {
    if (!t.owns(o)) return;
    for (int c = 0; c < 8; ++c) {
      const std::int64_t g = o * 8 + c;
      if (t.son[g] >= 0) continue;
      double uc[nvar];
      for (int f = 0; f < nvar; ++f) uc[f] = u[f * stride + g];
      bool ok;
      const double s = cell_signal_speed(uc, gamma, ok);
      if (!ok && bad[o] < 0) bad[o] = g;
      if (s > speed[o]) speed[o] = s;
    }
  });
  LeafScan r;
  r.max_speed.assign(t.max_level + 1, 0.0);
  for (int l = 0; l <= t.max_level; ++l)
    for (std::int64_t o = t.level_begin[l]; o < t.level_begin[l + 1]; ++o) {
      if (speed[o] > r.max_speed[l]) r.max_speed[l] = speed[o];
      if (bad[o] >= 0 && r.bad_cell < 0) r.bad_cell = bad[o];
    }
  return r;
}

// The device clock's formula (amr_clock.hpp), so that the device dt equals this one bit for bit.
double cfl_dt(const Tree& t, const LeafScan& s, double courant) {
  return cfl_dt_of(s.max_speed.data(), t.max_level + 1, t.base->dx, courant);
}

struct Stepper::Work {
  HostTile<1> tile;
  std::int32_t son[HostTile<1>::S3];  // son of the tile cell's source cell, -1 for a leaf or a prolonged ghost
};

void Stepper::update_oct(const Tree& t, std::int32_t o, const double* u, double* unew, double dt, Work& w) {
  using Tile = HostTile<1>;
  const std::int64_t stride = t.noct() * 8;
  const int l = t.level[o];
  const int oc[3] = {t.coord[0][o], t.coord[1][o], t.coord[2][o]};
  int kind_lo[3], kind_hi[3];
  for (int a = 0; a < 3; ++a) {
    const int n = t.cells_at(l, a) / 2;
    const int bc = static_cast<int>(t.base->bc[a]);
    kind_lo[a] = oc[a] == 0 ? bc : 0;
    kind_hi[a] = oc[a] == n - 1 ? bc : 0;
  }
  // The 27 oct slots around the oct at its level (the oct itself across a reflecting or outflow
  // face, as in the uniform mesh; periodic faces wrap); a missing slot is the son of a coarser
  // cell, prolonged from the level above.
  std::int32_t slot_oct[3][3][3];
  double slot_sons[3][3][3][8][nvar];
  for (int sz = 0; sz < 3; ++sz)
    for (int sy = 0; sy < 3; ++sy)
      for (int sx = 0; sx < 3; ++sx) {
        int s[3] = {sx - 1, sy - 1, sz - 1}, c[3];
        for (int a = 0; a < 3; ++a) {
          const int n = t.cells_at(l, a) / 2;
          c[a] = oc[a] + s[a];
          if (c[a] < 0 || c[a] >= n) c[a] = t.base->bc[a] == Boundary::periodic ? (c[a] + n) % n : oc[a];
        }
        const std::int32_t so = t.find_oct(l, c[0], c[1], c[2]);
        slot_oct[sz][sy][sx] = so;
        if (so < 0) prolong_from(t, u, stride, l - 1, {c[0], c[1], c[2]}, hp_.gamma, slot_sons[sz][sy][sx]);
      }
  Tile& tile = w.tile;
  tile.hp_gamma = hp_.gamma;
  tile.hp_slope = hp_.slope_type;
  for (int k = 0; k < Tile::S; ++k)
    for (int j = 0; j < Tile::S; ++j)
      for (int i = 0; i < Tile::S; ++i) {
        int s[3], lc[3];
        bool flip[3];
        tile_axis_source(i, 1, kind_lo[0], kind_hi[0], s[0], lc[0], flip[0]);
        tile_axis_source(j, 1, kind_lo[1], kind_hi[1], s[1], lc[1], flip[1]);
        tile_axis_source(k, 1, kind_lo[2], kind_hi[2], s[2], lc[2], flip[2]);
        const int local = lc[0] + 2 * lc[1] + 4 * lc[2];
        const std::int32_t so = slot_oct[s[2]][s[1]][s[0]];
        double uc[nvar];
        if (so >= 0) {
          const std::int64_t cell = std::int64_t(so) * 8 + local;
          for (int f = 0; f < nvar; ++f) uc[f] = u[f * stride + cell];
          w.son[Tile::idx(i, j, k)] = t.son[cell];
        } else {
          for (int f = 0; f < nvar; ++f) uc[f] = slot_sons[s[2]][s[1]][s[0]][local][f];
          w.son[Tile::idx(i, j, k)] = -1;
        }
        for (int a = 0; a < 3; ++a)
          if (flip[a]) uc[1 + a] = -uc[1 + a];
        double qc[nvar];
        cons_to_prim(uc, hp_.gamma, qc);
        for (int f = 0; f < nvar; ++f) tile.q[f][Tile::idx(i, j, k)] = qc[f];
      }
  const double dtdx = dt / t.dx(l);
  tile.predict(dtdx);
  tile.fluxes(hp_);
  // Leaf cells: the uniform update, except that a face whose neighbour on this level is refined
  // takes no flux here (the reflux pass adds the son oct's fluxes there). An oct of leaves without
  // such faces runs the uniform oracle's own update.
  constexpr int S = Tile::S;
  bool plain = true;
  for (int cell = 0; cell < 8; ++cell) plain = plain && t.son[std::int64_t(o) * 8 + cell] < 0;
  for (int k = 1; k < S - 1 && plain && reflux_; ++k)
    for (int j = 1; j < S - 1; ++j)
      for (int i = 1; i < S - 1; ++i) plain = plain && w.son[Tile::idx(i, j, k)] < 0;
  if (plain) {
    MeshView view;
    view.noct = t.noct();
    tile.update(view, u, unew, o, dtdx);
  } else {
    for (int cell = 0; cell < 8; ++cell) {
      const std::int64_t g = std::int64_t(o) * 8 + cell;
      if (t.son[g] >= 0) continue;
      const int c = Tile::idx(2 + (cell & 1), 2 + ((cell >> 1) & 1), 2 + (cell >> 2));
      const int nb[6] = {c - 1, c + 1, c - S, c + S, c - S * S, c + S * S};
      bool take[6];
      for (int f = 0; f < 6; ++f) take[f] = !(reflux_ && w.son[nb[f]] >= 0);
      for (int f = 0; f < nvar; ++f) {
        const double fxl = take[0] ? tile.flux[0][f][c] : 0.0, fxh = take[1] ? tile.flux[0][f][c + 1] : 0.0;
        const double fyl = take[2] ? tile.flux[1][f][c] : 0.0, fyh = take[3] ? tile.flux[1][f][c + S] : 0.0;
        const double fzl = take[4] ? tile.flux[2][f][c] : 0.0, fzh = take[5] ? tile.flux[2][f][c + S * S] : 0.0;
        unew[f * stride + g] = conservative_update(u[f * stride + g], fxl, fxh, fyl, fyh, fzl, fzh, dtdx);
      }
    }
  }
  // Faces next to a coarser region: keep the four fine fluxes for the coarse neighbour's reflux.
  if (l == 0) return;
  for (int face = 0; face < 6; ++face) {
    if (t.nbor[face][o] >= 0) continue;
    const int a = face / 2, b = a == 0 ? 1 : 0, cax = 3 - a - b;  // normal, then the tangential axes in order
    const int ta = face % 2 ? 4 : 2;
    double* out = fine_flux_.data() + (std::int64_t(o) * 6 + face) * 4 * nvar;
    for (int sub = 0; sub < 4; ++sub) {
      int ijk[3];
      ijk[a] = ta;
      ijk[b] = 2 + (sub & 1);
      ijk[cax] = 2 + (sub >> 1);
      const int c = Tile::idx(ijk[0], ijk[1], ijk[2]);
      for (int f = 0; f < nvar; ++f) out[sub * nvar + f] = tile.flux[a][f][c];
    }
  }
}

void Stepper::update(const Tree& t, const StepLists& lists, const std::vector<double>& u, std::vector<double>& unew,
                     double dt) {
  if (fine_flux_.size() != static_cast<std::size_t>(t.noct() * fine_flux_per_oct))
    fine_flux_.assign(t.noct() * fine_flux_per_oct, 0.0);
  for (auto& w : work_)
    if (!w) w = std::make_shared<Work>();
  const double* uin = u.data();
  double* uout = unew.data();
  loops_.run(static_cast<std::int64_t>(lists.leaf_octs.size()), [&](std::int64_t i, int worker) {
    update_oct(t, lists.leaf_octs[i], uin, uout, dt, *work_[worker]);
  });
}

namespace {

// One reflux face: the son oct's face opposite the coarse cell's face, its four fluxes
// area-averaged (1/4 each: sub-faces of area dx_c^2 / 4 over a coarse face of dx_c^2), times
// factor into the coarse cell (dt / dx_c for fluxes, 1 / dx_c for time-integrated fluxes).
void reflux_face(const RefluxFace& rf, const double* fluxes, double factor, std::int64_t stride,
                 std::vector<double>& unew) {
  const double* in = fluxes + (std::int64_t(rf.fine_oct) * 6 + (rf.face ^ 1)) * 4 * nvar;
  for (int f = 0; f < nvar; ++f) {
    const double flux = (in[f] + in[nvar + f] + in[2 * nvar + f] + in[3 * nvar + f]) * 0.25;
    double& v = unew[f * stride + rf.cell];
    v = rf.face % 2 ? v - factor * flux : v + factor * flux;
  }
}

}  // namespace

void Stepper::reflux(const Tree& t, const StepLists& lists, std::vector<double>& unew, double dt) const {
  if (!reflux_) return;
  const std::int64_t stride = t.noct() * 8;
  loops_.run(static_cast<std::int64_t>(lists.reflux_octs.size()), [&](std::int64_t i, int) {
    const double dtdx = dt / t.dx(t.level[lists.reflux_octs[i]]);
    for (std::int64_t e = lists.reflux_begin[i]; e < lists.reflux_begin[i + 1]; ++e) {
      reflux_face(lists.faces[e], fine_flux_.data(), dtdx, stride, unew);
    }
  });
}

void Stepper::update_level(const Tree& t, const StepLists& lists, int l, const std::vector<double>& u,
                           std::vector<double>& unew, double dt) {
  const std::size_t flux_size = static_cast<std::size_t>(t.noct() * fine_flux_per_oct);
  if (fine_flux_.size() != flux_size) fine_flux_.assign(flux_size, 0.0);
  if (fine_flux_sum_.size() != flux_size) fine_flux_sum_.assign(flux_size, 0.0);
  for (auto& w : work_)
    if (!w) w = std::make_shared<Work>();
  const std::int64_t first = lists.leaf_octs_begin[l], n = lists.leaf_octs_begin[l + 1] - first;
  const double* uin = u.data();
  double* uout = unew.data();
  loops_.run(n, [&](std::int64_t i, int worker) { update_oct(t, lists.leaf_octs[first + i], uin, uout, dt, *work_[worker]); });
  if (l == 0 || !reflux_) return;
  loops_.run(n, [&](std::int64_t i, int) {
    const std::int32_t o = lists.leaf_octs[first + i];
    for (int face = 0; face < 6; ++face) {
      if (t.nbor[face][o] >= 0) continue;
      const std::int64_t at = (std::int64_t(o) * 6 + face) * 4 * nvar;
      for (int k = 0; k < 4 * nvar; ++k) fine_flux_sum_[at + k] += dt * fine_flux_[at + k];
    }
  });
}

void Stepper::reflux_level(const Tree& t, const StepLists& lists, int l, std::vector<double>& unew) {
  if (!reflux_ || l >= t.max_level) return;
  const std::int64_t stride = t.noct() * 8;
  const double inv_dx = 1.0 / t.dx(l);
  const auto begin = std::lower_bound(lists.reflux_octs.begin(), lists.reflux_octs.end(), t.level_begin[l]);
  const auto end = std::lower_bound(begin, lists.reflux_octs.end(), t.level_begin[l + 1]);
  const std::int64_t first = begin - lists.reflux_octs.begin();
  loops_.run(end - begin, [&](std::int64_t i, int) {
    for (std::int64_t e = lists.reflux_begin[first + i]; e < lists.reflux_begin[first + i + 1]; ++e) {
      // Time-integrated fluxes (Teyssier 2002, sec. 2.4): the factor is 1 / dx_c, not dt / dx_c.
      reflux_face(lists.faces[e], fine_flux_sum_.data(), inv_dx, stride, unew);
    }
  });
  const std::int64_t fine_first = lists.leaf_octs_begin[l + 1];
  loops_.run(lists.leaf_octs_begin[l + 2] - fine_first, [&](std::int64_t i, int) {
    const std::int64_t at = std::int64_t(lists.leaf_octs[fine_first + i]) * fine_flux_per_oct;
    std::fill(fine_flux_sum_.begin() + at, fine_flux_sum_.begin() + at + fine_flux_per_oct, 0.0);
  });
}

void restrict_level(const Tree& t, std::vector<double>& u, int l, const Loops& loops) {
  const std::int64_t stride = t.noct() * 8, first = t.owned_first(l);
  loops.run(t.owned_last(l) - first, [&](std::int64_t i, int) {
    const std::int64_t o = first + i;
    for (int c = 0; c < 8; ++c)
      if (t.son[o * 8 + c] >= 0) restrict_cell(u.data(), stride, o * 8 + c, t.son[o * 8 + c]);
  });
}

void restrict_all(const Tree& t, std::vector<double>& u, const Loops& loops) {
  for (int l = t.max_level - 1; l >= 0; --l) restrict_level(t, u, l, loops);
}

void initial_state(const Tree& t, const ProblemParams& pp, std::vector<double>& u) {
  const std::int64_t stride = t.noct() * 8;
  u.assign(stride * nvar, 0.0);
  const SoundWave wave = sound_wave(*t.base, pp);
  for (int l = 0; l <= t.max_level; ++l) {
    const std::array<int, 3> cells = {t.cells_at(l, 0), t.cells_at(l, 1), t.cells_at(l, 2)};
    for (std::int64_t o = t.level_begin[l]; o < t.level_begin[l + 1]; ++o)
      for (int c = 0; c < 8; ++c) {
        double uc[nvar];
        initial_cell_state(pp, wave, cells, t.dx(l), t.cell_coords(o, c), uc);
        for (int f = 0; f < nvar; ++f) u[f * stride + o * 8 + c] = uc[f];
      }
  }
}

Totals leaf_totals(const Tree& t, const std::vector<double>& u) {
  const std::int64_t stride = t.noct() * 8;
  CompensatedSum mass, energy;
  for (int l = 0; l <= t.max_level; ++l) {
    CompensatedSum m, e;
    for (std::int64_t g = t.level_begin[l] * 8; g < t.level_begin[l + 1] * 8; ++g)
      if (t.son[g] < 0) {
        m.add(u[g]);
        e.add(u[4 * stride + g]);
      }
    const double dv = t.dx(l) * t.dx(l) * t.dx(l);
    mass.add(m.value() * dv);
    energy.add(e.value() * dv);
  }
  return {mass.value(), energy.value()};
}

std::vector<double> project_to_finest(const Tree& t, const OctMesh& fine, const std::vector<double>& u) {
  const std::int64_t n = fine.ncell(), stride = t.noct() * 8;
  std::vector<double> out(n * nvar);
  for (std::int64_t o = 0; o < fine.noct; ++o)
    for (int c = 0; c < 8; ++c) {
      const Located s = locate(t, t.max_level, fine.cell_coords(o, c));
      for (int f = 0; f < nvar; ++f) out[f * n + o * 8 + c] = u[f * stride + s.cell];
    }
  return out;
}

}  // namespace ro::amr
