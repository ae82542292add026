// The variant registry: one default per backend and rank class (the defaults the README states),
// a bad --variant names every valid one, a tuning is refused where the row has no such axis or
// value (fine-lean-cellrows alone has one: step=graph|launches), and --list prints every row.
#include <sstream>
#include <string>
#include <vector>

#include "copa/errors.hpp"
#include "copa/testing.hpp"
#include "variants.hpp"

namespace {

using copa::Backend;

const Backend all_backends[] = {Backend::serial, Backend::openmp, Backend::cuda, Backend::hip};

TEST(Variants, every_backend_has_one_default_per_rank_class) {
  const auto& r = mps::registry();
  for (Backend b : all_backends) {
    if (r.offered(b).empty()) continue;
    for (int ranks : {1, 4}) {
      int defaults = 0;
      for (const auto& row : r.rows())
        for (const auto& d : row.default_for)
          defaults += d.backend == b && (d.ranks == copa::Ranks::any || (d.ranks == copa::Ranks::one) == (ranks == 1));
      EXPECT_TRUE(defaults == 1);
      EXPECT_NO_THROW(r.default_for(b, ranks));
    }
  }
}

TEST(Variants, defaults_are_the_measured_fastest) {
  const auto& r = mps::registry();
  EXPECT_TRUE(r.default_for(Backend::serial, 1).name == "sorted-particle");
  EXPECT_TRUE(r.default_for(Backend::openmp, 2).name == "sorted-particle");
  EXPECT_TRUE(r.default_for(Backend::cuda, 1).name == "fine-lean-cellrows");
  EXPECT_TRUE(r.default_for(Backend::cuda, 2).name == "fine-lean");
  EXPECT_TRUE(r.default_for(Backend::hip, 1).name == "fine-lean");
  EXPECT_TRUE(r.default_for(Backend::hip, 2).name == "fine-lean");
}

TEST(Variants, every_row_names_a_strategy_and_back) {
  for (const auto& row : mps::registry().rows()) EXPECT_TRUE(mps::to_string(mps::strategy_named(row.name)) == row.name);
}

TEST(Variants, a_bad_name_is_refused_naming_the_valid_ones) {
  const auto& r = mps::registry();
  for (Backend b : all_backends) {
    if (r.offered(b).empty()) continue;
    std::string message;
    try {
      r.select(b, 1, "nope");
    } catch (const copa::InputError& e) {
      message = e.what();
    }
    EXPECT_TRUE(message.find("--variant") != std::string::npos);
    for (const auto& name : r.names(b)) EXPECT_TRUE(message.find(name) != std::string::npos);
  }
  // brute is the serial oracle only.
  EXPECT_THROW(r.select(Backend::openmp, 1, "brute"), copa::InputError);
  EXPECT_THROW(r.select(Backend::serial, 1, "sorted-particle", {"block=128"}), copa::InputError);
}

TEST(Variants, only_fine_lean_cellrows_has_the_step_axis_graph_first) {
  const auto& r = mps::registry();
  for (const auto& row : r.rows()) {
    const auto* axis = row.axis("step");
    EXPECT_TRUE((axis != nullptr) == (row.name == "fine-lean-cellrows"));
    EXPECT_TRUE(row.tunings.size() == (axis != nullptr ? 1u : 0u));
    if (axis) {
      EXPECT_TRUE(axis->values == (std::vector<std::string>{"graph", "launches"}));
    }
  }
  for (Backend b : {Backend::cuda, Backend::hip}) {
    EXPECT_TRUE(mps::step_graph(r.select(b, 1, "fine-lean-cellrows")));
    EXPECT_FALSE(mps::step_graph(r.select(b, 1, "fine-lean-cellrows", {"step=launches"})));
    EXPECT_THROW(r.select(b, 1, "fine-lean-cellrows", {"step=fused"}), copa::InputError);
    EXPECT_THROW(r.select(b, 1, "fine-lean", {"step=graph"}), copa::InputError);
  }
}

TEST(Variants, list_prints_every_row) {
  std::ostringstream os;
  mps::registry().print(os);
  for (const auto& row : mps::registry().rows()) EXPECT_TRUE(os.str().find(row.name) != std::string::npos);
}

}  // namespace
