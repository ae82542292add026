"""copa-sanitize: NVIDIA compute-sanitizer on a small run of every GPU variant of every app (the
sanitize stage of scripts/gpu-check).

For each app found in the build, its GPU backends and variants come from `<app> --list`; each variant
runs once at a tiny problem (TINY_ARGS: seconds under the sanitizer) under
  compute-sanitizer --tool memcheck  --error-exitcode 1   (out-of-bounds, misaligned, device errors)
  compute-sanitizer --tool racecheck --error-exitcode 1   (shared-memory hazards)
Racecheck runs on every GPU variant: every app's GPU source declares __shared__ memory and which
kernels a variant launches is not recorded anywhere, and a variant whose kernels use no shared memory
costs racecheck little at these sizes.

A case fails when the sanitizer reports an error (its ERROR SUMMARY / RACECHECK SUMMARY), when the
app fails at run time (exit 2 or 3, a signal), when the sanitizer prints no summary, or on a timeout.
An app exit 1 with no sanitizer error is a verification verdict at a size chosen for the sanitizer,
not for the reference: recorded as such, not a sanitizer failure (the test stage checks verification).
Writes OUT/<app>/sanitize.json and one log per case (OUT/<app>/<tool>.<backend>.<variant>.log), and
OUT/summary.json. Exit status: 0 clean, 1 a case failed, 2 bad input, 3 no compute-sanitizer."""
import argparse
import json
import os
import re
import shutil
import subprocess
import time

from . import metadata
from .errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK, InputError, ToolRuntimeError
from .outputs import check_output_dir
from .runner import APPS, list_backends
from .tables import text_table

GPU_BACKENDS = ("cuda", "hip")
TOOLS = ("memcheck", "racecheck")
DEFAULT_SANITIZER = "/usr/local/cuda/bin/compute-sanitizer"

# The smallest problems that still launch every kernel of a variant (one or two time steps); each
# verifies on the serial backend in under a second on one core (mom-efie: 480 unknowns, 0.28 dB).
TINY_ARGS = {
    "laghos-like": ["--problem", "1", "--dim", "3", "--nx", "3", "--max-steps", "2", "--tf", "10"],
    "ramses-oct": ["--problem", "sedov", "--n", "32", "--steps", "2"],
    "mom-efie": ["--geometry", "sphere", "--ka", "2", "--elements-per-wavelength", "9"],
    "mps-density": ["--case", "random", "--dim", "3", "--particles", "3000"],
}
COMMON_ARGS = ["--reps", "1", "--warmup", "0"]

ERROR_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) error")
RACECHECK_SUMMARY = re.compile(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)")


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="copa-sanitize",
        description="compute-sanitizer (memcheck, racecheck) on a tiny run of every GPU variant of every app.",
        epilog="Exit status: 0 no sanitizer error, 1 a case failed (sanitizer error, app runtime failure, "
               "timeout), 2 bad input, 3 compute-sanitizer not found.")
    p.add_argument("--build", metavar="DIR", required=True, help="a CUDA (or HIP) build directory with the apps")
    p.add_argument("--out", metavar="DIR", required=True, help="directory for the logs and summary JSON")
    p.add_argument("--apps", default=",".join(APPS), help="comma- or blank-separated apps (default: all)")
    p.add_argument("--tools", default=",".join(TOOLS), help="comma-separated compute-sanitizer tools (default: memcheck,racecheck)")
    p.add_argument("--sanitizer", metavar="PATH",
                   help=f"compute-sanitizer executable (default: on PATH, else {DEFAULT_SANITIZER})")
    p.add_argument("--timeout", type=float, default=120, help="seconds one sanitized run may take (default 120)")
    p.add_argument("--version", action="version", version=metadata.version_text("copa-sanitize"))
    args = p.parse_args(argv)
    args.apps = [a for a in re.split(r"[,\s]+", args.apps) if a]
    for a in args.apps:
        if a not in APPS:
            raise InputError(f"--apps: unknown app '{a}' (known: {', '.join(APPS)})")
    args.tools = [t for t in args.tools.split(",") if t]
    for t in args.tools:
        if t not in TOOLS:
            raise InputError(f"--tools: unknown tool '{t}' (known: {', '.join(TOOLS)})")
    if args.timeout <= 0:
        raise InputError(f"--timeout: must be positive, got {args.timeout}")
    if not os.path.isdir(args.build):
        raise InputError(f"--build: {args.build}: no such directory")
    check_output_dir(args.out, "--out")
    return args


def find_sanitizer(explicit):
    candidates = [explicit] if explicit else [shutil.which("compute-sanitizer"), DEFAULT_SANITIZER]
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    raise ToolRuntimeError(f"compute-sanitizer not found ({explicit or 'PATH, ' + DEFAULT_SANITIZER})")


