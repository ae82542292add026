// The regrid's parts (1) and (2) on the host (amr_regrid.hpp) and their device emulation: every
// per-cell and per-oct step is a body of amr_flags_body.hpp, which the device kernels call too.
#include <vector>

#include "amr/amr_flags_body.hpp"
#include "amr/amr_plan.hpp"
#include "amr/amr_regrid.hpp"
#include "copa/errors.hpp"

namespace ro::amr {

CriterionParams criterion_params(const RefineCriterion& rc, double gamma, double dx0) {
  CriterionParams p;
  p.kind = rc.kind == "everywhere" ? criterion_everywhere : rc.kind == "band" ? criterion_band : criterion_gradient;
  p.gamma = gamma;
  p.density = rc.density;
  p.pressure = rc.pressure;
  p.buffer = rc.buffer;
  p.band_lo = rc.band_lo;
  p.band_hi = rc.band_hi;
  p.dx0 = dx0;
  return p;
}

void check_flags_error(unsigned word) {
  if (word & flags_error_missing_neighbour)
    throw copa::RuntimeError("amr: 2:1 balance broken before the regrid (a face neighbour is missing)");
  if (word & flags_error_unbalanced) throw copa::RuntimeError("amr: 2:1 balance broken before the regrid");
}

void criterion_flags(const Tree& t, const std::vector<double>& u, const RefineCriterion& rc, double gamma,
                     const Loops& loops, std::vector<char>& crit) {
  const TreeView view = tree_view(t);
  const CriterionParams p = criterion_params(rc, gamma, t.base->dx);
  crit.resize(t.noct() * 8);
  loops.run(t.noct(), [&](std::int64_t o, int) {
    if (!t.owns(o)) return;  // over ranks the owner's bytes arrive (RankComm::combine_criterion)
    for (int c = 0; c < 8; ++c) crit[o * 8 + c] = criterion_byte(view, u.data(), t.noct() * 8, o * 8 + c, p);
  });
}

std::vector<char> refinement_flags(const Tree& t, const std::vector<char>& crit, int buffer, const Loops& loops) {
  for (char c : crit)
    if (c > 1) check_flags_error(flags_error_missing_neighbour);
  const PlanView v = plan_view(t);
  const int L = t.max_level;
  std::vector<char> flag(t.noct() * 8, 0);
  for (int l = L - 1; l >= 0; --l) {
    const std::int64_t first = t.level_begin[l];
    loops.run(t.octs_at(l), [&](std::int64_t i, int) {
      for (int c = 0; c < 8; ++c) flags_from_sons(t.son.data(), crit.data(), flag.data(), (first + i) * 8 + c, l + 1 == L);
    });
  }
  // The buffer and the balance set flags that their pass does not read: each worker collects
  // the cells it sets, applied after the pass (setting a flag to 1 commutes: any schedule, the
  // same flags).
  std::vector<std::vector<std::int64_t>> add(loops.workers());
  std::vector<char> broken(loops.workers(), 0);
  const auto apply = [&] {
    for (auto& w : add) {
      for (std::int64_t g : w) flag[g] = 1;
      w.clear();
    }
  };
  for (int pass = 0; pass < buffer; ++pass) {
    loops.run(t.level_begin[L], [&](std::int64_t o, int worker) {
      flags_buffer_oct(v, flag.data(), o, [&](long long g) { add[worker].push_back(g); });
    });
    apply();
  }
  for (int l = L - 1; l >= 1; --l) {
    const std::int64_t first = t.level_begin[l];
    loops.run(t.octs_at(l), [&](std::int64_t i, int worker) {
      const auto set = [&](long long g) {
        if (!flag[g]) add[worker].push_back(g);
      };
      if (!flags_balance_oct(v, flag.data(), first + i, set)) broken[worker] = 1;
    });
    for (char b : broken)
      if (b) check_flags_error(flags_error_unbalanced);  // thrown here: not from inside a parallel loop
    apply();
  }
  return flag;
}

unsigned emulate_device_flags(const Tree& t, const std::vector<double>& u, const CriterionParams& p,
                              std::vector<char>& crit, std::vector<char>& flag,
                              const std::function<void(std::vector<char>&)>& combine) {
  const TreeView tv = tree_view(t);
  const PlanView v = plan_view(t);
  const long long ncell = t.noct() * 8;
  const int L = t.max_level;
  unsigned error = 0;
  // criterion_kernel: one thread per cell, the error bit or-ed in.
  crit.resize(ncell);
  for (long long g = 0; g < ncell; ++g) {
    crit[g] = criterion_byte(tv, u.data(), ncell, g, p);
    if (crit[g] == 2) error |= flags_error_missing_neighbour;
  }
  if (combine) combine(crit);
  // flags_sons_kernel, one launch per level, finest first, over a zeroed array.
  flag.assign(ncell, 0);
  for (int l = L - 1; l >= 0; --l)
    for (long long g = t.level_begin[l] * 8; g < t.level_begin[l + 1] * 8; ++g)
      flags_from_sons(t.son.data(), crit.data(), flag.data(), g, l + 1 == L);
  // flags_buffer_kernel, p.buffer launches: one thread per (oct, slot) of every oct below the
  // finest level reads flag and stores 1 into a copy of it, which then becomes flag.
  for (int pass = 0; pass < p.buffer; ++pass) {
    std::vector<char> next = flag;
    for (long long k = 0; k < t.level_begin[L] * 27; ++k)
      flags_buffer_slot(v, flag.data(), k / 27, int(k % 27), [&](long long g) { next[g] = 1; });
    flag.swap(next);
  }
  // flags_balance_kernel, one launch per level l >= 1, finest first, one thread per (oct, slot):
  // plain stores of 1.
  for (int l = L - 1; l >= 1; --l)
    for (long long k = t.level_begin[l] * 27; k < t.level_begin[l + 1] * 27; ++k)
      if (!flags_balance_slot(v, flag.data(), k / 27, int(k % 27), [&](long long g) { flag[g] = 1; }))
        error |= flags_error_unbalanced;
  return error;
}

}  // namespace ro::amr
