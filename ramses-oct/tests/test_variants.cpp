// The variant tables (variants.hpp): one default per offered backend and rank class, the defaults
// of each backend, the fallback rule on meshes the default cannot run on, zmarch-col's register
// caps by block size (the kernel fallback the run reports), --variant and --tuning
// refused with the valid values, and --list printing every row.
#include <gtest/gtest.h>

#include <sstream>

#include "copa/errors.hpp"
#include "uniform/decomposition.hpp"
#include "hydro/mesh.hpp"
#include "uniform/kernels.hpp"
#include "variants.hpp"

using namespace ro;
using copa::Backend;

namespace {

const Backend all_backends[] = {Backend::serial, Backend::openmp, Backend::cuda, Backend::hip};

OctMesh brick(int n, Boundary bc = Boundary::periodic) { return build_mesh({n, n, n}, {bc, bc, bc}); }

}  // namespace

TEST(Variants, one_default_per_offered_backend_and_rank_class) {
  for (const copa::VariantRegistry* table : {&registry(), &amr_registry()})
    for (Backend b : all_backends) {
      if (table->offered(b).empty()) continue;
      for (int nranks : {1, 4}) {
        int defaults = 0;
        for (const copa::VariantInfo* v : table->offered(b))
          for (const copa::DefaultFor& d : v->default_for)
            if (d.backend == b && (d.ranks == copa::Ranks::any || (d.ranks == copa::Ranks::one) == (nranks == 1)))
              ++defaults;
        EXPECT_EQ(defaults, 1) << table->app() << " " << copa::to_string(b) << " " << nranks << " ranks";
      }
    }
}

TEST(Variants, defaults_per_backend) {
  EXPECT_EQ(registry().default_for(Backend::serial, 1).name, "oracle");
  EXPECT_EQ(registry().default_for(Backend::openmp, 1).name, "tiled");
  EXPECT_EQ(registry().default_for(Backend::cuda, 1).name, "zmarch-col");
  EXPECT_EQ(registry().default_for(Backend::hip, 1).name, "zmarch");
  EXPECT_EQ(registry().default_for(Backend::cuda, 2).name, "balanced");
  EXPECT_EQ(registry().default_for(Backend::hip, 2).name, "balanced");
  EXPECT_EQ(amr_registry().default_for(Backend::serial, 1).name, "amr-oracle");
  EXPECT_EQ(amr_registry().default_for(Backend::openmp, 1).name, "amr-tiled");
  EXPECT_EQ(amr_registry().default_for(Backend::cuda, 1).name, "amr-gpu");
}

TEST(Variants, one_rank_brick_takes_the_table_default) {
  const OctMesh m = brick(32);
  std::string note;
  EXPECT_EQ(default_selection(registry(), Backend::cuda, 1, m, &note).name(), "zmarch-col");
  EXPECT_TRUE(note.empty());
  EXPECT_EQ(default_selection(registry(), Backend::hip, 1, m).name(), "zmarch");
  EXPECT_EQ(default_selection(registry(), Backend::serial, 1, m).name(), "oracle");
  EXPECT_EQ(default_selection(registry(), Backend::openmp, 1, m).name(), "tiled");
}

TEST(Variants, fallback_rule_on_meshes_the_default_cannot_run_on) {
  // A brick that is not a power of two (24^3): zmarch-col -> balanced, reported.
  std::string note;
  EXPECT_EQ(default_selection(registry(), Backend::cuda, 1, brick(24), &note).name(), "balanced");
  EXPECT_EQ(note, "zmarch-col needs a power-of-two brick on one rank: balanced");
  // 30^3: 15 octs per axis, no whole 2x2x2 groups: down to subgrid6.
  EXPECT_EQ(default_selection(registry(), Backend::hip, 1, brick(30), &note).name(), "subgrid6");
  EXPECT_NE(note.find("zmarch needs"), std::string::npos);
  EXPECT_NE(note.find("balanced needs whole 2x2x2 oct groups"), std::string::npos);
  // Several ranks: the table's default (balanced), where the ranges hold whole groups.
  const OctMesh g = brick(32);
  const Partition part = partition_mesh(g, 2);
  for (int r = 0; r < 2; ++r) {
    const LocalDomain d = build_local_domain(g, part, r);
    EXPECT_FALSE(variant_applies(Backend::cuda, "zmarch-col", d.mesh));
    EXPECT_EQ(default_selection(registry(), Backend::cuda, 2, d.mesh).name(), "balanced");
    EXPECT_EQ(default_selection(registry(), Backend::hip, 2, d.mesh).name(), "balanced");
  }
}

TEST(Variants, zmarch_col_register_cap_by_block_size) {
  // reg-cap=80 holds up to 96 threads, reg-cap=96 up to 128; larger blocks run the next cap.
  EXPECT_EQ(zmarch_col_cap_run(80, 64), 80);
  EXPECT_EQ(zmarch_col_cap_run(80, 96), 80);
  EXPECT_EQ(zmarch_col_cap_run(80, 128), 96);
  EXPECT_EQ(zmarch_col_cap_run(80, 160), 0);
  EXPECT_EQ(zmarch_col_cap_run(96, 96), 96);
  EXPECT_EQ(zmarch_col_cap_run(96, 128), 96);
  EXPECT_EQ(zmarch_col_cap_run(96, 160), 0);
  // Where the tuning's kernel runs, no fallback; else one naming the kernel that ran and why.
  EXPECT_FALSE(zmarch_col_fallback("zmarch-col[reg-cap=80]", 80, 96));
  EXPECT_FALSE(zmarch_col_fallback("zmarch-col", 96, 128));
  const auto f = zmarch_col_fallback("zmarch-col[reg-cap=80]", 80, 128);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->from, "zmarch-col[reg-cap=80]");
  EXPECT_EQ(f->to, "the reg-cap=96 kernel (__launch_bounds__(128, 5))");
  EXPECT_EQ(f->reason, "128 threads per block: reg-cap=80's kernel holds at most 96");
  const auto g = zmarch_col_fallback("zmarch-col", 96, 160);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->to, "the uncapped kernel (no __launch_bounds__)");
  EXPECT_EQ(g->reason, "160 threads per block: reg-cap=96's kernel holds at most 128");
}

TEST(Variants, bad_names_and_tunings_exit_2_naming_the_valid_values) {
  try {
    registry().select(Backend::cuda, 1, "zmarch-col7");
    FAIL() << "a retired glued name was accepted";
  } catch (const copa::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("zmarch-col"), std::string::npos) << e.what();
  }
  EXPECT_THROW(registry().select(Backend::cuda, 1, "zmarch-col", {"reg-cap=64"}), copa::InputError);
  EXPECT_THROW(amr_registry().select(Backend::cuda, 1, "", {"group-min=9"}), copa::InputError);
  EXPECT_THROW(amr_registry().select(Backend::serial, 1, "", {"group-min=1"}), copa::InputError);
  EXPECT_EQ(registry().select(Backend::cuda, 1, "zmarch-col", {"reg-cap=80"}).label(), "zmarch-col[reg-cap=80]");
  EXPECT_EQ(amr_registry().select(Backend::cuda, 1, "", {"group-min=1"}).tuning("group-min"), "1");
}

TEST(Variants, list_prints_every_row) {
  for (const copa::VariantRegistry* table : {&registry(), &amr_registry()}) {
    std::ostringstream os;
    table->print(os);
    for (const copa::VariantInfo& v : table->rows()) EXPECT_NE(os.str().find(v.name), std::string::npos) << v.name;
  }
}
