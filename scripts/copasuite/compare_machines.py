"""copa-compare's machine-vs-machine mode: two result sets from different machines (or backends),
A (the first argument) and B (the second), compared per application case.

Cases match on app + size + the problem as the user chose it, whatever the backend or variant: the
run parameters that only say how a case runs (EXECUTION_KEYS), the estimates (memory_estimate: its
host and device bytes differ by backend) and the values an app derives from the chosen problem or
reaches by running it (DERIVED_KEYS: degrees of freedom from the mesh and order, the steps taken) are
left out of the match. On each side
the case is represented by its best figure of merit over every backend and variant that ran it
(all copa FOMs are rates: higher is better); a run whose verification FAILED is not a candidate,
its FOM measures a wrong answer.

  FOM ratio of a case  = FOM_B / FOM_A          (> 1: B is faster on that case)
  suite score          = (prod_i ratio_i)^(1/n)  (geometric mean over the n matched cases, so that
                                                  no case dominates by its unit or magnitude)

Each kernel is also shown as a fraction of ITS OWN machine's roofline (the frac_roofline that the
app computed against the ceilings measured on that machine), side by side: a ratio says which
machine is faster, the fractions say how much of each machine the code uses.

The headline is neutral ("A vs B"): neither side is a baseline and nothing is a regression.
Exit status: 0 when at least one case matched, 2 when none did (nothing was compared)."""
import json
import math

from .tables import fmt_num, fmt_ratio, fmt_time

# Run parameters that choose how a case is executed, not what is computed.
EXECUTION_KEYS = {"size", "reps", "host_resident", "block_size", "threads", "device"}


# Per app: run.problem values derived from the chosen parameters that stay in the key (zones and
# order give the dofs; cells give the octs; the mesh's triangles give its mean edge), or outcomes of
# the run (the steps and time reached before tend).
DERIVED_KEYS = {
    "laghos-like": {"h1_dofs", "l2_dofs", "quadrature_points_per_zone"},
    "mom-efie": {"mean_edge", "elements_per_wavelength"},
    "ramses-oct": {"octs", "steps", "t_final"},
}


def chosen_problem(app, problem):
    """run.problem without execution parameters, estimates and derived values: the problem as chosen."""
    problem = problem if isinstance(problem, dict) else {}
    drop = EXECUTION_KEYS | DERIVED_KEYS.get(app, set())
    return {k: v for k, v in problem.items() if k not in drop and not k.endswith("_estimate")}


def problem_signature(result):
    return json.dumps(chosen_problem(result.app, result.doc.get("run", {}).get("problem")), sort_keys=True)


def case_key(result):
    return (result.app, result.size, problem_signature(result))


def fom_value(result):
    fom = result.fom or {}
    v = fom.get("value")
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def best_per_case(result_set):
    """{case key: (best result, number of runs of the case)}: the highest FOM among the runs whose
    verification did not fail; runs without a FOM are never chosen."""
    groups = {}
    for r in result_set.results.values():
        groups.setdefault(case_key(r), []).append(r)
    best = {}
    for key, runs in groups.items():
        usable = [r for r in runs if r.passed is not False and fom_value(r) is not None]
        if usable:
            best[key] = (max(usable, key=fom_value), len(runs))
    return best, groups


class MachineCase:
    def __init__(self, key, a, b, runs_a, runs_b):
        self.key, self.a, self.b = key, a, b
        self.runs_a, self.runs_b = runs_a, runs_b
        self.ratio = fom_value(b) / fom_value(a)
        ka = {k.name: k for k in a.kernels}
        kb = {k.name: k for k in b.kernels}
        self.kernels = [(n, ka[n], kb[n]) for n in ka if n in kb]
        self.only_a = [n for n in ka if n not in kb]
        self.only_b = [n for n in kb if n not in ka]


class MachineComparison:
    def __init__(self, base, cand):
        self.base, self.cand = base, cand
        self.name_a, self.name_b = base.machine_name(), cand.machine_name()
        if self.name_a == self.name_b:
            self.name_a, self.name_b = f"{self.name_a} (A)", f"{self.name_b} (B)"
        best_a, groups_a = best_per_case(base)
        best_b, groups_b = best_per_case(cand)
        shared = [k for k in best_a if k in best_b]
        self.cases = [MachineCase(k, best_a[k][0], best_b[k][0], best_a[k][1], best_b[k][1]) for k in shared]
        self.only_a = [_describe(k, groups_a[k]) for k in groups_a if k not in shared]
        self.only_b = [_describe(k, groups_b[k]) for k in groups_b if k not in shared]
        self.score = (math.exp(sum(math.log(c.ratio) for c in self.cases) / len(self.cases))
                      if self.cases else None)
        # Energy score: the geometric mean of the FOM-per-joule ratios B/A of the same cases, null
        # when a side of a case has no energy (a machine without NVML, ROCm SMI or RAPL).
        self.energy_score, self.energy_missing = None, [
            f"{c.a.app} {c.a.size} ({'A' if c.a.fom_per_joule() is None else 'B'})" for c in self.cases
            if c.a.fom_per_joule() is None or c.b.fom_per_joule() is None]
        if self.cases and not self.energy_missing:
            self.energy_score = math.exp(sum(math.log(c.b.fom_per_joule() / c.a.fom_per_joule()) for c in self.cases)
                                         / len(self.cases))

    def headline(self):
        if self.score is None:
            return f"{self.name_a} vs {self.name_b}: no case ran on both (nothing compared)"
        return (f"{self.name_a} vs {self.name_b}: suite score {self.score:.3g} "
                f"(geometric mean of {len(self.cases)} FOM ratios {self.name_b}/{self.name_a}; "
                f"> 1: {self.name_b} is faster)")


    def energy_line(self):
        if self.energy_score is not None:
            return (f"energy score {self.energy_score:.3g} (geometric mean of {len(self.cases)} FOM-per-joule ratios "
                    f"{self.name_b}/{self.name_a}; > 1: {self.name_b} does more work per joule)")
        if not self.cases:
            return "energy score null (no case compared)"
        return f"energy score null (no energy on the side named of: {', '.join(self.energy_missing)})"


