"""What copa-compare compares: the per-kernel and per-case deltas between a baseline and a candidate
result set, their verdicts (compare.py's docstring states the rules) and the rows both the text and
the report renderings show."""
import json

from .stats import mann_whitney_p
from .tables import fmt_pct, fmt_ratio, fmt_time

FASTER, SAME, SLOWER, UNKNOWN = "FASTER", "SAME", "SLOWER", "n/a"
MIN_SAMPLES = 5  # per side, for the U test (5 + 5 samples can reach p = 2/252 = 0.008 < 0.01)


class KernelDelta:
    def __init__(self, name, base, cand, threshold, mad_factor, alpha=0.01):
        self.name, self.base, self.cand = name, base, cand
        self.ratio = self.threshold = self.p = None
        self.method = "-"
        self.verdict = UNKNOWN
        if base.median > 0 and cand.median > 0:
            self.ratio = cand.median / base.median
            if len(base.samples) >= MIN_SAMPLES and len(cand.samples) >= MIN_SAMPLES:
                self.p = mann_whitney_p(base.samples, cand.samples)
                self.method = f"U test p={self.p:.2g}"
                self.threshold = threshold
                significant = self.p < alpha
            else:
                noise = max(base.mad / base.median, cand.mad / cand.median)
                self.method = "median rule"
                self.threshold = max(threshold, mad_factor * noise)
                significant = True
            if significant and self.ratio - 1 > self.threshold:
                self.verdict = SLOWER
            elif significant and 1 / self.ratio - 1 > self.threshold:
                self.verdict = FASTER
            else:
                self.verdict = SAME


class CaseDelta:
    """One case present in both sets."""

    def __init__(self, key, base, cand, threshold, mad_factor, alpha=0.01):
        self.key, self.base, self.cand = key, base, cand
        base_kernels = {k.name: k for k in base.kernels}
        cand_kernels = {k.name: k for k in cand.kernels}
        self.kernels = [KernelDelta(n, base_kernels[n], cand_kernels[n], threshold, mad_factor, alpha)
                        for n in base_kernels if n in cand_kernels]
        self.only_base = [n for n in base_kernels if n not in cand_kernels]
        self.only_cand = [n for n in cand_kernels if n not in base_kernels]

    def fom_change(self):
        b, c = self.base.fom, self.cand.fom
        if not b or not c or not b.get("value") or c.get("value") is None:
            return None
        return c["value"] / b["value"] - 1

    def verification_note(self):
        """NOT VERIFIED (no reference that could fail) is neither a pass nor a failure: never a
        regression, but a candidate that stopped verifying a passing case is said so."""
        b, c = self.base.passed, self.cand.passed
        if c is False:
            return "FAILED" + (" (was passing)" if b else "")
        if b is False and c:
            return "fixed (baseline failed)"
        if self.cand.not_verified:
            return "NOT VERIFIED" + (" (was passing)" if b else "")
        if c is None:
            return "no verification"
        return "passed"


class Comparison:
    def __init__(self, base, cand, threshold=0.05, mad_factor=3.0, alpha=0.01):
        self.base, self.cand = base, cand
        self.threshold, self.mad_factor, self.alpha = threshold, mad_factor, alpha
        shared = [k for k in self.base.results if k in self.cand.results]
        self.cases = [CaseDelta(k, self.base.results[k], self.cand.results[k], threshold, mad_factor, alpha)
                      for k in shared]
        self.only_base = [k for k in self.base.results if k not in self.cand.results]
        self.only_cand = [k for k in self.cand.results if k not in self.base.results]
        self.failed_verifications = [r for r in self.cand.results.values() if r.passed is False]
        self.not_verified = [r for r in self.cand.results.values() if r.not_verified]
        self.failed_runs = [e for e in self.cand.failed_runs if e.get("status") != "verification_failed"]
        self.metadata = metadata_differences(self.base, self.cand)

    def kernels(self):
        return [(c, k) for c in self.cases for k in c.kernels]

    def count(self, verdict):
        return sum(1 for _, k in self.kernels() if k.verdict == verdict)

    def failed(self):
        return bool(self.count(SLOWER) or self.failed_verifications or self.failed_runs)


def flatten(obj, prefix=""):
    """{'a.b.c': value} of nested objects; lists become compact JSON text."""
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(flatten(v, f"{prefix}{k}."))
    elif isinstance(obj, list) and any(isinstance(x, (dict, list)) for x in obj):
        out[prefix[:-1]] = json.dumps(obj, sort_keys=True)
    else:
        out[prefix[:-1]] = ", ".join(map(str, obj)) if isinstance(obj, list) else obj
    return out


def set_metadata(rs):
    """run.json without its per-run lists; the first result's build and machine without a run.json."""
    if rs.run:
        return flatten({k: v for k, v in rs.run.items() if k not in ("runs", "skipped", "schema")})
    first = next(iter(rs.results.values()), None)
    if first is None:
        return {}
    return flatten({"build": first.build, "machine": first.machine})


def metadata_differences(base, cand):
    b, c = set_metadata(base), set_metadata(cand)
    return [(k, b.get(k), c.get(k)) for k in sorted(set(b) | set(c)) if b.get(k) != c.get(k)]


def case_label(result):
    parts = [result.app, result.size, result.backend, result.variant]
    return " ".join(p for p in parts if p)


def kernel_rows(comparison):
    rows = []
    for case, k in comparison.kernels():
        rows.append([case_label(case.base), k.name, fmt_time(k.base.median), fmt_time(k.base.mad),
                     fmt_time(k.cand.median), fmt_time(k.cand.mad), fmt_ratio(k.ratio),
                     "-" if k.threshold is None else f"{k.threshold * 100:.1f}%", k.method, k.verdict])
    return rows


KERNEL_HEADERS = ["case", "kernel", "baseline median", "baseline MAD", "candidate median", "candidate MAD",
                  "ratio", "threshold", "test", "verdict"]


def case_rows(comparison):
    rows = []
    for c in comparison.cases:
        bf, cf = c.base.fom or {}, c.cand.fom or {}
        unit = cf.get("unit") or bf.get("unit") or ""
        variant = c.base.variant if c.base.variant == c.cand.variant else f"{c.base.variant} -> {c.cand.variant}"
        rows.append([case_label(c.cand), variant, f"{_num(bf.get('value'))} {unit}{_throttled(c.base)}".strip(),
                     f"{_num(cf.get('value'))} {unit}{_throttled(c.cand)}".strip(), fmt_pct(c.fom_change()),
                     _verification_value(c.base), _verification_value(c.cand), c.verification_note()])
    return rows


CASE_HEADERS = ["case", "variant", "baseline FOM", "candidate FOM", "FOM change",
                "baseline verification", "candidate verification", "verification"]


def _throttled(result):
    """A FOM measured while the GPU was power or thermally throttled is marked."""
    return " THROTTLED" if result.throttled else ""


def _num(x):
    return "-" if x is None else f"{x:.4g}"


def _verification_value(result):
    v = result.verification
    if not v:
        return "-"
    if result.not_verified:
        return f"NOT VERIFIED: {result.not_verified_reason}"
    return f"{v.get('metric', '')} {_num(v.get('value'))} (tol {_num(v.get('tolerance'))})".strip()
