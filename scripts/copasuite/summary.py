"""The runner's summary table: one row per app run with its FOM, its kernel time (one repetition of
the timed kernels), its verification verdict and its speedup over the serial and OpenMP backends of
the same app and size."""
import os

from .tables import fmt_num, fmt_ratio, fmt_time

SUMMARY_HEADERS = ["app", "size", "backend", "variant", "FOM", "time", "verdict", "vs serial", "vs openmp",
                   "FOM per joule", "clocks"]


NOT_VERIFIED = "NOT VERIFIED"


def verdict(entry, result):
    if result is not None and entry.get("status") in ("ok", "verification_failed"):
        if result.passed is not None:
            return "PASSED" if result.passed else "FAILED"
        if result.not_verified:
            return NOT_VERIFIED
    return {"ok": "no check"}.get(entry.get("status"), entry.get("status", "?").upper())


def fom_text(result):
    if result is None or not result.fom or result.fom.get("value") is None:
        return "-"
    return f"{fmt_num(result.fom['value'])} {result.fom.get('unit', '')}".strip()


def fom_per_joule_text(result):
    """FOM/J with its unit; "-" without an energy block; "null: <reason>" where none was readable."""
    if result is None:
        return "-"
    v = result.fom_per_joule()
    if v is not None:
        return f"{fmt_num(v)} {(result.fom or {}).get('per_joule_unit', '')}".strip()
    e = result.energy
    return f"null: {e.get('reason')}" if e and e.get("reason") else "-"


def clocks_text(result):
    t = result.throttled if result is not None else None
    return "THROTTLED" if t else ("ok" if t is False else "-")


def summary_rows(entries, results):
    by_file = {os.path.basename(r.path): r for r in results}
    paired = [(e, by_file.get(e.get("json") or "")) for e in entries]

    def reference_time(app, size, backend):
        for e, r in paired:
            if r is not None and e.get("app") == app and e.get("size") == size and e.get("backend") == backend:
                return r.total_time()
        return None

    rows = []
    for e, r in paired:
        t = r.total_time() if r is not None else None
        speedups = []
        for ref in ("serial", "openmp"):
            tref = reference_time(e.get("app"), e.get("size"), ref)
            speedups.append(fmt_ratio(tref / t) if tref and t else "-")
        variant = r.variant if r is not None else (e.get("variant") or "-")
        rows.append([e.get("app", "?"), e.get("size", "-"), e.get("backend", "-"), variant,
                     fom_text(r), fmt_time(t), verdict(e, r)] + speedups + [fom_per_joule_text(r), clocks_text(r)])
    return rows
