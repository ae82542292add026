#include <thread>

#include "copa/stats.hpp"
#include "copa/testing.hpp"
#include "copa/timing.hpp"

TEST(StatsTiming, median_of_odd_and_even_counts) {
  const copa::Stats odd = copa::summarize({5, 1, 3});
  EXPECT_TRUE(odd.count == 3);
  COPA_EXPECT_NEAR_REL(odd.median, 3, 0);
  COPA_EXPECT_NEAR_REL(odd.min, 1, 0);
  COPA_EXPECT_NEAR_REL(odd.max, 5, 0);
  COPA_EXPECT_NEAR_REL(odd.mean, 3, 1e-15);
  COPA_EXPECT_NEAR_REL(odd.total, 9, 1e-15);
  const copa::Stats even = copa::summarize({4, 1, 3, 2});
  COPA_EXPECT_NEAR_REL(even.median, 2.5, 0);
}

TEST(StatsTiming, median_absolute_deviation) {
  // |x - 2| = {1, 1, 0, 0, 7, 2}: sorted {0,0,1,1,2,7}, median 1.
  const copa::Stats s = copa::summarize({1, 3, 2, 2, 9, 4});
  COPA_EXPECT_NEAR_REL(s.median, 2.5, 0);
  // |x - 2.5| = {1.5, 0.5, 0.5, 0.5, 6.5, 1.5}: median 1.
  COPA_EXPECT_NEAR_REL(s.mad, 1.0, 0);
}

TEST(StatsTiming, empty_samples_give_zero_count) {
  const copa::Stats s = copa::summarize({});
  EXPECT_TRUE(s.count == 0);
  EXPECT_TRUE(s.median == 0);
}

TEST(StatsTiming, profile_keeps_first_seen_order_and_samples) {
  copa::Profile p;
  p.add("b", 1.0);
  p.add("a", 2.0);
  p.add("b", 3.0);
  EXPECT_TRUE(p.names().size() == 2);
  EXPECT_TRUE(p.names()[0] == "b");
  EXPECT_TRUE(p.samples("b").size() == 2);
  COPA_EXPECT_NEAR_REL(p.total("b"), 4.0, 1e-15);
  COPA_EXPECT_NEAR_REL(p.total("missing"), 0.0, 0);
  EXPECT_THROW(p.samples("missing"), std::out_of_range);
}

TEST(StatsTiming, host_timer_measures_a_sleep_and_counts_repetitions) {
  copa::Profile p;
  copa::HostTimer timer(p);
  int calls = 0;
  copa::repeat_timed(timer, "sleep", 2, 3, [&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  });
  EXPECT_TRUE(calls == 5);                      // warm-up runs are not recorded
  EXPECT_TRUE(p.samples("sleep").size() == 3);  // every timed repetition is
  EXPECT_TRUE(p.stats("sleep").min >= 0.002);
}

TEST(StatsTiming, nested_regions_are_recorded_separately) {
  copa::Profile p;
  copa::HostTimer timer(p);
  {
    copa::Region outer(timer, "outer");
    copa::Region inner(timer, "inner");
  }
  EXPECT_TRUE(p.has("outer") && p.has("inner"));
  EXPECT_TRUE(p.samples("outer")[0] >= p.samples("inner")[0]);
  EXPECT_THROW(timer.end(), std::logic_error);
}
