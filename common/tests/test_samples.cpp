// Every timed kernel keeps its repetition samples: they travel with the statistics (Stats::samples)
// into the report's kernel rows and the JSON's samples_s, however the app builds its rows.
#include <vector>

#include "copa/report.hpp"
#include "copa/stats.hpp"
#include "copa/testing.hpp"
#include "copa/timing.hpp"

TEST(Samples, summarize_keeps_the_samples_in_the_order_measured) {
  const copa::Stats s = copa::summarize({3.0, 1.0, 2.0});
  EXPECT_EQ(s.samples, (std::vector<double>{3.0, 1.0, 2.0}));
  EXPECT_EQ(s.median, 2.0);
  EXPECT_TRUE(copa::summarize({}).samples.empty());
}

TEST(Samples, a_row_built_from_statistics_stores_its_samples) {
  copa::Report r("test", "0");
  r.add_kernel("from-stats", copa::summarize({4e-3, 1e-3, 2e-3, 3e-3, 5e-3}), copa::KernelCost{});
  copa::Profile p;
  p.add("from-profile", 1e-3);
  p.add("from-profile", 2e-3);
  r.add_kernel("profile-stats", p.stats("from-profile"), copa::KernelCost{});
  r.add_kernel(p, "from-profile", copa::KernelCost{});
  const auto doc = r.to_json();
  ASSERT_EQ(doc["kernels"].size(), 3u);
  EXPECT_EQ(doc["kernels"][0]["samples_s"].get<std::vector<double>>(),
            (std::vector<double>{4e-3, 1e-3, 2e-3, 3e-3, 5e-3}));
  EXPECT_EQ(doc["kernels"][1]["samples_s"].get<std::vector<double>>(), (std::vector<double>{1e-3, 2e-3}));
  EXPECT_EQ(doc["kernels"][2]["samples_s"], doc["kernels"][1]["samples_s"]);
}

TEST(Samples, statistics_without_samples_give_an_empty_list) {
  copa::Report r("test", "0");
  copa::Stats s;
  s.count = 3;
  s.median = 1.0;
  r.add_kernel("stats-only", s, copa::KernelCost{});
  EXPECT_TRUE(r.to_json()["kernels"][0]["samples_s"].empty());
}