def _describe(key, runs):
    app, size, _ = key
    why = "every run failed verification or has no FOM" if all(
        r.passed is False or fom_value(r) is None for r in runs) else "no matching case on the other side"
    return f"{app} {size} ({', '.join(sorted(r.backend + '/' + r.variant for r in runs))}): {why}"


CASE_HEADERS = ["app", "size", "A: best of", "A FOM", "B: best of", "B FOM", "unit", "ratio B/A", "A FOM per joule",
                "B FOM per joule"]
KERNEL_HEADERS = ["app", "size", "kernel", "A median", "A % of A's roofline", "B median",
                  "B % of B's roofline", "time ratio A/B"]


def _pct(x):
    return "-" if not isinstance(x, (int, float)) else f"{100 * x:.1f}%"


def case_rows(mc):
    rows = []
    for c in mc.cases:
        unit = (c.b.fom or {}).get("unit") or (c.a.fom or {}).get("unit") or ""
        rows.append([c.a.app, c.a.size, _best_of(c.a, c.runs_a), fmt_num(fom_value(c.a)),
                     _best_of(c.b, c.runs_b), fmt_num(fom_value(c.b)), unit,
                     fmt_ratio(c.ratio), _fpj(c.a), _fpj(c.b)])
    return rows


def _best_of(result, runs):
    """backend/variant (of n), THROTTLED when that run's GPU was power or thermally throttled."""
    return f"{result.backend}/{result.variant} (of {runs})" + (" THROTTLED" if result.throttled else "")


def _fpj(result):
    v = result.fom_per_joule()
    return "-" if v is None else f"{fmt_num(v)} {(result.fom or {}).get('per_joule_unit', '')}".strip()


def kernel_rows(mc):
    rows = []
    for c in mc.cases:
        for name, ka, kb in c.kernels:
            ratio = ka.median / kb.median if ka.median > 0 and kb.median > 0 else None
            rows.append([c.a.app, c.a.size, name, fmt_time(ka.median), _pct(ka.frac_roofline),
                         fmt_time(kb.median), _pct(kb.frac_roofline), fmt_ratio(ratio)])
    return rows


def sections(mc):
    """[(title, paragraphs, (headers, rows) or None)], rendered by compare_report like a regression report."""
    head = [f"**{mc.headline()}**", mc.energy_line() + ".",
            f"A: `{mc.base.dir}`; B: `{mc.cand.dir}`.",
            "Cases match on app + size + the problem as chosen (no estimates, no derived sizes), whatever the "
            "backend or variant; each side is "
            "represented by its best FOM over the backends and variants that ran the case (runs that failed "
            "verification are not candidates). The suite score is the geometric mean of the FOM ratios B/A. "
            "Each kernel's fraction of the roofline is against the ceilings of its own machine."]
    out = [("Summary", head, None)]
    if mc.cases:
        out.append(("Figures of merit", [], (CASE_HEADERS, case_rows(mc))))
        out.append(("Kernels, each against its own machine's roofline", [], (KERNEL_HEADERS, kernel_rows(mc))))
    else:
        out.append(("Figures of merit", ["No case (app + size + problem) ran on both machines."], None))
    missing = [f"Only on A ({mc.name_a}): {d}" for d in mc.only_a] + [f"Only on B ({mc.name_b}): {d}" for d in mc.only_b]
    if missing:
        out.append(("Cases on one side only", missing, None))
    return out


def print_summary(mc, md_path, html_path):
    from .tables import text_table
    print(mc.headline())
    print(mc.energy_line())
    print(f"A: {mc.base.dir}\nB: {mc.cand.dir}\n")
    if mc.cases:
        print(text_table(CASE_HEADERS, case_rows(mc)))
        print()
        print(text_table(KERNEL_HEADERS, kernel_rows(mc)))
        print()
    for d in mc.only_a:
        print(f"only on A: {d}")
    for d in mc.only_b:
        print(f"only on B: {d}")
    print(f"{len(mc.cases)} cases compared (best FOM per app case on each side)")
    print(f"reports: {md_path} {html_path}")

