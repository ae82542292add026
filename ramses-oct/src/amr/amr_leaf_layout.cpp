// The shared-memory layout of the GPU leaf block (amr_leaf_block.hpp, LeafLayout): the orders of
// the gathered cells, the predictor cells and the faces in their shared arrays, and the tables
// the phases read instead of computing indices.
//
// The bank model: shared memory serves a warp's 8-byte loads in wavefronts of 128 bytes, 16 banks
// of 8 bytes each; lanes reading distinct words of one bank take one wavefront each, lanes reading
// the same word share it. So a load costs the largest number of distinct words in one bank, and
// the ideal is the distinct words / 16. Whether a row of items is conflict-free depends only on
// each item's bank (its slot mod 16) when rows start at multiples of 16 words (Q, P and F of a
// group are 304, 160 and 80): choosing an order is colouring the items with 16 banks, each bank
// taking n / 16 items, so that the items read together by the 32 lanes of a warp have as few
// repeats of a bank as possible.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "amr/amr_leaf_block.hpp"

namespace ro::amr::block {

namespace {

constexpr int banks = 16;
constexpr int warp = 32;

// One warp-wide load: the distinct (row, item) words its lanes read.
using Access = std::vector<std::pair<int, int>>;

void add_word(Access& a, int row, int item) {
  const std::pair<int, int> w{row, item};
  if (std::find(a.begin(), a.end(), w) == a.end()) a.push_back(w);
}

// Bank of every item (n items, n / 16 per bank) chosen greedily, items in the order the loads
// first read them, each taking the bank that raises the loads' wavefront counts least (ties: the
// bank least used by those loads, then the lowest); then pairwise bank swaps while one lowers the
// total. Returns each item's slot: bank + 16 x (its rank among its bank's items). Deterministic.
std::vector<int> spread_items(int n, const std::vector<Access>& loads) {
  std::vector<int> slot(n);
  if (n % banks != 0) {
    for (int i = 0; i < n; ++i) slot[i] = i;
    return slot;
  }
  const int cap = n / banks;
  const int nl = static_cast<int>(loads.size());
  std::vector<std::vector<int>> in(n);  // per item, the loads reading it (once per word)
  std::vector<int> order;
  std::vector<char> seen(n, 0);
  for (int a = 0; a < nl; ++a)
    for (const auto& w : loads[a]) {
      in[w.second].push_back(a);
      if (!seen[w.second]) {
        seen[w.second] = 1;
        order.push_back(w.second);
      }
    }
  for (int i = 0; i < n; ++i)
    if (!seen[i]) order.push_back(i);
  std::vector<std::array<int, banks>> count(nl);
  for (auto& c : count) c.fill(0);
  std::vector<int> bank(n, -1), used(banks, 0);
  auto peak = [&](int a) { return *std::max_element(count[a].begin(), count[a].end()); };
  for (const int i : order) {
    int best = -1;
    long best_rise = 0, best_load = 0;
    for (int b = 0; b < banks; ++b) {
      if (used[b] == cap) continue;
      long rise = 0, load = 0;
      for (const int a : in[i]) {
        rise += std::max(0, count[a][b] + 1 - peak(a));
        load += count[a][b];
        ++count[a][b];  // an item read twice by one load (two rows) counts twice
      }
      for (const int a : in[i]) --count[a][b];
      if (best < 0 || rise < best_rise || (rise == best_rise && load < best_load)) {
        best = b;
        best_rise = rise;
        best_load = load;
      }
    }
    bank[i] = best;
    ++used[best];
    for (const int a : in[i]) ++count[a][best];
  }
  // The swaps' objective: the wavefronts first, then the sum of squared bank counts, which lets a
  // swap that flattens a load without lowering its peak yet be taken (a plateau otherwise stops
  // the search).
  auto cost_of = [&](const std::vector<int>& as) {
    long c = 0;
    for (const int a : as) {
      long sq = 0;
      for (const int k : count[a]) sq += long(k) * k;
      c += peak(a) * 4096 + sq;
    }
    return c;
  };
  for (int pass = 0; pass < 16; ++pass) {
    bool improved = false;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        const int bi = bank[i], bj = bank[j];
        if (bi == bj) continue;
        std::vector<int> as = in[i];
        as.insert(as.end(), in[j].begin(), in[j].end());
        std::sort(as.begin(), as.end());
        as.erase(std::unique(as.begin(), as.end()), as.end());
        const long before = cost_of(as);
        for (const int a : in[i]) --count[a][bi], ++count[a][bj];
        for (const int a : in[j]) --count[a][bj], ++count[a][bi];
        if (cost_of(as) < before) {
          std::swap(bank[i], bank[j]);
          improved = true;
        } else {
          for (const int a : in[i]) ++count[a][bi], --count[a][bj];
          for (const int a : in[j]) ++count[a][bj], --count[a][bi];
        }
      }
    if (!improved) break;
  }
  std::vector<int> rank(banks, 0);
  for (int i = 0; i < n; ++i) slot[i] = bank[i] + banks * rank[bank[i]]++;
  return slot;
}

std::vector<int> inverse(const std::vector<int>& slot) {
  std::vector<int> item(slot.size());
  for (std::size_t i = 0; i < slot.size(); ++i) item[slot[i]] = static_cast<int>(i);
  return item;
}

// Face r of axis x (r = i + nx (j + ny k), the uniform tile's numbering): its left and right
// cells' predictor indices.
template <int T>
void face_cells(int x, int r, int& el, int& er) {
  const int nx = x == 0 ? T + 1 : T, ny = x == 1 ? T + 1 : T;
  const int fi = r % nx, fj = (r / nx) % ny, fk = r / (nx * ny);
  er = predictor_index(fi + 1, fj + 1, fk + 1, T);
  el = predictor_index(fi + (x == 0 ? 0 : 1), fj + (x == 1 ? 0 : 1), fk + (x == 2 ? 0 : 1), T);
}

// Unit cell j's face numbers: low and high along x, y, z.
template <int T>
void cell_faces(int j, int r[6]) {
  const int ci = j % T, cj = (j / T) % T, ck = j / (T * T);
  const int fx = ci + (T + 1) * (cj + T * ck), fy = ci + T * (cj + (T + 1) * ck), fz = ci + T * (cj + T * ck);
  r[0] = fx;
  r[1] = fx + 1;
  r[2] = fy;
  r[3] = fy + T;
  r[4] = fz;
  r[5] = fz + T * T;
}

// The gather indices of predictor cell e and of its face neighbours (the cell, low/high x, y, z).
template <int T>
void predictor_reads(int e, int g[7]) {
  int c[3];
  predictor_cell(e, T, c[0], c[1], c[2]);
  for (int n = 0; n < 7; ++n) {
    int tc[3] = {c[0] + 1, c[1] + 1, c[2] + 1};
    if (n > 0) tc[(n - 1) / 2] += (n - 1) % 2 ? 1 : -1;
    g[n] = gather_index<T>(tc);
  }
}

void set16(Row8& r, int k, int v) {
  r.w[k >> 1] &= ~(0xffffu << (16 * (k & 1)));
  r.w[k >> 1] |= static_cast<std::uint32_t>(v) << (16 * (k & 1));
}

}  // namespace

