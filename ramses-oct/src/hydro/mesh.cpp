#include "hydro/mesh.hpp"

#include <algorithm>

#include "copa/errors.hpp"

namespace ro {

Boundary parse_boundary(const std::string& name) {
  if (name == "periodic") return Boundary::periodic;
  if (name == "reflecting") return Boundary::reflecting;
  if (name == "outflow") return Boundary::outflow;
  throw copa::InputError("--bc: unknown boundary '" + name + "' (periodic|reflecting|outflow)");
}

std::string to_string(Boundary b) {
  switch (b) {
    case Boundary::periodic: return "periodic";
    case Boundary::reflecting: return "reflecting";
    case Boundary::outflow: return "outflow";
  }
  return "?";
}

std::uint64_t MortonBrick::encode(int x, int y, int z) const {
  const int c[3] = {x, y, z};
  std::uint64_t code = 0;
  int out = 0;
  const int top = std::max(bits[0], std::max(bits[1], bits[2]));
  for (int b = 0; b < top; ++b)
    for (int a = 0; a < 3; ++a)
      if (b < bits[a]) code |= std::uint64_t((c[a] >> b) & 1) << out++;
  return code;
}

std::array<int, 3> MortonBrick::decode(std::uint64_t code) const {
  std::array<int, 3> c{0, 0, 0};
  int in = 0;
  const int top = std::max(bits[0], std::max(bits[1], bits[2]));
  for (int b = 0; b < top; ++b)
    for (int a = 0; a < 3; ++a)
      if (b < bits[a]) c[a] |= int((code >> in++) & 1) << b;
  return c;
}

std::int32_t OctMesh::oct_at(int x, int y, int z) const {
  auto wrap = [](int v, int n) { return ((v % n) + n) % n; };
  const std::uint64_t code = order.encode(wrap(x, octs[0]), wrap(y, octs[1]), wrap(z, octs[2]));
  if (dense) return static_cast<std::int32_t>(code);
  return static_cast<std::int32_t>(std::lower_bound(keys.begin(), keys.end(), code) - keys.begin());
}

std::array<int, 3> OctMesh::cell_coords(std::int64_t o, int c) const {
  return {2 * coord[0][o] + (c & 1), 2 * coord[1][o] + ((c >> 1) & 1), 2 * coord[2][o] + ((c >> 2) & 1)};
}

static int log2_ceil(int n) {
  int b = 0;
  while ((1 << b) < n) ++b;
  return b;
}

OctMesh build_mesh(std::array<int, 3> cells, std::array<Boundary, 3> bc) {
  const char* names[3] = {"--nx", "--ny", "--nz"};
  OctMesh m;
  m.cells = cells;
  m.bc = bc;
  for (int a = 0; a < 3; ++a) {
    if (cells[a] < 4 || cells[a] % 2 != 0 || cells[a] > (1 << 14))
      throw copa::InputError(std::string(names[a]) + " (or --n): " + std::to_string(cells[a]) +
                             " cells is not even in [4, 16384] (octs are 2x2x2 cells and a tile needs two octs per axis)");
    m.octs[a] = cells[a] / 2;
    m.order.bits[a] = log2_ceil(m.octs[a]);
    m.dense = m.dense && (1 << m.order.bits[a]) == m.octs[a];
    m.level = std::max(m.level, log2_ceil(cells[a]));
  }
  m.dx = 1.0 / cells[0];
  m.noct = std::int64_t(m.octs[0]) * m.octs[1] * m.octs[2];
  m.nowned = m.noct;
  m.oct_level.assign(m.noct, static_cast<std::int8_t>(m.level));
  for (int a = 0; a < 3; ++a) m.coord[a].resize(m.noct);
  for (int f = 0; f < 6; ++f) m.nbor[f].resize(m.noct);
  if (!m.dense) {
    m.keys.reserve(m.noct);
    for (int z = 0; z < m.octs[2]; ++z)
      for (int y = 0; y < m.octs[1]; ++y)
        for (int x = 0; x < m.octs[0]; ++x) m.keys.push_back(m.order.encode(x, y, z));
    std::sort(m.keys.begin(), m.keys.end());
  }
  for (std::int64_t o = 0; o < m.noct; ++o) {
    const auto c = m.order.decode(m.dense ? std::uint64_t(o) : m.keys[o]);
    for (int a = 0; a < 3; ++a) m.coord[a][o] = c[a];
  }
  for (std::int64_t o = 0; o < m.noct; ++o) {
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        std::array<int, 3> c = {m.coord[0][o], m.coord[1][o], m.coord[2][o]};
        c[a] += side ? 1 : -1;
        const bool outside = c[a] < 0 || c[a] >= m.octs[a];
        m.nbor[face_index(a, side)][o] =
            (outside && bc[a] != Boundary::periodic) ? static_cast<std::int32_t>(o) : m.oct_at(c[0], c[1], c[2]);
      }
  }
  return m;
}

}  // namespace ro
