"""copa-run: runs every app (or a chosen subset) at a size preset on every backend the build has,
with verification on and N repetitions, into a result directory (--out; default
$COPA_RESULTS/<machine-name>/<date-time>/ when COPA_RESULTS is set, else
./copa-results/<machine-name>/<date-time>/ under the current directory, never inside the source
checkout unless --out says so): one copa-result/1
document per app, size and backend (<app>.<size>.<backend>.json, with its log), copa-probe's
ceilings.json, run.json (the metadata, captured once, and every command line with its exit status),
summary.txt and the roofline charts. Prints one summary table; exits 1 when a verification or an app
failed, 2 on bad options or when nothing could run, 3 when the build failed."""
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import time

from . import metadata, scaling
from .errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK, InputError, ToolRuntimeError
from .outputs import check_output_dir
from .resultset import CEILINGS_FILE, RUN_FILE, RUN_SCHEMA, Result, load_ceilings
from .summary import NOT_VERIFIED, summary_rows, SUMMARY_HEADERS
from .tables import text_table

APPS = ["laghos-like", "ramses-oct", "mom-efie", "mps-density"]
BACKENDS = ["serial", "openmp", "cuda", "hip"]
SIZES = ["small", "medium", "large"]
# Default seconds one app run may take per size (--time-limit overrides): small is minutes on a laptop
# CPU at worst (mom-efie serial), large fills a big GPU for seconds per repetition.
TIME_LIMITS = {"small": 600, "medium": 1800, "large": 3600}
STATUS_BY_EXIT = {0: "ok", 1: "verification_failed", 2: "bad_input", 3: "runtime_error"}
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="copa-run",
        description="Run the copa suite and summarise it (./copa-results/<machine>/<date-time>/, or under "
                    "$COPA_RESULTS).",
        epilog="Without --build it configures and builds the CMake preset (default cpu) first. "
               "Exit status: 0 all verified, 1 a verification or an app failed, 2 bad input, 3 build failed.")
    p.add_argument("--build", metavar="DIR", help="an existing build directory (skips configuring and building)")
    p.add_argument("--preset", default="cpu", help="CMake preset to configure and build without --build (default: cpu)")
    p.add_argument("--apps", type=_csv, help=f"comma-separated subset of {','.join(APPS)} (default: all)")
    p.add_argument("--size", type=_csv, default=["small"],
                   help="small|medium|large, or a comma-separated list of them (default: small)")
    p.add_argument("--backends", type=_csv, help="comma-separated backends (default: every backend each app was built with)")
    p.add_argument("--all-variants", action="store_true", help="run every variant --list names, not only each backend's default")
    p.add_argument("--reps", type=int, default=5, help="timed repetitions per kernel (default: 5)")
    p.add_argument("--warmup", type=int, help="warm-up repetitions (default: the app's)")
    p.add_argument("--threads", type=int, help="OpenMP threads (default: OpenMP's)")
    p.add_argument("--version", action="version", version=metadata.version_text("copa-run"))
    p.add_argument("--out", metavar="DIR", help="result directory (default: $COPA_RESULTS/<machine-name>/<date-time>/ "
                                                 "if COPA_RESULTS is set, else ./copa-results/<machine-name>/<date-time>/)")
    p.add_argument("--machine", help="machine name for the default --out (default: GPU model, else host name)")
    p.add_argument("--ceilings", metavar="FILE", help="copa-ceilings/1 file to use instead of running copa-probe")
    p.add_argument("--quick-probe", action="store_true",
                   help="run copa-probe in its quick smoke-test mode (seconds, but not a measurement)")
    p.add_argument("--no-probe", action="store_true", help="neither run copa-probe nor pass ceilings (apps use built-in ones)")
    p.add_argument("--no-charts", action="store_true", help="do not draw the roofline charts")
    p.add_argument("--time-limit", "--timeout", dest="timeout", type=float, metavar="SECONDS",
                   help="seconds one app run may take; 0: no limit (default per size: " +
                        ", ".join(f"{k} {v} s" for k, v in TIME_LIMITS.items()) + ")")
    study = p.add_argument_group("scaling studies (MARBL's strong, weak and throughput; see scripts/README.md)")
    study.add_argument("--scaling", choices=scaling.STUDIES,
                       help="run a scaling study instead of the suite table (strong when --ranks is given)")
    study.add_argument("--ranks", type=_csv, help="comma-separated MPI rank counts, one GPU per rank (1 is always added)")
    study.add_argument("--transports", type=_csv,
                       help="comma-separated halo transports: host,cuda-aware,nccl,ipc (default: host)")
    study.add_argument("--mpiexec", default="mpirun", help="MPI launcher, -np N is appended (default: mpirun)")
    study.add_argument("--commbench", metavar="FILE", help="copa-comm/1 file of copa-commbench: halo GB/s as %% of the link")
    args = p.parse_args(argv)
    if args.apps is not None and not args.apps:
        raise InputError(f"--apps: empty list (name one or more of {', '.join(APPS)}, or leave --apps out for all)")
    for name in args.apps or []:
        if name not in APPS:
            raise InputError(f"--apps: unknown app '{name}' (known: {', '.join(APPS)})")
    for s in args.size:
        if s not in SIZES:
            raise InputError(f"--size: '{s}' is not one of {', '.join(SIZES)}")
    for b in args.backends or []:
        if b not in BACKENDS:
            raise InputError(f"--backends: unknown backend '{b}' (known: {', '.join(BACKENDS)})")
    if args.timeout is not None and args.timeout < 0:
        raise InputError(f"--time-limit: must not be negative, got {args.timeout:g}")
    if args.reps < 1:
        raise InputError(f"--reps: must be at least 1, got {args.reps}")
    if args.ceilings and not os.path.isfile(args.ceilings):
        raise InputError(f"--ceilings: {args.ceilings}: no such file")
    if args.ranks and not args.scaling:
        args.scaling = "strong"
    if args.scaling:
        scaling.check_options(args)
        if args.backends and len(args.backends) != 1:
            raise InputError("--backends: a scaling study runs one backend; name one")
    return args


