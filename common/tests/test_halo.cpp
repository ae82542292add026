// The halo layer on one rank: links to itself (periodic wrap), replace and add, several components,
// and the refusals. Argument: host (label cpu) or device (label gpu, copies through the GPU).
#include <cmath>
#include <string>
#include <vector>

#include "copa/cli.hpp"
#include "copa/errors.hpp"
#include "copa/halo.hpp"
#include "copa/mpi.hpp"
#include "copa/testing.hpp"
#include "halo_test_field.hpp"

using namespace copa::halo;
using copa::halo::testing::exchange_on;

namespace {
Memory memory = Memory::host;

// A 1D periodic line of n owned cells with one ghost each side: [g0, c1 .. cn, g(n+1)].
std::vector<Link> periodic_line(std::int64_t n) { return {Link{0, {n, 1}, {0, n + 1}}}; }
}  // namespace

TEST(Halo, self_link_fills_periodic_ghosts) {
  const std::int64_t n = 6;
  std::vector<double> f(n + 2, -1.0);
  for (std::int64_t i = 1; i <= n; ++i) f[static_cast<std::size_t>(i)] = 10.0 * i;
  exchange_on(f, periodic_line(n), {}, Transport::host, memory, Combine::replace);
  EXPECT_TRUE(f[0] == 10.0 * n);
  EXPECT_TRUE(f[n + 1] == 10.0);
  for (std::int64_t i = 1; i <= n; ++i) EXPECT_TRUE(f[static_cast<std::size_t>(i)] == 10.0 * i);
}

TEST(Halo, self_link_with_components_and_repeated_steps) {
  const std::int64_t n = 4, stride = n + 2;
  std::vector<double> f(static_cast<std::size_t>(3 * stride), -1.0);
  for (int c = 0; c < 3; ++c)
    for (std::int64_t i = 1; i <= n; ++i) f[static_cast<std::size_t>(c * stride + i)] = 100.0 * c + i;
  exchange_on(f, periodic_line(n), {3, stride}, Transport::host, memory, Combine::replace, 3);
  for (int c = 0; c < 3; ++c) {
    EXPECT_TRUE(f[static_cast<std::size_t>(c * stride)] == 100.0 * c + n);
    EXPECT_TRUE(f[static_cast<std::size_t>(c * stride + n + 1)] == 100.0 * c + 1);
  }
}

TEST(Halo, add_accumulates_ghost_contributions_into_owners) {
  // Reverse exchange: ghosts 0 and n+1 hold deposits that belong to cells n and 1.
  const std::int64_t n = 5;
  std::vector<double> f(n + 2, 0.0);
  for (std::int64_t i = 1; i <= n; ++i) f[static_cast<std::size_t>(i)] = 1.0;
  f[0] = 0.25;
  f[n + 1] = 0.5;
  exchange_on(f, {Link{0, {0, n + 1}, {n, 1}}}, {}, Transport::host, memory, Combine::add);
  EXPECT_TRUE(f[n] == 1.25);
  EXPECT_TRUE(f[1] == 1.5);
  EXPECT_TRUE(f[2] == 1.0);
}

TEST(Halo, add_of_one_element_from_several_positions_is_in_link_order) {
  // One element receives three values of one link: they are added in the link's order, so the
  // result is (((1 + h) + h) + 2h) = 1 + 2h with h = 2^-53, not 1 + 4h of another grouping.
  const double h = std::ldexp(1.0, -53);
  std::vector<double> f{1.0, h, h, 2 * h};
  exchange_on(f, {Link{0, {1, 2, 3}, {0, 0, 0}}}, {}, Transport::host, memory, Combine::add);
  EXPECT_TRUE(f[0] == (1.0 + h + h) + 2 * h);
}

TEST(Halo, add_in_rank_order_on_one_rank_adds_the_self_link_after_the_own_value) {
  // On one rank nothing comes from a lower rank: the own value first, then the self link's values
  // in link order, (1 + h) + h = 1 with h = 2^-53 (h + h first would give 1 + 2^-52).
  const double h = std::ldexp(1.0, -53);
  std::vector<double> f{1.0, h, h};
  exchange_on(f, {Link{0, {1, 2}, {0, 0}}}, {}, Transport::host, memory, Combine::add_in_rank_order);
  EXPECT_TRUE(f[0] == 1.0);
  EXPECT_TRUE(f[1] == h && f[2] == h);
}

TEST(Halo, empty_and_no_links_do_nothing) {
  std::vector<double> f{1, 2, 3};
  exchange_on(f, {}, {}, Transport::host, memory, Combine::replace);
  exchange_on(f, {Link{0, {}, {}}}, {}, Transport::host, memory, Combine::add);
  EXPECT_TRUE(f == (std::vector<double>{1, 2, 3}));
  Exchange x({Link{0, {}, {}}}, {}, Transport::host, Memory::host);
  EXPECT_TRUE(x.bytes_sent() == 0 && x.bytes_received() == 0 && x.peers() == 0);
}

TEST(Halo, refusals) {
  EXPECT_THROW(parse_transport("carrier-pigeon"), copa::InputError);
  EXPECT_TRUE(parse_transport("host") == Transport::host);
  EXPECT_TRUE(to_string(Transport::cuda_aware) == "cuda-aware");
  EXPECT_TRUE(transports_built().front() == "host");
  // A link to a rank that does not exist, two links to one peer, a self link of unequal sizes.
  EXPECT_THROW(Exchange({Link{1, {0}, {1}}}, {}, Transport::host, Memory::host), copa::RuntimeError);
  EXPECT_THROW(Exchange({Link{0, {0}, {1}}, Link{0, {1}, {0}}}, {}, Transport::host, Memory::host),
                    copa::RuntimeError);
  EXPECT_THROW(Exchange({Link{0, {0, 1}, {1}}}, {}, Transport::host, Memory::host), copa::RuntimeError);
  // An index beyond a component of a multi-component field.
  EXPECT_THROW(Exchange({Link{0, {5}, {0}}}, {2, 4}, Transport::host, Memory::host), copa::RuntimeError);
  // GPU transports move device memory only.
  for (const auto& name : transports_built()) {
    if (name != "host") {
      EXPECT_THROW(Exchange({}, {}, parse_transport(name), Memory::host), copa::InputError);
    }
  }
#if !defined(COPA_HAVE_CUDA) && !defined(COPA_HAVE_HIP)
  EXPECT_THROW(Exchange({}, {}, Transport::host, Memory::device), copa::InputError);
#endif
#if !defined(COPA_HAVE_MPI)
  EXPECT_THROW(parse_transport("nccl"), copa::InputError);
  EXPECT_THROW(Exchange({}, {}, Transport::ipc, Memory::device), copa::InputError);
#endif
  Exchange x(periodic_line(3), {}, Transport::host, Memory::host);
  std::vector<double> f(5, 0.0);
  EXPECT_THROW(x.finish(f.data()), copa::RuntimeError);
}

int main(int argc, char** argv) {
  copa::mpi::Session session(argc, argv);
  return copa::guarded_main([&]() -> int {
    ::testing::InitGoogleTest(&argc, argv);
    if (argc > 1) memory = copa::halo::testing::memory_named(argv[1]);
    // Listing the cases (ctest's discovery) must not need a GPU.
    if (memory == Memory::device && !GTEST_FLAG_GET(list_tests)) copa::select_device(-1);
    return RUN_ALL_TESTS();
  });
}