template <int T>
LeafLayout<T> make_leaf_layout(bool spread) {
  using U = Unit<T>;
  constexpr int C = T * T * T, F = U::F;
  auto order = [&](int n, const std::vector<Access>& loads) {
    if (spread) return spread_items(n, loads);
    std::vector<int> s(n);
    for (int i = 0; i < n; ++i) s[i] = i;
    return s;
  };
  // 1. Faces, per axis: the update's loads (per warp of cells, per face direction).
  std::vector<int> face_slot(3 * F);
  for (int x = 0; x < 3; ++x) {
    std::vector<Access> loads;
    for (int w0 = 0; w0 < C; w0 += warp)
      for (int side = 0; side < 2; ++side) {
        Access a;
        for (int j = w0; j < std::min(C, w0 + warp); ++j) {
          int r[6];
          cell_faces<T>(j, r);
          add_word(a, 0, r[2 * x + side]);
        }
        loads.push_back(a);
      }
    const std::vector<int> s = order(F, loads);
    for (int r = 0; r < F; ++r) face_slot[x * F + r] = s[r];
  }
  std::vector<int> face_at(3 * F);  // physical flux slot -> face r of its axis
  for (int x = 0; x < 3; ++x)
    for (int r = 0; r < F; ++r) face_at[x * F + face_slot[x * F + r]] = r;
  // 2. Predictor cells: the fluxes' loads (per warp of flux slots: qh and dq of the left and right
  // cells; the dq rows depend on the lane's axis).
  std::vector<Access> ext_loads;
  for (int w0 = 0; w0 < 3 * F; w0 += warp)
    for (int k = 0; k < 4; ++k) {
      Access a;
      for (int t = w0; t < std::min(3 * F, w0 + warp); ++t) {
        const int x = t / F;
        int el, er;
        face_cells<T>(x, face_at[t], el, er);
        add_word(a, k < 2 ? 0 : 1 + x, k % 2 ? er : el);
      }
      ext_loads.push_back(a);
    }
  const std::vector<int> ext_slot = order(U::P, ext_loads), ext_item = inverse(ext_slot);
  // 3. Gathered cells: the predictor's loads (per warp of ext slots, the seven reads).
  std::vector<Access> q_loads;
  for (int w0 = 0; w0 < U::P; w0 += warp)
    for (int n = 0; n < 7; ++n) {
      Access a;
      for (int p = w0; p < std::min(U::P, w0 + warp); ++p) {
        int g[7];
        predictor_reads<T>(ext_item[p], g);
        add_word(a, 0, g[n]);
      }
      q_loads.push_back(a);
    }
  const std::vector<int> q_slot = order(U::Q, q_loads), q_item = inverse(q_slot);

  LeafLayout<T> L{};
  for (int p = 0; p < U::Q; ++p) {
    int tc[3];
    gather_cell<T>(q_item[p], tc);
    L.gather[p] = static_cast<std::uint16_t>(tc[0] + 16 * tc[1] + 256 * tc[2]);
  }
  for (int p = 0; p < U::P; ++p) {
    int g[7];
    predictor_reads<T>(ext_item[p], g);
    for (int n = 0; n < 7; ++n) set16(L.predict[p], n, q_slot[g[n]]);
  }
  for (int t = 0; t < 3 * F; ++t) {
    int el, er;
    face_cells<T>(t / F, face_at[t], el, er);
    L.face[t] = static_cast<std::uint32_t>(ext_slot[el]) | static_cast<std::uint32_t>(ext_slot[er]) << 16;
  }
  for (int j = 0; j < C; ++j) {
    int r[6];
    cell_faces<T>(j, r);
    for (int k = 0; k < 6; ++k) set16(L.cell[j], k, face_slot[(k / 2) * F + r[k]]);
  }
  for (int t = 0; t < 3 * F; ++t) L.face_slot[t] = static_cast<std::uint16_t>(face_slot[t]);
  return L;
}

