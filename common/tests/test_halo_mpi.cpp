// The halo layer over 2 and 3 ranks. Every pair of ranks exchanges a pattern of uneven sizes (one
// pair's link is empty), each rank also wraps onto itself, and the received elements are checked
// against the values the sender is known to hold. Arguments: TRANSPORT MEMORY (host host on the
// CPU; on a GPU build each transport with device memory, also compared with the host transport).
#include <cmath>
#include <cstring>
#include <iostream>
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
using copa::halo::testing::exchange_forked;

namespace {

Transport transport = Transport::host;
Memory memory = Memory::host;

constexpr std::int64_t owned = 40;  // owned elements per rank per component; ghosts follow
constexpr int components = 2;

// Elements rank `from` sends to rank `to` (from != to, or to itself for the wrap): uneven counts,
// and the link between ranks 0 and 1 carries nothing from 1 to 0.
std::vector<std::int64_t> sent(int from, int to) {
  if (from == 1 && to == 0) return {};
  const std::int64_t count = 1 + (3 * from + 5 * to) % 7;
  std::vector<std::int64_t> s;
  for (std::int64_t j = 0; j < count; ++j) s.push_back((7 * j + 3 * to + from) % owned);
  return s;
}

int ranks() { return copa::mpi::size(); }
int me() { return copa::mpi::rank(); }

// Ghost positions at rank `at` for the message from `from`: after the owned part, one block per
// sender in ascending rank.
std::int64_t ghost_base(int at, int from) {
  std::int64_t base = owned;
  for (int r = 0; r < from; ++r) base += static_cast<std::int64_t>(sent(r, at).size());
  return base;
}
std::int64_t stride() {
  std::int64_t m = 0;
  for (int at = 0; at < ranks(); ++at) m = std::max(m, ghost_base(at, ranks()));
  return m;
}

double owned_value(int rank, int component, std::int64_t i) { return 1e6 * component + 1000.0 * rank + i; }

std::vector<Link> forward_links() {
  std::vector<Link> links;
  for (int q = 0; q < ranks(); ++q) {
    Link l{q, sent(me(), q), {}};
    const auto incoming = sent(q, me()).size();
    for (std::size_t j = 0; j < incoming; ++j) l.recv.push_back(ghost_base(me(), q) + static_cast<std::int64_t>(j));
    links.push_back(l);
  }
  return links;
}

std::vector<double> initial_field() {
  std::vector<double> f(static_cast<std::size_t>(components * stride()), -1.0);
  for (int c = 0; c < components; ++c)
    for (std::int64_t i = 0; i < owned; ++i) f[static_cast<std::size_t>(c * stride() + i)] = owned_value(me(), c, i);
  return f;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Every ghost of `f` (forward_links' receive positions) holds the value its sender owns there.
void expect_ghosts_hold_senders_values(const std::vector<double>& f) {
  for (int q = 0; q < ranks(); ++q) {
    const auto s = sent(q, me());
    for (int c = 0; c < components; ++c)
      for (std::size_t j = 0; j < s.size(); ++j)
        EXPECT_TRUE(f[static_cast<std::size_t>(c * stride() + ghost_base(me(), q) + static_cast<std::int64_t>(j))] ==
                   owned_value(q, c, s[j]));
  }
}

}  // namespace

TEST(HaloMpi, replace_fills_every_ghost_with_the_senders_values) {
  auto f = initial_field();
  exchange_on(f, forward_links(), {components, stride()}, transport, memory, Combine::replace, 2);
  expect_ghosts_hold_senders_values(f);
  for (int c = 0; c < components; ++c)
    for (std::int64_t i = 0; i < owned; ++i)
      EXPECT_TRUE(f[static_cast<std::size_t>(c * stride() + i)] == owned_value(me(), c, i));
  if (transport != Transport::host || memory != Memory::host) {
    auto reference = initial_field();
    exchange_on(reference, forward_links(), {components, stride()}, Transport::host, Memory::host, Combine::replace, 2);
    EXPECT_TRUE(same_bits(f, reference));
  }
}

TEST(HaloMpi, work_between_start_and_finish_does_not_change_what_moves) {
  // Between start() and finish() every rank overwrites all of its owned elements (component 0; on
  // a GPU on the exchange's stream, where a caller's interior work runs while the messages move):
  // the ghosts still receive the values packed at start(), and the overwrite stays.
  auto f = initial_field();
  std::vector<double> later(static_cast<std::size_t>(owned));
  for (std::int64_t i = 0; i < owned; ++i) later[static_cast<std::size_t>(i)] = -owned_value(me(), 0, i);
  exchange_on(f, forward_links(), {components, stride()}, transport, memory, Combine::replace, 1, later);
  expect_ghosts_hold_senders_values(f);
  for (std::int64_t i = 0; i < owned; ++i) EXPECT_TRUE(f[static_cast<std::size_t>(i)] == later[static_cast<std::size_t>(i)]);
}

TEST(HaloMpi, fork_orders_the_pack_after_the_forked_streams_work) {
  // Component 0's owned elements are written only after fork() (on the forked stream for device
  // fields); before that they hold -1. The ghosts must receive the written values, and the owner
  // keep them.
  auto f = initial_field();
  std::vector<double> produced(f.begin(), f.begin() + owned);
  exchange_forked(f, produced, -1.0, forward_links(), {components, stride()}, transport, memory, Combine::replace);
  expect_ghosts_hold_senders_values(f);
  for (std::int64_t i = 0; i < owned; ++i) EXPECT_TRUE(f[static_cast<std::size_t>(i)] == owned_value(me(), 0, i));
}

TEST(HaloMpi, add_sums_contributions_in_ascending_peer_order) {
  // Element 0 (0 everywhere) receives element 1 of every rank, itself included: 1 from rank 0 and
  // h = 2^-53 from the others. Left to right ((0 + 1) + h) + h = 1; adding the two small ones first
  // would give 1 + 2^-52: the order shows in the last bit.
  const double h = std::ldexp(1.0, -53);
  std::vector<double> f{0.0, me() == 0 ? 1.0 : h, 7.0};
  std::vector<Link> links;
  for (int q = 0; q < ranks(); ++q) links.push_back(Link{q, {1}, {0}});
  exchange_on(f, links, {}, transport, memory, Combine::add);
  double expected = 0.0;
  for (int q = 0; q < ranks(); ++q) expected += q == 0 ? 1.0 : h;
  EXPECT_TRUE(f[0] == expected);
  EXPECT_TRUE(f[0] == 1.0);
  EXPECT_TRUE(f[1] == (me() == 0 ? 1.0 : h) && f[2] == 7.0);
  if (ranks() >= 3) { EXPECT_TRUE(1.0 + (h + h) != expected); }  // the values do tell the orders apart
}

TEST(HaloMpi, add_in_rank_order_gives_every_sharer_the_same_sum) {
  // Element 0 is shared by every rank, each holding a partial (1 on rank 1, h = 2^-53 elsewhere),
  // and sent to every other rank, one exchange. Every rank must get p0 + p1 + p2 + ... left to
  // right: ((h + 1) + h) = 1. Combine::add starts from the own partial instead, so on rank 2 it
  // gives (h + h) + 1 = 1 + 2^-52: the order shows in the last bit.
  const double h = std::ldexp(1.0, -53);
  const auto partial = [&](int r) { return r == 1 ? 1.0 : h; };
  std::vector<Link> links;
  for (int q = 0; q < ranks(); ++q)
    if (q != me()) links.push_back(Link{q, {0}, {0}});
  double expected = partial(0);
  for (int q = 1; q < ranks(); ++q) expected += partial(q);
  std::vector<double> f{partial(me()), 5.0};
  exchange_on(f, links, {}, transport, memory, Combine::add_in_rank_order);
  EXPECT_TRUE(f[0] == expected);
  EXPECT_TRUE(f[1] == 5.0);
  std::vector<double> g{partial(me()), 5.0};
  exchange_on(g, links, {}, transport, memory, Combine::add);
  if (me() >= 2) {
    EXPECT_TRUE(g[0] != expected);
  } else {
    EXPECT_TRUE(g[0] == expected);
  }
}

TEST(HaloMpi, a_rank_that_only_sends_or_only_receives) {
  // Half a ping-pong: rank 0 sends three elements to rank 1 and receives nothing, so its receive
  // buffer is empty (the IPC transport must still export a valid allocation for it).
  std::vector<double> f{10.0 + me(), 20.0 + me(), 30.0 + me(), -1.0, -1.0, -1.0};
  std::vector<Link> links;
  if (me() == 0) links.push_back(Link{1, {0, 1, 2}, {}});
  if (me() == 1) links.push_back(Link{0, {}, {3, 4, 5}});
  exchange_on(f, links, {}, transport, memory, Combine::replace, 2);
  if (me() == 1) { EXPECT_TRUE(f[3] == 10.0 && f[4] == 20.0 && f[5] == 30.0); }
  if (me() == 0) { EXPECT_TRUE(f[3] == -1.0 && f[4] == -1.0 && f[5] == -1.0); }
}

TEST(HaloMpi, byte_counts_exclude_the_self_link) {
  Exchange x(forward_links(), {components, stride()}, Transport::host, Memory::host);
  std::size_t out = 0, in = 0;
  for (int q = 0; q < ranks(); ++q) {
    if (q == me()) continue;
    out += sent(me(), q).size();
    in += sent(q, me()).size();
  }
  EXPECT_TRUE(x.bytes_sent() == out * components * sizeof(double));
  EXPECT_TRUE(x.bytes_received() == in * components * sizeof(double));
  EXPECT_TRUE(x.peers() == ranks() - 1);
}

TEST(HaloMpi, a_count_mismatch_is_refused_at_construction) {
  // Every rank expects one element more than each peer sends: every rank refuses.
  auto links = forward_links();
  for (auto& l : links)
    if (l.peer != me()) l.recv.push_back(0);
  EXPECT_THROW(Exchange(links, {components, stride()}, Transport::host, Memory::host), copa::RuntimeError);
}

int main(int argc, char** argv) {
  copa::mpi::Session session(argc, argv);
  return copa::guarded_main([&]() -> int {
    ::testing::InitGoogleTest(&argc, argv);
    ::testing::AddGlobalTestEnvironment(new copa::testing::MpiRanksCheck);
    if (GTEST_FLAG_GET(list_tests)) return RUN_ALL_TESTS();
    if (argc > 2) {
      transport = parse_transport(argv[1]);
      memory = copa::halo::testing::memory_named(argv[2]);
    }
    if (memory == Memory::device) copa::select_device(-1);
    // Not a failure and not a pass: ctest reports a case as skipped when its output holds
    // GoogleTest's "[  SKIPPED ]" marker (gtest_discover_tests' SKIP_REGULAR_EXPRESSION).
    const std::string why = transport_unavailable(transport);
    if (!why.empty()) {
      if (copa::mpi::is_root()) std::cout << "[  SKIPPED ] --transport " << to_string(transport) << ": " << why << "\n";
      return 0;
    }
    return RUN_ALL_TESTS();
  });
}