def _csv(text):
    return [t.strip() for t in text.split(",") if t.strip()]


def default_results_root():
    """$COPA_RESULTS, else ./copa-results under the current directory: a run never writes into the
    source checkout unless --out names a place there (the committed baselines stay as they are)."""
    return os.environ.get("COPA_RESULTS") or os.path.join(os.getcwd(), "copa-results")


def build_preset(preset):
    """cmake --preset P && cmake --build --preset P, from the repository root; returns build/<P>."""
    for cmd in (["cmake", "--preset", preset], ["cmake", "--build", "--preset", preset]):
        print("copa-run: " + " ".join(cmd), flush=True)
        try:
            rc = subprocess.run(cmd, cwd=REPO).returncode
        except OSError as e:
            raise ToolRuntimeError(f"cannot run {cmd[0]}: {e}") from None
        if rc != 0:
            raise ToolRuntimeError(f"'{' '.join(cmd)}' failed with exit status {rc}")
    return os.path.join(REPO, "build", preset)


def parse_list(text):
    """{backend: [variants]} from an app's --list, the variant table copa::VariantRegistry::print writes:
    a title '<app>: variants (backends built: a, b)', a header row, then one row per variant whose
    first column is its name and second its comma-separated backends ('*' marks one not built), and
    under a row its '--tuning' lines. Only the first table is read: a further one (ramses-oct's AMR
    variants) needs problem options of its own."""
    found = None
    for line in text.splitlines():
        if ": variants (backends built:" in line:
            if found is not None:
                break
            built = line.split("backends built:", 1)[1].strip().rstrip(")")
            found = {b.strip().lower(): [] for b in built.split(",") if b.strip().lower() in BACKENDS}
            continue
        words = line.split()
        if found is None or len(words) < 2 or words[0] == "variant" or words[0].startswith(("--", "(")):
            continue
        for b in words[1].split(","):
            if b.lower() in found:
                found[b.lower()].append(words[0])
    return found or {}


