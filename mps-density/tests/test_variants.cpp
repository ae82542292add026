// The variant registry: one default per backend and rank class (the defaults the README states),
// a bad --variant names every valid one, --tuning is refused (no row has an axis), and --list
// prints every row.
#include <sstream>
#include <string>

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

TEST(Variants, list_prints_every_row) {
  std::ostringstream os;
  mps::registry().print(os);
  for (const auto& row : mps::registry().rows()) EXPECT_TRUE(os.str().find(row.name) != std::string::npos);
}

}  // namespace
