// The variant table (src/variants.cpp): one default per backend and rank class, today's defaults,
// the refusals of bad names and values (exit 2, naming the valid ones), the --list table, and the
// mapping of each GPU selection to its fill.
#include <functional>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "kernels.hpp"
#include "variants.hpp"

using namespace efie;
using copa::Backend;

namespace {

const Backend all_backends[] = {Backend::serial, Backend::openmp, Backend::cuda, Backend::hip};

std::string input_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const copa::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Variants, one_default_per_backend_and_rank_class) {
  for (Backend b : all_backends) {
    int one = 0, many = 0;
    for (const auto& row : registry().rows())
      for (const auto& d : row.default_for) {
        if (d.backend != b) continue;
        EXPECT_NE(d.ranks, copa::Ranks::any) << row.name;
        one += d.ranks == copa::Ranks::one;
        many += d.ranks == copa::Ranks::many;
      }
    EXPECT_EQ(one, 1) << copa::to_string(b);
    EXPECT_EQ(many, 1) << copa::to_string(b);
    EXPECT_FALSE(registry().offered(b).empty());
  }
}

TEST(Variants, defaults) {
  EXPECT_EQ(default_selection(Backend::serial).name(), "pairs");
  EXPECT_EQ(default_selection(Backend::openmp).name(), "triangle-rows");
  const auto cuda = default_selection(Backend::cuda);
  EXPECT_EQ(cuda.name(), "triangle-pair-upper");
  EXPECT_EQ(cuda.tuning("merge"), "lanes");
  EXPECT_EQ(gpu_fill_of(cuda), GpuFill::upper_lanes);
  EXPECT_EQ(default_selection(Backend::hip).name(), "triangle-pair");
  for (Backend b : all_backends) EXPECT_EQ(registry().default_selection(b, 4).name(), distributed_variant);
}

TEST(Variants, bad_names_and_values_name_the_valid_ones) {
  copa::CommonOptions o;
  o.variant = "magic";
  const std::string msg = input_error([&] { select_variant(o, Backend::cuda, 1); });
  EXPECT_NE(msg.find("--variant"), std::string::npos) << msg;
  for (const auto& name : registry().names(Backend::cuda)) EXPECT_NE(msg.find(name), std::string::npos) << msg;
  o.variant = "block";
  EXPECT_NE(input_error([&] { select_variant(o, Backend::serial, 1); }).find("pairs"), std::string::npos);
  o.variant = "blas";
  EXPECT_FALSE(input_error([&] { select_variant(o, Backend::hip, 1); }).empty());  // no hipBLAS here
  o.variant = "triangle-pair-upper";
  o.tunings = {"merge=none"};
  const std::string tuning = input_error([&] { select_variant(o, Backend::cuda, 1); });
  EXPECT_NE(tuning.find("lanes"), std::string::npos) << tuning;
  EXPECT_NE(tuning.find("source"), std::string::npos) << tuning;
  o.tunings = {"merge=source"};
  EXPECT_EQ(gpu_fill_of(select_variant(o, Backend::cuda, 1)), GpuFill::upper_source);
  // owned-pairs only on several ranks, and only it there
  o = {};
  o.variant = distributed_variant;
  EXPECT_FALSE(input_error([&] { select_variant(o, Backend::serial, 1); }).empty());
  EXPECT_EQ(select_variant(o, Backend::serial, 3).name(), distributed_variant);
  o.variant = "pairs";
  EXPECT_FALSE(input_error([&] { select_variant(o, Backend::serial, 2); }).empty());
}

TEST(Variants, list_prints_every_row) {
  std::ostringstream out;
  registry().print(out);
  for (const auto& row : registry().rows()) {
    EXPECT_NE(out.str().find(row.name), std::string::npos) << row.name;
    for (const auto& axis : row.tunings) EXPECT_NE(out.str().find(axis.name), std::string::npos) << axis.name;
  }
}

TEST(Variants, gpu_sweep_maps_to_distinct_fills) {
  std::set<GpuFill> fills;
  for (const auto& s : engine_selections(Backend::cuda)) fills.insert(gpu_fill_of(s));
  EXPECT_EQ(fills.size(), 5u);  // triangle-pair-upper (lanes, source), triangle-pair, block, blas
  for (const auto& s : engine_selections(Backend::hip)) EXPECT_NE(gpu_fill_of(s), GpuFill::blas);
  EXPECT_EQ(engine_selections(Backend::serial).size(), 1u);
  EXPECT_EQ(engine_selections(Backend::openmp).size(), 1u);
}
