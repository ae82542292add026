#include "amr/amr_ranks.hpp"

#include <algorithm>
#include <stdexcept>

#include "amr/amr_plan.hpp"
#include "amr/amr_ranks_body.hpp"
#include "amr/amr_solver.hpp"
#include "amr/amr_subcycle.hpp"
#include "copa/errors.hpp"

namespace ro::amr {

std::vector<std::int64_t> base_work(const Tree& t, bool subcycle) {
  std::vector<std::int64_t> work(t.octs_at(0), 0);
  for (int l = 0; l <= t.max_level; ++l)
    for (std::int64_t o = t.level_begin[l]; o < t.level_begin[l + 1]; ++o)
      work[base_oct_of(t.key[o], l)] += oct_work(t.son.data(), o, l, subcycle);
  return work;
}

AmrPartition partition_work(const std::vector<std::int64_t>& work, int ranks) {
  const std::int64_t nbase = static_cast<std::int64_t>(work.size());
  if (nbase < ranks)
    throw copa::InputError("--levels: " + std::to_string(ranks) + " MPI ranks for " + std::to_string(nbase) +
                           " base octs (each rank needs at least one base oct)");
  std::vector<std::int64_t> prefix(nbase + 1, 0);
  for (std::int64_t i = 0; i < nbase; ++i) prefix[i + 1] = prefix[i] + work[i];
  const std::int64_t total = prefix[nbase];
  AmrPartition p;
  p.cut.assign(ranks + 1, 0);
  p.cut[ranks] = nbase;
  for (int r = 1; r < ranks; ++r) {
    // First i with prefix[i] * ranks >= r * total (exact integer comparison).
    std::int64_t i = std::lower_bound(prefix.begin(), prefix.end(), 0, [&](std::int64_t v, int) {
                       return static_cast<__int128>(v) * ranks < static_cast<__int128>(r) * total;
                     }) - prefix.begin();
    i = std::max(i, p.cut[r - 1] + 1);
    i = std::min(i, nbase - (ranks - r));
    p.cut[r] = i;
  }
  return p;
}

AmrPartition partition_tree(const Tree& t, int ranks, bool subcycle) {
  return partition_work(base_work(t, subcycle), ranks);
}

double work_imbalance(const std::vector<std::int64_t>& work, const AmrPartition& p) {
  std::int64_t total = 0, most = 0;
  for (int r = 0; r < p.ranks(); ++r) {
    std::int64_t w = 0;
    for (std::int64_t b = p.cut[r]; b < p.cut[r + 1]; ++b) w += work[b];
    total += w;
    most = std::max(most, w);
  }
  return total > 0 ? double(most) * p.ranks() / double(total) : 1.0;
}

double work_imbalance(const Tree& t, const AmrPartition& p, bool subcycle) {
  return work_imbalance(base_work(t, subcycle), p);
}

void owned_ranges(const Tree& t, const AmrPartition& p, int r, std::vector<std::int64_t>& begin,
                  std::vector<std::int64_t>& end) {
  begin.assign(t.max_level + 1, 0);
  end.assign(t.max_level + 1, 0);
  const std::int64_t nbase = t.octs_at(0);
  for (int l = 0; l <= t.max_level; ++l) {
    // Level l's keys are its base oct's key followed by 3 bits per level, sorted.
    const auto first = t.key.begin() + t.level_begin[l], last = t.key.begin() + t.level_begin[l + 1];
    const auto bound = [&](std::int64_t b) {
      if (b >= nbase) return t.level_begin[l + 1];
      return static_cast<std::int64_t>(std::lower_bound(first, last, t.key[b] << (3 * l)) - t.key.begin());
    };
    begin[l] = bound(p.cut[r]);
    end[l] = bound(p.cut[r + 1]);
  }
}

std::vector<std::int32_t> ghost_octs(const Tree& t, int l) {
  const PlanView v = plan_view(t);
  const std::vector<long long> table = owned_table(t);
  const long long* owned = table.empty() ? nullptr : table.data();
  std::vector<unsigned char> mark(t.noct(), 0);
  for (std::int64_t o = t.owned_first(l); o < t.owned_last(l); ++o)
    for (int s = 0; s < 27; ++s) ghost_mark_slot(v, owned, static_cast<std::int32_t>(o), s, mark.data());
  std::vector<std::int32_t> g;
  for (std::int64_t o = 0; o < t.noct(); ++o)
    if (mark[o]) g.push_back(static_cast<std::int32_t>(o));
  return g;
}

RankLists rank_lists(const Tree& t, const StepLists& lists) {
  RankLists r;
  r.fluxes.resize(t.max_level + 1);
  for (int l = 0; l <= t.max_level; ++l) r.ghosts.push_back(ghost_octs(t, l));
  const std::vector<long long> table = owned_table(t);
  const long long* owned = table.empty() ? nullptr : table.data();
  for (const RefluxFace& f : lists.faces)
    if (flux_requested(t.level.data(), owned, f)) r.fluxes[t.level[f.cell / 8]].push_back(f);
  return r;
}

RankLists emulate_device_rank_lists(const Tree& t, const StepLists& lists) {
  const std::vector<long long> table = owned_table(t);
  if (table.empty()) throw std::logic_error("ramses-oct AMR: rank_lists without owned ranges (set_owned)");
  const long long n = t.noct();
  const PlanView v = plan_view(t);
  RankLists r;
  r.ghosts.resize(t.max_level + 1);
  for (int l = 0; l <= t.max_level; ++l) {
    // ghost_mark_kernel: thread g of the level's 27 * count.
    std::vector<long long> mark(n + 1, 0);
    const long long first = table[2 * l], count = table[2 * l + 1] - first;
    for (long long g = 0; g < 27 * count; ++g)
      ghost_mark_slot(v, table.data(), static_cast<std::int32_t>(first + g / 27), int(g % 27), mark.data());
    std::vector<long long> scan = mark;
    exclusive_scan(scan);
    // ghost_fill_kernel: the total is scan[n] (mark[n] = 0).
    r.ghosts[l].resize(scan[n]);
    for (long long o = 0; o < n; ++o)
      if (mark[o]) r.ghosts[l][scan[o]] = static_cast<std::int32_t>(o);
  }
  // flux_request_flag_kernel, the scan, flux_request_fill_kernel, then the split by level.
  const long long nf = static_cast<long long>(lists.faces.size());
  std::vector<long long> flag(nf + 1, 0);
  for (long long e = 0; e < nf; ++e) flag[e] = flux_requested(t.level.data(), table.data(), lists.faces[e]);
  std::vector<long long> scan = flag;
  exclusive_scan(scan);
  std::vector<RefluxFace> faces(scan[nf]);
  for (long long e = 0; e < nf; ++e)
    if (flag[e]) faces[scan[e]] = lists.faces[e];
  r.fluxes.resize(t.max_level + 1);
  for (const RefluxFace& f : faces) r.fluxes[level_of_index(t.level_begin, f.cell / 8)].push_back(f);
  return r;
}

}  // namespace ro::amr
