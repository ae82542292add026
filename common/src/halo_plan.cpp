// The pattern of an exchange: validation of the links and where every element goes.
#include <algorithm>
#include <numeric>
#include <string>

#include "copa/errors.hpp"
#include "halo_impl.hpp"

namespace copa::halo::detail {

namespace {

void check_indices(const std::vector<std::int64_t>& indices, const FieldLayout& layout, int peer, const char* what) {
  for (std::int64_t i : indices) {
    if (i < 0 || (layout.components > 1 && i >= layout.component_stride))
      throw RuntimeError(std::string("halo: the link to rank ") + std::to_string(peer) + " has " + what +
                         " element " + std::to_string(i) + " outside a component (stride " +
                         std::to_string(layout.component_stride) + ")");
  }
}

}  // namespace

Plan make_plan(std::vector<Link> links, const FieldLayout& layout, int rank, int ranks) {
  if (layout.components < 1 || layout.component_stride < 0 || (layout.components > 1 && layout.component_stride == 0))
    throw RuntimeError("halo: field layout needs components >= 1 and, for several components, a positive stride");
  std::sort(links.begin(), links.end(), [](const Link& a, const Link& b) { return a.peer < b.peer; });
  for (std::size_t l = 0; l < links.size(); ++l) {
    const Link& link = links[l];
    if (link.peer < 0 || link.peer >= ranks)
      throw RuntimeError("halo: link to rank " + std::to_string(link.peer) + " but there are " +
                         std::to_string(ranks) + " ranks");
    if (l > 0 && links[l - 1].peer == link.peer)
      throw RuntimeError("halo: two links to rank " + std::to_string(link.peer) + " (one link per peer)");
    check_indices(link.send, layout, link.peer, "send");
    check_indices(link.recv, layout, link.peer, "receive");
    if (link.peer == rank && link.send.size() != link.recv.size())
      throw RuntimeError("halo: the self link sends " + std::to_string(link.send.size()) + " elements but receives " +
                         std::to_string(link.recv.size()));
  }

  Plan plan;
  plan.rank = rank;
  plan.ranks = ranks;
  plan.components = layout.components;
  const std::int64_t c = layout.components;
  for (const Link& link : links) {
    Peer p;
    p.rank = link.peer;
    p.send_count = static_cast<std::int64_t>(link.send.size());
    p.recv_count = static_cast<std::int64_t>(link.recv.size());
    if (link.peer == rank) {
      plan.has_self = true;
      plan.self = p;
    } else {
      p.send_offset = plan.remote_send;
      p.recv_offset = plan.remote_recv;
      plan.remote_send += c * p.send_count;
      plan.remote_recv += c * p.recv_count;
      plan.remote.push_back(p);
    }
  }
  plan.send_total = plan.remote_send;
  plan.recv_total = plan.remote_recv;
  if (plan.has_self) {
    plan.self.send_offset = plan.send_total;
    plan.self.recv_offset = plan.recv_total;
    plan.send_total += c * plan.self.send_count;
    plan.recv_total += c * plan.self.recv_count;
  }

  // Gather: message of link l is component 0 of its elements, then component 1, ...
  plan.gather_source.resize(static_cast<std::size_t>(plan.send_total));
  // Received (field index, buffer position, sender) triples, in ascending peer order.
  struct Received {
    std::int64_t field, position;
    int peer;
  };
  std::vector<Received> received;
  received.reserve(static_cast<std::size_t>(plan.recv_total));
  std::size_t next_remote = 0;
  for (const Link& link : links) {
    const Peer& p = link.peer == rank ? plan.self : plan.remote[next_remote++];
    for (std::int64_t comp = 0; comp < c; ++comp) {
      for (std::int64_t i = 0; i < p.send_count; ++i)
        plan.gather_source[static_cast<std::size_t>(p.send_offset + comp * p.send_count + i)] =
            comp * layout.component_stride + link.send[static_cast<std::size_t>(i)];
      for (std::int64_t i = 0; i < p.recv_count; ++i)
        received.push_back({comp * layout.component_stride + link.recv[static_cast<std::size_t>(i)],
                            p.recv_offset + comp * p.recv_count + i, link.peer});
    }
  }
  // A stable sort by field index keeps, for each element, its sources in ascending peer order.
  std::stable_sort(received.begin(), received.end(),
                   [](const Received& a, const Received& b) { return a.field < b.field; });
  plan.begin.push_back(0);
  for (std::size_t k = 0; k < received.size(); ++k) {
    if (k == 0 || received[k].field != received[k - 1].field) {
      if (k > 0) plan.begin.push_back(static_cast<std::int64_t>(k));
      plan.target.push_back(received[k].field);
      plan.below.push_back(0);
    }
    plan.position.push_back(received[k].position);
    if (received[k].peer < rank) ++plan.below.back();
  }
  if (!received.empty()) plan.begin.push_back(static_cast<std::int64_t>(received.size()));
  return plan;
}

}  // namespace copa::halo::detail
