// The leaf block's shared-memory layout tables (amr_leaf_layout.cpp): decoded through the tables
// alone, every phase reads exactly the items the index maps name (so the layout can only move
// items, never change what a phase computes), and the modelled bank conflicts of the chosen
// orders are below those of the index order. The emulation tests (test_amr.cpp) check the bodies
// that read these tables against the oracle.
#include <array>
#include <iostream>
#include <set>

#include "amr/amr_leaf_block.hpp"
#include "copa/testing.hpp"

using namespace ro;
namespace block = ro::amr::block;

namespace {

std::array<int, 3> unpack(int packed) { return {packed & 15, (packed >> 4) & 15, packed >> 8}; }

template <int T>
void expect_layout_reads_the_index_maps(bool spread) {
  using U = block::Unit<T>;
  const block::LeafLayout<T> L = block::make_leaf_layout<T>(spread);
  // Gather: the slots hold every gathered cell once.
  std::set<std::array<int, 3>> want, got;
  for (int m = 0; m < U::Q; ++m) {
    int tc[3];
    block::gather_cell<T>(m, tc);
    want.insert({tc[0], tc[1], tc[2]});
    got.insert(unpack(L.gather[m]));
  }
  EXPECT_EQ(got, want) << "T " << T;
  // Predict: slot p's first read is a predictor cell (each once), the others its face neighbours.
  std::set<std::array<int, 3>> pred_want, pred_got;
  std::array<std::array<int, 3>, U::P> centre;
  for (int m = 0; m < U::P; ++m) {
    int e[3];
    predictor_cell(m, T, e[0], e[1], e[2]);
    pred_want.insert({e[0] + 1, e[1] + 1, e[2] + 1});
  }
  for (int p = 0; p < U::P; ++p) {
    const auto c = unpack(L.gather[L.predict[p].at(0)]);
    centre[p] = c;
    pred_got.insert(c);
    for (int x = 0; x < 3; ++x)
      for (int side = 0; side < 2; ++side) {
        auto n = c;
        n[x] += side ? 1 : -1;
        EXPECT_EQ(unpack(L.gather[L.predict[p].at(1 + 2 * x + side)]), n) << "T " << T << " slot " << p;
      }
  }
  EXPECT_EQ(pred_got, pred_want) << "T " << T;
  // Fluxes: slot t of axis x joins two predictor cells one apart along x; per axis every face of
  // the (T + 1) x T x T faces once, and face_slot names the same slot.
  for (int x = 0; x < 3; ++x) {
    std::set<std::array<int, 3>> faces;
    for (int t = x * U::F; t < (x + 1) * U::F; ++t) {
      const auto l = centre[L.face[t] & 0xffffu], r = centre[L.face[t] >> 16];
      auto step = l;
      step[x] += 1;
      EXPECT_EQ(r, step) << "T " << T << " flux slot " << t;
      faces.insert(r);
      const int nx = x == 0 ? T + 1 : T, ny = x == 1 ? T + 1 : T;
      const int face = (r[0] - 2) + nx * ((r[1] - 2) + ny * (r[2] - 2));  // right cell - 2 = the face's (i, j, k)
      EXPECT_EQ(L.face_slot[x * U::F + face], t - x * U::F) << "T " << T << " axis " << x;
    }
    EXPECT_EQ(faces.size(), std::size_t(U::F)) << "T " << T << " axis " << x;
  }
  // Update: unit cell j's low face has j as its right cell, its high face as its left cell.
  for (int j = 0; j < T * T * T; ++j) {
    const std::array<int, 3> cell{2 + j % T, 2 + (j / T) % T, 2 + j / (T * T)};
    for (int x = 0; x < 3; ++x) {
      const std::uint32_t lo = L.face[x * U::F + L.cell[j].at(2 * x)], hi = L.face[x * U::F + L.cell[j].at(2 * x + 1)];
      EXPECT_EQ(centre[lo >> 16], cell) << "T " << T << " cell " << j << " axis " << x;
      EXPECT_EQ(centre[hi & 0xffffu], cell) << "T " << T << " cell " << j << " axis " << x;
    }
  }
}

}  // namespace

TEST(Amr, amr_gpu_leaf_layout_reads_the_index_maps) {
  for (const bool spread : {false, true}) {
    expect_layout_reads_the_index_maps<2>(spread);
    expect_layout_reads_the_index_maps<4>(spread);
  }
}

TEST(Amr, amr_gpu_leaf_layout_spreads_the_banks) {
  // The model of the H200's shared-memory wavefronts (8-byte loads, 16 banks per wavefront): the
  // index order of the sibling group gives 1470 wavefronts for an ideal 770 (48% excess, as Nsight
  // Compute measured: 47% of the group kernel's shared wavefronts were bank conflicts).
  const auto before4 = block::shared_wavefronts<4>(block::make_leaf_layout<4>(false));
  const auto after4 = block::shared_wavefronts<4>(block::leaf_layout<4>());
  const auto before2 = block::shared_wavefronts<2>(block::make_leaf_layout<2>(false));
  const auto after2 = block::shared_wavefronts<2>(block::leaf_layout<2>());
  auto total = [](const block::LayoutWavefronts& w) { return w.predict + w.fluxes + w.update; };
  auto ideal = [](const block::LayoutWavefronts& w) { return w.predict_ideal + w.fluxes_ideal + w.update_ideal; };
  for (const auto* w : {&before4, &after4, &before2, &after2})
    std::cerr << "wavefronts: predict " << w->predict << " (ideal " << w->predict_ideal << "), fluxes " << w->fluxes
              << " (" << w->fluxes_ideal << "), update " << w->update << " (" << w->update_ideal << ")\n";
  EXPECT_EQ(total(before4), 1470);
  EXPECT_EQ(ideal(before4), ideal(after4));
  EXPECT_LT(total(after4), total(before4));
  EXPECT_LE(after4.predict, before4.predict);
  EXPECT_LE(after4.fluxes, before4.fluxes);
  EXPECT_LE(after4.update, before4.update);
  // The group's conflicts at most an eighth of its wavefronts.
  EXPECT_LE(8 * (total(after4) - ideal(after4)), total(after4));
  EXPECT_LT(total(after2), total(before2));
}
