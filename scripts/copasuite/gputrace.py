"""gputrace-summary: where a GPU idles, from the CSV timeline common/gputrace writes (one file per
process). Per device: the span, the busy time (union of kernels, copies and memsets over every
stream), the idle gaps between busy stretches grouped by the activity before and after each gap
(the gap before a kernel that follows a device-to-host copy is the host's round trip), every
kernel's count and time, and the host's waits on the GPU by kind."""
import argparse
import csv
import json
import statistics

from . import metadata
from .errors import EXIT_OK, InputError

GPU_KINDS = ("kernel", "memcpy", "memset")


def label(row):
    if row["kind"] == "kernel":
        name = row["what"]
        return name[5:] if name.startswith("void ") else name
    if row["kind"] == "memcpy":
        return "memcpy " + row["what"].split(" ")[0]
    return row["kind"]


def read_trace(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}")
    need = {"kind", "start_ns", "end_ns", "device", "stream", "what"}
    if not rows or not need <= set(rows[0]):
        raise InputError(f"{path}: not a copa-gputrace file (columns {', '.join(sorted(need))})")
    out = []
    for i, r in enumerate(rows, start=2):
        try:
            out.append({"kind": r["kind"], "start": int(r["start_ns"]), "end": int(r["end_ns"]),
                        "device": int(r["device"]), "stream": int(r["stream"]), "what": r["what"]})
        except (TypeError, ValueError):
            raise InputError(f"{path}:{i}: malformed row")
    return out


def ms(ns):
    return ns * 1e-6


def summarise_device(acts, top):
    """acts: the device's GPU activities, sorted by start."""
    merged = []  # [start, end, first label, label of the activity that ended last]
    for a in acts:
        if merged and a["start"] <= merged[-1][1]:
            if a["end"] > merged[-1][1]:
                merged[-1][1], merged[-1][3] = a["end"], a["label"]
        else:
            merged.append([a["start"], a["end"], a["label"], a["label"]])
    span = merged[-1][1] - merged[0][0]
    busy = sum(e - s for s, e, _, _ in merged)
    gaps = {}
    for prev, nxt in zip(merged, merged[1:]):
        gaps.setdefault((prev[3], nxt[2]), []).append(nxt[0] - prev[1])
    kernels = {}
    for a in acts:
        kernels.setdefault(a["label"], []).append(a["end"] - a["start"])

    def rows(groups, key_name):
        out = []
        for key, values in groups.items():
            out.append({key_name: key, "count": len(values), "total_ms": ms(sum(values)),
                        "median_us": statistics.median(values) * 1e-3})
        return sorted(out, key=lambda r: -r["total_ms"])[:top]

    gap_rows = rows(gaps, "between")
    for r in gap_rows:
        r["between"] = list(r["between"])
    return {"span_ms": ms(span), "busy_ms": ms(busy), "idle_ms": ms(span - busy),
            "idle_fraction": (span - busy) / span if span else 0.0, "gaps": sum(len(v) for v in gaps.values()),
            "gaps_by_neighbours": gap_rows, "activities": rows(kernels, "name")}


def summarise(records, skip_ms, top):
    if not records:
        raise InputError("the trace holds no records")
    t0 = min(r["start"] for r in records) + int(skip_ms * 1e6)
    records = [r for r in records if r["start"] >= t0]
    devices = {}
    for r in records:
        if r["kind"] in GPU_KINDS:
            devices.setdefault(r["device"], []).append(dict(r, label=label(r)))
    waits = {}
    for r in records:
        if r["kind"] == "sync":
            waits.setdefault(r["what"], []).append(r["end"] - r["start"])
    out = {"devices": {}, "host_waits": []}
    for dev, acts in sorted(devices.items()):
        acts.sort(key=lambda a: (a["start"], a["end"]))
        out["devices"][str(dev)] = summarise_device(acts, top)
    for kind, values in sorted(waits.items()):
        out["host_waits"].append({"kind": kind, "count": len(values), "total_ms": ms(sum(values)),
                                  "median_us": statistics.median(values) * 1e-3})
    return out


def print_summary(path, s):
    print(f"== {path}")
    for dev, d in s["devices"].items():
        print(f"device {dev}: span {d['span_ms']:.3f} ms, busy {d['busy_ms']:.3f} ms, idle {d['idle_ms']:.3f} ms "
              f"({100 * d['idle_fraction']:.1f}%) in {d['gaps']} gaps")
        print("  idle gaps by neighbours (before -> after): count, total ms, median us")
        for r in d["gaps_by_neighbours"]:
            print(f"    {r['count']:7d} {r['total_ms']:9.3f} {r['median_us']:8.2f}  {r['between'][0]} -> {r['between'][1]}")
        print("  activities: count, total ms, median us")
        for r in d["activities"]:
            print(f"    {r['count']:7d} {r['total_ms']:9.3f} {r['median_us']:8.2f}  {r['name']}")
    if s["host_waits"]:
        print("host waits on the GPU: count, total ms, median us")
        for r in s["host_waits"]:
            print(f"    {r['count']:7d} {r['total_ms']:9.3f} {r['median_us']:8.2f}  {r['kind']}")


def main(argv):
    p = argparse.ArgumentParser(prog="gputrace-summary",
                                description="Busy time, idle gaps and kernels of copa-gputrace CSV timelines "
                                            "(common/gputrace/gputrace.cpp says how to record one).",
                                epilog="Exit status: 0 done, 2 bad input.")
    p.add_argument("traces", nargs="+", metavar="CSV", help="trace files (one per process)")
    p.add_argument("--skip-ms", type=float, default=0.0,
                   help="leave out what starts in the first SKIP ms of each trace (set-up, warm-up); default 0")
    p.add_argument("--top", type=int, default=15, help="rows per table (default 15)")
    p.add_argument("--json", metavar="FILE", help="also write the summaries as JSON")
    p.add_argument("--version", action="version", version=metadata.version_text("gputrace-summary"))
    args = p.parse_args(argv)
    if args.skip_ms < 0 or args.top < 1:
        raise InputError("--skip-ms must be >= 0 and --top >= 1")
    result = {}
    for path in args.traces:
        result[path] = summarise(read_trace(path), args.skip_ms, args.top)
        print_summary(path, result[path])
    if args.json:
        try:
            with open(args.json, "w") as f:
                json.dump(result, f, indent=1)
        except OSError as e:
            raise InputError(f"cannot write {args.json}: {e.strerror}")
    return EXIT_OK