def sanitizer_errors(text):
    """(errors, warnings) from the sanitizer's summary lines, or None when it printed none."""
    errors = warnings = None
    for m in ERROR_SUMMARY.finditer(text):
        errors = max(errors or 0, int(m.group(1)))
    for m in RACECHECK_SUMMARY.finditer(text):
        errors = max(errors or 0, int(m.group(2)))
        warnings = (warnings or 0) + int(m.group(3))
    return None if errors is None else (errors, warnings or 0)


def run_case(sanitizer, tool, binary, app, backend, variant, log_path, timeout):
    cmd = ([sanitizer, "--tool", tool, "--error-exitcode", "1", binary, "--backend", backend, "--variant", variant]
           + TINY_ARGS[app] + COMMON_ARGS)
    case = {"tool": tool, "backend": backend, "variant": variant, "command_line": cmd,
            "log": os.path.basename(log_path)}
    start = time.monotonic()
    with open(log_path, "w") as log:
        try:
            rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc = None
    case["wall_s"] = round(time.monotonic() - start, 2)
    case["exit_code"] = rc
    with open(log_path, errors="replace") as log:
        found = sanitizer_errors(log.read())
    case["sanitizer_errors"], case["sanitizer_warnings"] = found if found else (None, None)
    case["status"] = case_status(rc, found, timeout)
    return case


def case_status(rc, found, timeout):
    if rc is None:
        return f"timeout ({timeout:g} s)"
    if found is None:
        return "no sanitizer summary" if rc >= 0 else f"killed by signal {-rc}"
    if found[0] > 0:
        return "sanitizer errors"
    if rc == 0:
        return "clean"
    if rc == 1:
        return "clean (app verification failed)"
    return f"app exit {rc}" if rc > 0 else f"killed by signal {-rc}"


def passed(case):
    return case["status"].startswith("clean")


def sanitize_app(args, sanitizer, app):
    binary = os.path.join(args.build, app, app)
    app_out = os.path.join(args.out, app)
    os.makedirs(app_out, exist_ok=True)
    summary = {"app": app, "binary": binary, "tiny_args": TINY_ARGS[app] + COMMON_ARGS, "cases": []}
    if not os.access(binary, os.X_OK):
        summary["skipped"] = f"{binary} not built"
    else:
        built, why = list_backends(binary)
        if built is None:
            summary["error"] = why
        else:
            gpu = {b: v for b, v in built.items() if b in GPU_BACKENDS}
            if not gpu:
                summary["skipped"] = "no GPU backend built"
            for backend, variants in gpu.items():
                for variant in variants:
                    for tool in args.tools:
                        log = os.path.join(app_out, f"{tool}.{backend}.{variant}.log")
                        case = run_case(sanitizer, tool, binary, app, backend, variant, log, args.timeout)
                        summary["cases"].append(case)
                        print(f"  {app} {backend}/{variant} {tool}: {case['status']} ({case['wall_s']:.1f} s)",
                              flush=True)
    summary["passed"] = "error" not in summary and all(passed(c) for c in summary["cases"])
    with open(os.path.join(app_out, "sanitize.json"), "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    return summary


def main(argv):
    args = parse_args(argv)
    sanitizer = find_sanitizer(args.sanitizer)
    os.makedirs(args.out, exist_ok=True)
    print(f"copa-sanitize: {sanitizer}, tools {','.join(args.tools)}, apps {' '.join(args.apps)}", flush=True)
    apps = [sanitize_app(args, sanitizer, app) for app in args.apps]
    rows = [[s["app"], c["backend"], c["variant"], c["tool"], c["status"], f"{c['wall_s']:.1f}"]
            for s in apps for c in s["cases"]]
    rows += [[s["app"], "-", "-", "-", s.get("skipped") or s.get("error"), "-"]
             for s in apps if not s["cases"]]
    table = text_table(["app", "backend", "variant", "tool", "status", "seconds"], rows)
    ok = all(s["passed"] for s in apps)
    checked = sum(len(s["cases"]) for s in apps)
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump({"schema": "copa-sanitize/1", "sanitizer": sanitizer, "tools": args.tools, "passed": ok,
                   "cases": checked, "apps": apps}, f, indent=2)
        f.write("\n")
    print(table)
    if checked == 0:
        print("copa-sanitize: no GPU variant found to check", flush=True)
        return EXIT_BAD_INPUT
    print(f"copa-sanitize: {'clean' if ok else 'FAILED'}: {checked} sanitized runs; logs in {args.out}")
    return EXIT_OK if ok else EXIT_CHECK_FAILED
