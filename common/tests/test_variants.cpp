// The variant registry (copa/variants.hpp): table checks, defaults per backend and rank count,
// --variant / --tuning resolution and its errors, the sweeps the apps' tests iterate.
#include <functional>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "copa/errors.hpp"
#include "copa/variants.hpp"

using copa::Backend;
using copa::DefaultFor;
using copa::InputError;
using copa::Ranks;
using copa::VariantInfo;
using copa::VariantRegistry;

namespace {

VariantRegistry demo() {
  return VariantRegistry(
      "demo", {
                  {"oracle", {Backend::serial}, "the serial reference", {}, {{Backend::serial}}},
                  {"tiled", {Backend::openmp}, "one tile per thread", {}, {{Backend::openmp}}},
                  {"block",
                   {Backend::cuda, Backend::hip},
                   "one block per element",
                   {{"scatter", {"atomic", "gather"}, "how element sums reach the nodes"},
                    {"block", {"256", "128"}, "threads per block"}},
                   {{Backend::cuda, Ranks::one}, {Backend::hip}}},
                  {"column", {Backend::cuda}, "one thread per column", {}, {{Backend::cuda, Ranks::many}}},
              });
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Variants, defaults_follow_backend_and_rank_count) {
  const auto r = demo();
  EXPECT_EQ(r.default_for(Backend::serial, 1).name, "oracle");
  EXPECT_EQ(r.default_for(Backend::cuda, 1).name, "block");
  EXPECT_EQ(r.default_for(Backend::cuda, 4).name, "column");
  EXPECT_EQ(r.default_for(Backend::hip, 4).name, "block");
  const auto s = r.default_selection(Backend::cuda, 1);
  EXPECT_EQ(s.tuning("scatter"), "atomic");
  EXPECT_EQ(s.label(), "block");
}

TEST(Variants, tunings_resolve_and_label) {
  const auto r = demo();
  const auto s = r.select(Backend::cuda, 1, "block", {"scatter=gather"});
  EXPECT_TRUE(s.is("scatter", "gather"));
  EXPECT_EQ(s.tuning("block"), "256");
  EXPECT_EQ(s.label(), "block[scatter=gather]");
  EXPECT_EQ(s.tunings_json().dump(), R"({"block":"256","scatter":"gather"})");
  EXPECT_THROW(s.tuning("nonsense"), std::logic_error);
}

TEST(Variants, bad_names_and_values_name_the_option_and_the_valid_ones) {
  const auto r = demo();
  EXPECT_NE(message_of([&] { r.select(Backend::cuda, 1, "blok"); }).find("--variant: 'blok'"), std::string::npos);
  EXPECT_NE(message_of([&] { r.select(Backend::cuda, 1, "blok"); }).find("block, column"), std::string::npos);
  // A variant of another backend is refused on this one.
  EXPECT_NE(message_of([&] { r.select(Backend::hip, 1, "column"); }).find("offered: block"), std::string::npos);
  EXPECT_NE(message_of([&] { r.select(Backend::cuda, 1, "block", {"scatter=both"}); }).find("atomic, gather"),
            std::string::npos);
  EXPECT_NE(message_of([&] { r.select(Backend::cuda, 1, "block", {"lean=on"}); }).find("axes: scatter, block"),
            std::string::npos);
  EXPECT_NE(message_of([&] { r.select(Backend::cuda, 1, "block", {"scatter"}); }).find("AXIS=VALUE"),
            std::string::npos);
  EXPECT_NE(message_of([&] { r.select(Backend::cuda, 1, "block", {"scatter=atomic", "scatter=gather"}); })
                .find("given twice"),
            std::string::npos);
  EXPECT_NE(message_of([&] { r.select(Backend::cuda, 1, "column", {"scatter=atomic"}); }).find("axes: none"),
            std::string::npos);
}

TEST(Variants, sweeps_cover_every_variant_and_every_value) {
  const auto r = demo();
  EXPECT_EQ(r.all_defaults(Backend::cuda).size(), 2u);
  EXPECT_EQ(r.all_tunings(Backend::cuda).size(), 4u + 1u);  // block: 2 x 2 values; column: 1
  EXPECT_EQ(r.all_tunings(Backend::hip).size(), 4u);
  EXPECT_EQ(r.names(Backend::serial), std::vector<std::string>{"oracle"});
}

TEST(Variants, the_table_is_checked) {
  EXPECT_THROW(VariantRegistry("x", {{"a", {Backend::serial}, ""}, {"a", {Backend::serial}, ""}}), std::logic_error);
  EXPECT_THROW(VariantRegistry("x", {{"a", {}, ""}}), std::logic_error);
  EXPECT_THROW(VariantRegistry("x", {{"a", {Backend::cuda}, "", {{"t", {}, ""}}}}), std::logic_error);
  EXPECT_THROW(VariantRegistry("x", {{"a", {Backend::cuda}, "", {{"t", {"1", "1"}, ""}}}}), std::logic_error);
  // Two defaults for one backend, or a default on a backend the row is not offered on.
  EXPECT_THROW(VariantRegistry("x", {{"a", {Backend::cuda}, "", {}, {{Backend::cuda}}},
                                     {"b", {Backend::cuda}, "", {}, {{Backend::cuda, Ranks::one}}}}),
               std::logic_error);
  EXPECT_THROW(VariantRegistry("x", {{"a", {Backend::cuda}, "", {}, {{Backend::hip}}}}), std::logic_error);
  // No default: asking for one is a programming error, not bad input.
  EXPECT_THROW(VariantRegistry("x", {{"a", {Backend::cuda}, ""}}).default_for(Backend::cuda, 1), std::logic_error);
}

TEST(Variants, list_prints_every_row_and_axis) {
  std::ostringstream os;
  demo().print(os);
  const std::string out = os.str();
  for (const char* s : {"oracle", "tiled", "block", "column", "--tuning scatter=atomic|gather", "cuda (1 rank)",
                        "cuda (>1 ranks)", "one thread per column"})
    EXPECT_NE(out.find(s), std::string::npos) << s << "\n" << out;
}