def list_backends(binary):
    try:
        p = subprocess.run([binary, "--list"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"'{binary} --list' failed: {e}"
    if p.returncode != 0:
        return None, f"'{binary} --list' exited with {p.returncode}: {(p.stderr or p.stdout).strip()[:200]}"
    built = parse_list(p.stdout)
    if not built:
        return None, f"'{binary} --list' named no backend"
    return built, None


def get_ceilings(args, build, out):
    """Returns (path or None, description for run.json)."""
    target = os.path.join(out, CEILINGS_FILE)
    if args.no_probe:
        return None, {"source": "none (--no-probe)"}
    if args.ceilings:
        load_ceilings(args.ceilings)
        shutil.copyfile(args.ceilings, target)
        return target, {"source": os.path.abspath(args.ceilings)}
    probe = next((p for p in (os.path.join(build, "common", "probe", "copa-probe"),
                              os.path.join(build, "common", "copa-probe")) if os.access(p, os.X_OK)), None)
    if probe is None:
        print(f"copa-run: warning: copa-probe not built in {build}; apps use their built-in ceilings", flush=True)
        return None, {"source": "none (copa-probe not built)"}
    cmd = probe_command(probe, target, args.quick_probe)
    print("copa-run: measuring ceilings: " + " ".join(cmd), flush=True)
    log_path = os.path.join(out, "copa-probe.log")
    with open(log_path, "w") as log:
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
    if rc != 0 or not os.path.exists(target):
        print(f"copa-run: warning: copa-probe failed (exit {rc}, see {log_path}); apps use built-in ceilings", flush=True)
        return None, {"source": f"none (copa-probe exit {rc})", "command_line": cmd}
    load_ceilings(target)
    return target, {"source": "copa-probe", "command_line": cmd}


def probe_command(probe, target, quick):
    """copa-probe's options as its --help spells them: the output option, and its quick (smoke-test)
    mode when asked for and offered."""
    try:
        help_text = subprocess.run([probe, "--help"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        help_text = ""
    out_opt = next((o for o in ("--json", "--out", "--output", "-o") if o + " " in help_text or o + "," in help_text),
                   "--json")
    cmd = [probe, out_opt, target]
    if quick and "--quick" in help_text:
        cmd.append("--quick")
    return cmd


def run_one(args, binary, app, size, backend, variant, ceilings, out):
    stem = f"{app}.{size}.{backend}" + (f".{variant}" if variant else "")
    json_path = os.path.join(out, stem + ".json")
    log_path = os.path.join(out, stem + ".log")
    cmd = [binary, "--backend", backend, "--size", size, "--reps", str(args.reps), "--json", json_path]
    if variant:
        cmd += ["--variant", variant]
    if args.warmup is not None:
        cmd += ["--warmup", str(args.warmup)]
    if args.threads is not None:
        cmd += ["--threads", str(args.threads)]
    if ceilings:
        cmd += ["--ceilings", ceilings]
    entry = {"app": app, "size": size, "backend": backend, "variant": variant, "reps": args.reps,
             "command_line": cmd, "json": os.path.basename(json_path), "log": os.path.basename(log_path)}
    limit = TIME_LIMITS[size] if args.timeout is None else args.timeout
    start = time.monotonic()
    with open(log_path, "w") as log:
        try:
            rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, timeout=limit or None).returncode
        except subprocess.TimeoutExpired:
            rc = None
    entry["wall_s"] = round(time.monotonic() - start, 3)
    entry["exit_code"] = rc
    if rc is None:
        entry["status"] = f"timeout ({limit:g} s, --time-limit)"
    elif rc < 0:
        entry["status"] = f"killed by signal {-rc}"
    else:
        entry["status"] = STATUS_BY_EXIT.get(rc, f"exit {rc}")
    result = None
    if os.path.exists(json_path):
        try:
            result = Result(json_path, stem, entry)
        except InputError as e:
            entry["status"] = "bad_json"
            entry["error"] = str(e)
        if result is not None and result.passed is False and entry["status"] == "ok":
            entry["status"] = "verification_failed"
        if result is not None and result.not_verified:
            entry["not_verified"] = result.not_verified_reason
    else:
        entry["json"] = None
        if entry["status"] == "ok":
            entry["status"] = "no_json"
    return entry, result


def first_reported(results, section):
    for r in results:
        if isinstance(r.doc.get(section), dict):
            return r.doc[section]
    return None


def write_run_json(out, args, argv, build, machine, machine_name, ceil_desc, entries, skipped, results, started):
    build_reported = first_reported(results, "build")
    machine_reported = first_reported(results, "machine")
    mpi = sorted({r.doc["run"].get("mpi_ranks") for r in results if r.doc["run"].get("mpi_ranks") is not None})
    doc = {
        "schema": RUN_SCHEMA,
        "date": started.isoformat(timespec="seconds"),
        "machine_name": machine_name,
        "command_line": [os.path.join("scripts", "copa-run")] + list(argv),
        "settings": {"apps": args.apps or APPS, "sizes": args.size, "backends": args.backends or "built",
                     "reps": args.reps, "warmup": args.warmup, "threads": args.threads,
                     "all_variants": args.all_variants},
        "git": metadata.git_info(REPO),
        "build": {"dir": os.path.abspath(build), "cmake_cache": metadata.cmake_cache(build),
                  "toolkits": metadata.toolkit_versions(), "reported": build_reported},
        "machine": dict(metadata.machine_info(), reported=machine_reported),
        "mpi_ranks": mpi,
        "ceilings": ceil_desc,
        "runs": entries,
        "skipped": skipped,
    }
    with open(os.path.join(out, RUN_FILE), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    return doc


def main(argv):
    args = parse_args(argv)
    started = datetime.datetime.now().astimezone()
    if args.build and not os.path.isdir(args.build):
        raise InputError(f"--build: {args.build}: no such directory")
    machine = metadata.machine_info()
    machine_name = args.machine or metadata.default_machine_name(machine)
    out = args.out or os.path.join(default_results_root(), machine_name, started.strftime("%Y%m%d-%H%M%S"))
    # The result directory is checked before the build and the runs, which may take long.
    if os.path.exists(os.path.join(out, RUN_FILE)):
        raise InputError(f"--out: {out} already holds a run ({RUN_FILE}); choose a new directory")
    check_output_dir(out, "--out")
    build = args.build if args.build else build_preset(args.preset)
    if not os.path.isdir(build):
        raise InputError(f"--build: {build}: no such directory")
    os.makedirs(out, exist_ok=True)
    ceilings, ceil_desc = get_ceilings(args, build, out)

    apps = args.apps or APPS
    if args.scaling:
        return run_scaling(args, build, out, apps, ceilings)
    entries, skipped, results = [], [], []
    print("copa-run: time limit per app run: " + ", ".join(f"{s} {_limit_text(args, s)}" for s in args.size) +
          " (--time-limit)", flush=True)
    for i, app in enumerate(apps, 1):
        binary = os.path.join(build, app, app)
        prefix = f"[{i}/{len(apps)}] {app}"
        if not os.access(binary, os.X_OK):
            print(f"{prefix}: skipped, {binary} not built", flush=True)
            skipped.append({"app": app, "reason": f"{binary} not built"})
            continue
        built, why = list_backends(binary)
        if built is None:
            print(f"{prefix}: FAILED, {why}", flush=True)
            entries.append({"app": app, "status": "list_failed", "error": why, "json": None})
            continue
        wanted = [b for b in (args.backends or BACKENDS) if b in built]
        for b in args.backends or []:
            if b not in built:
                skipped.append({"app": app, "backend": b, "reason": f"{b} not built into {app}"})
        for size in args.size:
            print(f"{prefix} ({size}):", end="", flush=True)
            for backend in wanted:
                variants = [None] + (built[backend] if args.all_variants else [])
                for variant in variants:
                    entry, result = run_one(args, binary, app, size, backend, variant, ceilings, out)
                    entries.append(entry)
                    if result is not None:
                        results.append(result)
                    label = backend + (f"/{variant}" if variant else "")
                    verdict = entry["status"].upper()
                    if entry["status"] == "ok":
                        verdict = NOT_VERIFIED if "not_verified" in entry else "ok"
                    print(f" {label} {verdict} {entry['wall_s']:.1f}s", end="", flush=True)
            print(flush=True)

    write_run_json(out, args, argv, build, machine, machine_name, ceil_desc, entries, skipped, results, started)
    if not entries:
        print(f"copa-run: nothing ran: no app binary found in {build}", file=sys.stderr)
        return EXIT_BAD_INPUT
    table = text_table(SUMMARY_HEADERS, summary_rows(entries, results))
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(table + "\n")
    print()
    print(table)
    if not args.no_charts and results:
        draw_charts(out)
    write_dashboard(out)
    failed = [e for e in entries if e["status"] != "ok"]
    # NOT VERIFIED (no reference that could fail) is neither a pass nor a failure: counted apart, and
    # it does not fail the runner.
    unverified = [e for e in entries if e["status"] == "ok" and "not_verified" in e]
    print(f"\ncopa-run: {len(entries) - len(failed) - len(unverified)} of {len(entries)} runs verified, "
          f"{len(unverified)} {NOT_VERIFIED}, {len(failed)} failed; results in {out}")
    for e in unverified:
        print(f"copa-run: {e['app']} {e.get('backend', '')}: {NOT_VERIFIED}: {e['not_verified']}")
    for e in failed:
        where = f" (see {os.path.join(out, e['log'])})" if e.get("log") else ""
        print(f"copa-run: {e['app']} {e.get('backend', '')}: {e['status']}{where}")
    return EXIT_CHECK_FAILED if failed else EXIT_OK


def _limit_text(args, size):
    limit = TIME_LIMITS[size] if args.timeout is None else args.timeout
    return f"{limit:g} s" if limit else "none"


def study_backend(args, build, apps):
    """--backends' one backend, else the fastest kind the first built app offers (GPU before CPU)."""
    if args.backends:
        return args.backends[0]
    for app in apps:
        binary = os.path.join(build, app, app)
        if os.access(binary, os.X_OK):
            built, _ = list_backends(binary)
            for b in ("cuda", "hip", "openmp", "serial"):
                if built and b in built:
                    return b
    raise InputError(f"--build: no app binary found in {build}")


def run_scaling(args, build, out, apps, ceilings):
    if os.path.exists(os.path.join(out, scaling.SCALING_FILE)):
        raise InputError(f"--out: {out} already holds a study ({scaling.SCALING_FILE}); choose a new directory")
    backend = study_backend(args, build, apps)
    doc, entries = scaling.run_study(args, build, out, apps, backend, ceilings)
    failed = [e for e in entries if e["status"] not in ("ok", "not_distributed")]
    print(f"\ncopa-run: {args.scaling} scaling: {len(entries) - len(failed)} of {len(entries)} runs ok; "
          f"results in {out}")
    for s in doc["skipped"]:
        print(f"copa-run: {s['app']}: skipped, {s['reason']}")
    for e in failed:
        print(f"copa-run: {e['app']} x{e['ranks']} {e['transport']}: {e['status']} (see {os.path.join(out, e['log'])})")
    if not doc["apps"]:
        print("copa-run: no app produced a scaling table", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_CHECK_FAILED if failed else EXIT_OK


def write_dashboard(out):
    """The run's HTML page (copa-dashboard); a failure here is reported, never fatal."""
    try:
        from . import dashboard
        print(f"copa-run: dashboard {dashboard.write(out, draw=False)}")
    except Exception as e:  # noqa: BLE001 -- the page is an extra; the run's verdict stands without it
        print(f"copa-run: warning: dashboard not written: {e}")


def draw_charts(out):
    """The roofline charts of this run; a failure here is reported, never fatal."""
    try:
        from . import roofline
        files = roofline.render_sets([out], os.path.join(out, "roofline"))
        print(f"copa-run: {len(files)} roofline chart files in {os.path.join(out, 'roofline')}")
    except Exception as e:  # noqa: BLE001 -- the charts are an extra; the run's verdict stands without them
        print(f"copa-run: warning: roofline charts not drawn: {e}")
