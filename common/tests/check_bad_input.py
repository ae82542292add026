#!/usr/bin/env python3
"""Table-driven bad-input check of one copa executable, covered by construction.

Asks EXE for its options (--list-options-json) and fails when a numeric option (INT, UINT, FLOAT)
has no declared range (copa::cli::count, range, positive, ...). Then runs every numeric option with
each of -1, 0, nan, inf, -inf and a value just past each finite end of its range that the range
refuses, and requires exit 2 with a message on stderr naming the option. A new option is covered
without editing this test.

With --readme FILE (repeatable), also reads the ranges the documents state, written
`--option` [lo, hi] (or `--option` integer [lo, hi], any of ( ) [ ] for open and closed ends, inf
for no bound), and fails when a stated range differs from the declared one, names no option, or
when a declared range is stated in none of the files.

Exit 0 all held, 1 a check failed, 2 bad arguments.
"""
import argparse
import json
import math
import re
import subprocess
import sys

NUMERIC = {"INT", "UINT", "FLOAT"}
RANGE_TEXT = re.compile(r"`(--[A-Za-z0-9-]+)`\s+(integer\s+)?([\[(])\s*(-?inf|[-+0-9.eE]+),\s*(-?inf|[-+0-9.eE]+)\s*([\])])")


def bound(text):
    return float(text)


def contains(r, v):
    lo = -math.inf if r["lo"] is None else r["lo"]
    hi = math.inf if r["hi"] is None else r["hi"]
    return (v > lo if r["lo_open"] else v >= lo) and (v < hi if r["hi_open"] else v <= hi)


def fmt(v):
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e15 else repr(v)


def bad_values(r):
    vals = ["nan", "inf", "-inf"]
    for v in (-1.0, 0.0):
        if not contains(r, v):
            vals.append(fmt(v))
    for end, sign in (("hi", 1), ("lo", -1)):
        x = r[end]
        if x is None:
            continue
        step = 1.0 if r["integer"] else max(1.0, abs(x))
        past = x + sign * step
        if not contains(r, past) and fmt(past) not in vals:
            vals.append(fmt(past))
    return vals


def stated_ranges(paths):
    stated = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for m in RANGE_TEXT.finditer(line):
                    name, integer, lb, lo, hi, rb = m.groups()
                    r = {"lo": None if lo == "-inf" else bound(lo), "hi": None if hi == "inf" else bound(hi),
                         "lo_open": lb == "(", "hi_open": rb == ")", "integer": bool(integer)}
                    stated.setdefault(name, []).append((f"{path}:{number}", r))
    return stated


def same_range(declared, stated):
    def norm(r):
        lo, hi = r["lo"], r["hi"]
        lo_open = r["lo_open"] or lo is None or (lo is not None and math.isinf(lo))
        hi_open = r["hi_open"] or hi is None or (hi is not None and math.isinf(hi))
        lo = None if lo is None or math.isinf(lo) else lo
        hi = None if hi is None or math.isinf(hi) else hi
        return (lo, hi, lo_open, hi_open, bool(r["integer"]))
    return norm(declared) == norm(stated)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("exe")
    ap.add_argument("--readme", action="append", default=[], help="a document whose stated ranges are checked")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per run (bad input must exit at once)")
    a = ap.parse_args()

    listing = subprocess.run([a.exe, "--list-options-json"], capture_output=True, text=True, timeout=a.timeout)
    if listing.returncode != 0:
        print(f"{a.exe} --list-options-json exited {listing.returncode}: {listing.stderr.strip()}")
        return 1
    options = json.loads(listing.stdout)
    failures, runs = [], 0
    numeric = [o for o in options if o["type"] in NUMERIC and o["items_max"] > 0]
    for o in numeric:
        r = o.get("range")
        if r is None:
            failures.append(f"{o['name']}: a numeric option without a declared range (copa::cli::count/range/...)")
            continue
        for v in bad_values(r):
            if o["items_min"] > 1 and v == "-inf":
                continue  # separate words starting with '-' read as options; nan and inf cover it
            args = [f"{o['name']}={v}"] if o["items_min"] <= 1 else [o["name"]] + [v] * o["items_min"]
            runs += 1
            try:
                p = subprocess.run([a.exe] + args, capture_output=True, text=True, timeout=a.timeout)
            except subprocess.TimeoutExpired:
                failures.append(f"{' '.join(args)}: still running after {a.timeout} s (bad input must exit 2 at once)")
                continue
            if p.returncode != 2 or o["name"] not in p.stderr:
                failures.append(f"{' '.join(args)}: exit {p.returncode}, stderr {p.stderr.strip()[:200]!r} "
                                f"(want exit 2 naming {o['name']})")
    if a.readme:
        stated = stated_ranges(a.readme)
        names = {o["name"]: o for o in options}
        for name, places in stated.items():
            for where, r in places:
                declared = names.get(name, {}).get("range")
                if declared is None:
                    failures.append(f"{where}: states a range for {name}, which has none declared (or is no option)")
                elif not same_range(declared, r):
                    failures.append(f"{where}: the range stated for {name} differs from the declared one {declared}")
        for o in numeric:
            if o.get("range") is not None and o["name"] not in stated:
                failures.append(f"{o['name']}: its range is stated in none of {', '.join(a.readme)}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(numeric)} numeric options, {runs} bad-input runs, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
