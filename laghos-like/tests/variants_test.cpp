// The variant table (variants.cpp): one default per backend and rank class, the selections that
// tests/CMakeLists.txt runs on the GPU are exactly the table's, and bad names and values are input
// errors (exit 2) that name the valid ones.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "copa/errors.hpp"
#include "variants.hpp"

using copa::Backend;

namespace {

const std::vector<Backend> kBackends{Backend::serial, Backend::openmp, Backend::cuda, Backend::hip};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream is(s);
  while (std::getline(is, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

TEST(Variants, one_default_per_backend_and_rank_class) {
  for (Backend b : kBackends) {
    ASSERT_FALSE(laghos::registry().offered(b).empty()) << copa::to_string(b);
    for (int ranks : {1, 2}) {
      int defaults = 0;
      for (const auto* r : laghos::registry().offered(b))
        for (const auto& d : r->default_for)
          if (d.backend == b && (d.ranks == copa::Ranks::any || (d.ranks == copa::Ranks::one) == (ranks == 1)))
            ++defaults;
      EXPECT_EQ(defaults, 1) << copa::to_string(b) << " on " << ranks << " rank(s)";
    }
  }
}

// The defaults of each backend and rank class, as the README's variants table states them.
TEST(Variants, defaults) {
  const auto label = [](Backend b, int ranks) {
    return laghos::full_label(laghos::registry().default_selection(b, ranks));
  };
  EXPECT_EQ(label(Backend::serial, 1), "reference");
  EXPECT_EQ(label(Backend::serial, 4), "reference");
  EXPECT_EQ(label(Backend::openmp, 2), "element-parallel");
  EXPECT_EQ(label(Backend::cuda, 1), "lean[layout=xy,mass=zcol,cg=host]");
  EXPECT_EQ(label(Backend::cuda, 2), "block[layout=xy,mass=atomic]");
  EXPECT_EQ(label(Backend::hip, 1), "block[layout=xy,mass=atomic]");
  EXPECT_EQ(label(Backend::hip, 2), "block[layout=xy,mass=atomic]");
}

// LAGHOS_GPU_SELECTIONS (tests/CMakeLists.txt) is every GPU selection of the table.
TEST(Variants, gpu_tests_cover_the_table) {
  std::vector<std::string> table;
  for (const auto& s : laghos::registry().all_tunings(Backend::cuda)) table.push_back(laghos::full_label(s));
  EXPECT_EQ(split(LAGHOS_GPU_SELECTIONS, '|'), table);
  std::vector<std::string> hip;
  for (const auto& s : laghos::registry().all_tunings(Backend::hip)) hip.push_back(laghos::full_label(s));
  EXPECT_EQ(hip, table);
}

TEST(Variants, bad_names_and_values_are_input_errors) {
  const auto& reg = laghos::registry();
  const auto message = [&](const std::string& variant, const std::vector<std::string>& tunings) {
    try {
      reg.select(Backend::cuda, 1, variant, tunings);
    } catch (const copa::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("block-xy-atomic", {}).find("offered: lean, block, generic"), std::string::npos);
  EXPECT_NE(message("reference", {}).find("--variant"), std::string::npos);
  EXPECT_NE(message("block", {"mass=staged"}).find("values: atomic, gather"), std::string::npos);
  EXPECT_NE(message("lean", {"mass=gather"}).find("values: zcol, shared"), std::string::npos);
  EXPECT_NE(message("lean", {"order=xyz"}).find("axes: layout, mass, cg"), std::string::npos);
  EXPECT_NE(message("generic", {"layout=xy"}).find("axes: none"), std::string::npos);
  EXPECT_EQ(message("block", {"layout=xyz", "mass=gather"}), "no error");
}

// lean's mass=zcol applies to 3D Q_k/Q_{k-1}; elsewhere an explicit zcol is an input error naming
// --tuning, and the default falls back to mass=shared.
TEST(Variants, zcol_mass_only_where_its_kernels_exist) {
  const auto& reg = laghos::registry();
  // The resolved label, or the input error's message.
  const auto fit = [&](const std::vector<std::string>& tunings, int dim, int k, int ot) {
    try {
      copa::Selection s = reg.select(Backend::cuda, 1, "lean", tunings);
      laghos::apply_to_run(s, tunings, dim, k, ot);
      return laghos::full_label(s);
    } catch (const copa::InputError& e) {
      return std::string(e.what());
    }
  };
  for (int k = 1; k <= 4; ++k) {
    EXPECT_EQ(fit({"mass=zcol"}, 3, k, k - 1), "lean[layout=xy,mass=zcol,cg=host]") << k;
    EXPECT_EQ(fit({}, 3, k, k - 1), "lean[layout=xy,mass=zcol,cg=host]") << k;
  }
  EXPECT_EQ(fit({"mass=zcol", "layout=xyz"}, 3, 2, 1), "lean[layout=xyz,mass=zcol,cg=host]");
  EXPECT_NE(fit({"mass=zcol"}, 2, 2, 1).find("--tuning mass=zcol: the z-column H1 mass is 3D only"), std::string::npos);
  EXPECT_NE(fit({"mass=zcol"}, 3, 2, 2).find("--tuning mass=zcol"), std::string::npos);
  EXPECT_NE(fit({"mass=zcol"}, 3, 3, 0).find("--tuning mass=zcol"), std::string::npos);
  // The default where zcol has no kernel: shared, with or without other axes named.
  EXPECT_EQ(fit({}, 2, 2, 1), "lean[layout=xy,mass=shared,cg=host]");
  EXPECT_EQ(fit({}, 3, 2, 2), "lean[layout=xy,mass=shared,cg=host]");
  EXPECT_EQ(fit({"layout=xyz"}, 3, 3, 3), "lean[layout=xyz,mass=shared,cg=host]");
  EXPECT_EQ(fit({"mass=shared"}, 2, 2, 2), "lean[layout=xy,mass=shared,cg=host]");
  copa::Selection block = reg.select(Backend::cuda, 1, "block", {"mass=gather"});
  laghos::apply_to_run(block, {"mass=gather"}, 2, 2, 2);
  EXPECT_EQ(laghos::full_label(block), "block[layout=xy,mass=gather]");
}