template <int T>
const LeafLayout<T>& leaf_layout() {
  static const LeafLayout<T> layout = make_leaf_layout<T>(true);
  return layout;
}

namespace {

void count_load(const std::vector<long>& words, long& waves, long& ideal) {
  std::vector<long> w = words;
  std::sort(w.begin(), w.end());
  w.erase(std::unique(w.begin(), w.end()), w.end());
  if (w.empty()) return;
  std::array<long, banks> per{};
  for (const long x : w) ++per[x % banks];
  waves += *std::max_element(per.begin(), per.end());
  ideal += (static_cast<long>(w.size()) + banks - 1) / banks;
}

}  // namespace

template <int T>
LayoutWavefronts shared_wavefronts(const LeafLayout<T>& L) {
  using U = Unit<T>;
  constexpr int C = T * T * T, F = U::F;
  LayoutWavefronts r;
  for (int f = 0; f < nvar; ++f) {
    for (int w0 = 0; w0 < U::P; w0 += warp)
      for (int n = 0; n < 7; ++n) {
        std::vector<long> words;
        for (int p = w0; p < std::min(U::P, w0 + warp); ++p) words.push_back(long(f) * U::Q + L.predict[p].at(n));
        count_load(words, r.predict, r.predict_ideal);
      }
    for (int w0 = 0; w0 < 3 * F; w0 += warp)
      for (int k = 0; k < 4; ++k) {
        std::vector<long> words;
        for (int t = w0; t < std::min(3 * F, w0 + warp); ++t) {
          const int x = t / F;
          const long e = k % 2 ? L.face[t] >> 16 : L.face[t] & 0xffffu;
          const long row = k < 2 ? f : nvar + x * nvar + f;
          words.push_back(row * U::P + e);
        }
        count_load(words, r.fluxes, r.fluxes_ideal);
      }
    for (int w0 = 0; w0 < C; w0 += warp)
      for (int k = 0; k < 6; ++k) {
        std::vector<long> words;
        for (int j = w0; j < std::min(C, w0 + warp); ++j) words.push_back(long(k / 2 * nvar + f) * F + L.cell[j].at(k));
        count_load(words, r.update, r.update_ideal);
      }
  }
  return r;
}

template LeafLayout<2> make_leaf_layout<2>(bool);
template LeafLayout<4> make_leaf_layout<4>(bool);
template const LeafLayout<2>& leaf_layout<2>();
template const LeafLayout<4>& leaf_layout<4>();
template LayoutWavefronts shared_wavefronts<2>(const LeafLayout<2>&);
template LayoutWavefronts shared_wavefronts<4>(const LeafLayout<4>&);

}  // namespace ro::amr::block
