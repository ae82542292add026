// The halo layer on one rank: links to itself (periodic wrap), replace and add, several components,
// and the refusals. Argument: host (label cpu) or device (label gpu, copies through the GPU).
#define COPA_TEST_MAIN
#define COPA_TEST_CUSTOM_MAIN
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

COPA_TEST(self_link_fills_periodic_ghosts) {
  const std::int64_t n = 6;
  std::vector<double> f(n + 2, -1.0);
  for (std::int64_t i = 1; i <= n; ++i) f[static_cast<std::size_t>(i)] = 10.0 * i;
  exchange_on(f, periodic_line(n), {}, Transport::host, memory, Combine::replace);
  COPA_CHECK(f[0] == 10.0 * n);
  COPA_CHECK(f[n + 1] == 10.0);
  for (std::int64_t i = 1; i <= n; ++i) COPA_CHECK(f[static_cast<std::size_t>(i)] == 10.0 * i);
}

COPA_TEST(self_link_with_components_and_repeated_steps) {
  const std::int64_t n = 4, stride = n + 2;
  std::vector<double> f(static_cast<std::size_t>(3 * stride), -1.0);
  for (int c = 0; c < 3; ++c)
    for (std::int64_t i = 1; i <= n; ++i) f[static_cast<std::size_t>(c * stride + i)] = 100.0 * c + i;
  exchange_on(f, periodic_line(n), {3, stride}, Transport::host, memory, Combine::replace, 3);
  for (int c = 0; c < 3; ++c) {
    COPA_CHECK(f[static_cast<std::size_t>(c * stride)] == 100.0 * c + n);
    COPA_CHECK(f[static_cast<std::size_t>(c * stride + n + 1)] == 100.0 * c + 1);
  }
}

COPA_TEST(add_accumulates_ghost_contributions_into_owners) {
  // Reverse exchange: ghosts 0 and n+1 hold deposits that belong to cells n and 1.
  const std::int64_t n = 5;
  std::vector<double> f(n + 2, 0.0);
  for (std::int64_t i = 1; i <= n; ++i) f[static_cast<std::size_t>(i)] = 1.0;
  f[0] = 0.25;
  f[n + 1] = 0.5;
  exchange_on(f, {Link{0, {0, n + 1}, {n, 1}}}, {}, Transport::host, memory, Combine::add);
  COPA_CHECK(f[n] == 1.25);
  COPA_CHECK(f[1] == 1.5);
  COPA_CHECK(f[2] == 1.0);
}

COPA_TEST(add_of_one_element_from_several_positions_is_in_link_order) {
  // One element receives three values of one link: they are added in the link's order, so the
  // result is (((1 + h) + h) + 2h) = 1 + 2h with h = 2^-53, not 1 + 4h of another grouping.
  const double h = std::ldexp(1.0, -53);
  std::vector<double> f{1.0, h, h, 2 * h};
  exchange_on(f, {Link{0, {1, 2, 3}, {0, 0, 0}}}, {}, Transport::host, memory, Combine::add);
  COPA_CHECK(f[0] == (1.0 + h + h) + 2 * h);
}

COPA_TEST(empty_and_no_links_do_nothing) {
  std::vector<double> f{1, 2, 3};
  exchange_on(f, {}, {}, Transport::host, memory, Combine::replace);
  exchange_on(f, {Link{0, {}, {}}}, {}, Transport::host, memory, Combine::add);
  COPA_CHECK(f == (std::vector<double>{1, 2, 3}));
  Exchange x({Link{0, {}, {}}}, {}, Transport::host, Memory::host);
  COPA_CHECK(x.bytes_sent() == 0 && x.bytes_received() == 0 && x.peers() == 0);
}

COPA_TEST(refusals) {
  COPA_CHECK_THROWS(parse_transport("carrier-pigeon"), copa::InputError);
  COPA_CHECK(parse_transport("host") == Transport::host);
  COPA_CHECK(to_string(Transport::cuda_aware) == "cuda-aware");
  COPA_CHECK(transports_built().front() == "host");
  // A link to a rank that does not exist, two links to one peer, a self link of unequal sizes.
  COPA_CHECK_THROWS(Exchange({Link{1, {0}, {1}}}, {}, Transport::host, Memory::host), copa::RuntimeError);
  COPA_CHECK_THROWS(Exchange({Link{0, {0}, {1}}, Link{0, {1}, {0}}}, {}, Transport::host, Memory::host),
                    copa::RuntimeError);
  COPA_CHECK_THROWS(Exchange({Link{0, {0, 1}, {1}}}, {}, Transport::host, Memory::host), copa::RuntimeError);
  // An index beyond a component of a multi-component field.
  COPA_CHECK_THROWS(Exchange({Link{0, {5}, {0}}}, {2, 4}, Transport::host, Memory::host), copa::RuntimeError);
  // GPU transports move device memory only.
  for (const auto& name : transports_built())
    if (name != "host")
      COPA_CHECK_THROWS(Exchange({}, {}, parse_transport(name), Memory::host), copa::InputError);
#if !defined(COPA_HAVE_CUDA) && !defined(COPA_HAVE_HIP)
  COPA_CHECK_THROWS(Exchange({}, {}, Transport::host, Memory::device), copa::InputError);
#endif
#if !defined(COPA_HAVE_MPI)
  COPA_CHECK_THROWS(parse_transport("nccl"), copa::InputError);
  COPA_CHECK_THROWS(Exchange({}, {}, Transport::ipc, Memory::device), copa::InputError);
#endif
  Exchange x(periodic_line(3), {}, Transport::host, Memory::host);
  std::vector<double> f(5, 0.0);
  COPA_CHECK_THROWS(x.finish(f.data()), copa::RuntimeError);
}

int main(int argc, char** argv) {
  copa::mpi::Session session(argc, argv);
  return copa::guarded_main([&]() -> int {
    if (argc > 1) memory = copa::halo::testing::memory_named(argv[1]);
    if (memory == Memory::device) copa::select_device(-1);
    return copa::testing::run_all(1, argv);
  });
}
