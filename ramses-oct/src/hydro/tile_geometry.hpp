// Where the cells of a tile come from. A tile is B x B x B octs (2B cells per side) plus a ghost
// layer of one oct (two cells) on every side: S = 2B + 4 cells per side. The (B+2)^3 oct slots of
// a tile are found from the tile's base oct by hops through the face-neighbour table (edges and
// corners are two and three hops), and boundaries are an index mapping: across a reflecting face
// the ghost cell is the mirror cell of the boundary oct (local index 1-l, normal momentum negated),
// across an outflow face it is the boundary cell itself (zero gradient); periodic faces are
// already wrapped in the neighbour table. No ghost octs are stored.
#pragma once
#include <cstdint>

#include "hydro/hydro_math.hpp"

namespace ro {

// A view of the mesh tables that a kernel needs (host or device pointers).
struct MeshView {
  std::int64_t noct = 0;
  int octs[3] = {0, 0, 0};
  int bc[3] = {0, 0, 0};                  // Boundary as int: 0 periodic, 1 reflecting, 2 outflow
  const std::int32_t* nbor[6] = {};       // face 2*axis+side
  const std::int32_t* coord[3] = {};
};

// Boundary kind seen by the low / high ghost slots of a tile along each axis (0 = none).
struct TileEdges {
  int lo[3], hi[3];
};
RO_HD TileEdges tile_edges(const MeshView& m, std::int64_t base, int B) {
  TileEdges e;
  for (int a = 0; a < 3; ++a) {
    const int c = m.coord[a][base];
    e.lo[a] = c == 0 ? m.bc[a] : 0;
    e.hi[a] = c + B == m.octs[a] ? m.bc[a] : 0;
  }
  return e;
}

// Oct in slot (sx, sy, sz), each in [0, B+2), of the tile whose interior starts at base.
RO_HD std::int32_t tile_slot_oct(const MeshView& m, std::int64_t base, int sx, int sy, int sz) {
  std::int32_t o = static_cast<std::int32_t>(base);
  const int s[3] = {sx, sy, sz};
  for (int a = 0; a < 3; ++a) {
    if (s[a] == 0) {
      o = m.nbor[2 * a][o];
    } else {
      for (int k = 1; k < s[a]; ++k) o = m.nbor[2 * a + 1][o];
    }
  }
  return o;
}

// Tile cell coordinate t in [0, S) along one axis -> slot, local cell index within the oct and
// whether the normal momentum flips sign (reflecting ghost).
RO_HD void tile_axis_source(int t, int B, int kind_lo, int kind_hi, int& slot, int& local, bool& flip) {
  slot = t >> 1;
  local = t & 1;
  flip = false;
  const int kind = slot == 0 ? kind_lo : (slot == B + 1 ? kind_hi : 0);
  if (kind == 1) {
    local = 1 - local;
    flip = true;
  } else if (kind == 2) {
    local = slot == 0 ? 0 : 1;
  }
}

// Position (px, py, pz) in [0, B)^3 of the k-th interior oct of a tile. Interior octs of a tile
// are base + k: with Morton order, 2x2x2 aligned oct groups are 8 consecutive ranks.
RO_HD void interior_oct_position(int k, int& px, int& py, int& pz) {
  px = k & 1;
  py = (k >> 1) & 1;
  pz = (k >> 2) & 1;
}

// The cells of the (T+2)^3 slope region whose predicted states a face flux needs: the T^3
// interior cells and the T^2 cells beyond each of the six faces, T^3 + 6 T^2 in all (160 of 216
// for T = 4, 32 of 64 for T = 2); edges and corners of the region are skipped. Maps m in
// [0, T^3 + 6 T^2) to coordinates (i, j, k) in [0, T+2)^3, ordered by layers of k.
RO_HD int predictor_cells(int T) { return T * T * T + 6 * T * T; }
RO_HD void predictor_cell(int m, int T, int& i, int& j, int& k) {
  const int E = T + 2, cap = T * T, mid = E * E - 4;
  if (m < cap) {  // bottom layer: its T x T centre
    k = 0;
    i = 1 + m % T;
    j = 1 + m / T;
    return;
  }
  m -= cap;
  if (m >= T * mid) {  // top layer: its T x T centre
    m -= T * mid;
    k = E - 1;
    i = 1 + m % T;
    j = 1 + m / T;
    return;
  }
  k = 1 + m / mid;  // middle layers without their four corners
  m %= mid;
  if (m < T) {
    j = 0;
    i = 1 + m;
    return;
  }
  m -= T;
  if (m >= T * E) {
    j = E - 1;
    i = 1 + (m - T * E);
    return;
  }
  j = 1 + m / E;
  i = m % E;
}

// The inverse of predictor_cell: the index m of predictor cell (i, j, k) of the (T+2)^3 region.
RO_HD int predictor_index(int i, int j, int k, int T) {
  const int E = T + 2, cap = T * T, mid = E * E - 4;
  if (k == 0) return (i - 1) + T * (j - 1);
  if (k == E - 1) return cap + T * mid + (i - 1) + T * (j - 1);
  const int layer = cap + (k - 1) * mid;
  if (j == 0) return layer + (i - 1);
  if (j == E - 1) return layer + T + T * E + (i - 1);
  return layer + T + (j - 1) * E + i;
}

}  // namespace ro
