"""copa-run's scaling studies (MARBL's seed: strong, weak and throughput), one table per app.

strong      the --size problem on every rank count of --ranks:  efficiency E(p) = T(1) / (p T(p))
weak        the --size problem per rank (the app grows the global problem with the rank count,
            WEAK_OPTIONS below):                                E(p) = T(1) / T(p)
throughput  one rank, every size of --size: FOM against the problem's work (the seed's third study)

T is the time of the whole step a user waits for (kernels, halo exchange, rebucketing, migration: the
step row, else every row's median x calls over the step count), the maximum over ranks (the apps
reduce their timers with MAX); the kernel-only efficiency beside it is the FOM's (FOM_p / (p FOM_1)),
which times the app's FOM rows only. Each row also
gives the compute time (max and mean over ranks: the imbalance), the halo-exchange and allreduce
times per step, the communication fraction, the FOM, and the halo bandwidth against what
copa-commbench measured for that transport and message size (--commbench). Every launch runs with
NCCL_NVLS_ENABLE=0 (DISTRIBUTED.md: never NVLink multicast)."""
import json
import math
import os
import shlex
import subprocess
import time

from .errors import InputError
from .resultset import Result
from .tables import fmt_num, text_table

SCALING_SCHEMA = "copa-scaling/1"
SCALING_FILE = "scaling.json"
STUDIES = ["strong", "weak", "throughput"]
# Rows an app times per step besides its compute kernels (names as the apps write them).
STEP_ROW, HALO_WORD, ALLREDUCE_WORD = "step", "halo", "allreduce"

# The cells per side of ramses-oct's --size presets; weak scaling stacks one preset brick per rank
# along x (the global brick is (p n) x n x n, each rank owning about one n^3 brick), as its bench/dist.sh.
RAMSES_N = {"small": 32, "medium": 128, "large": 512}


def ramses_weak(size, ranks):
    n = RAMSES_N[size]
    return ["--nx", str(n * ranks), "--ny", str(n), "--nz", str(n)]


# App -> options that make the global problem grow with the rank count (weak scaling). An app that
# is not listed has no weak mode yet and is skipped by a weak study with that reason.
WEAK_OPTIONS = {"ramses-oct": ramses_weak}

TABLE_HEADERS = ["app", "transport", "ranks", "time/step", "compute max", "compute mean", "imbalance",
                 "halo", "allreduce", "comm %", "FOM", "step efficiency", "kernel-only (FOM) efficiency",
                 "halo GB/s", "% of link"]


def mpiexec_command(text):
    """The launcher as a list of words; as root, OpenMPI's mpirun needs --allow-run-as-root."""
    words = shlex.split(text)
    if not words:
        raise InputError("--mpiexec: empty launcher")
    if os.geteuid() == 0 and os.path.basename(words[0]) == "mpirun" and "--allow-run-as-root" not in words:
        words.append("--allow-run-as-root")
    return words


def check_options(args):
    if args.scaling not in STUDIES:
        raise InputError(f"--scaling: '{args.scaling}' is not one of {', '.join(STUDIES)}")
    try:
        args.ranks = [int(r) for r in (args.ranks or ["1"])]
    except ValueError:
        raise InputError(f"--ranks: not a comma-separated list of integers: {','.join(args.ranks)}") from None
    if any(r < 1 for r in args.ranks):
        raise InputError("--ranks: every rank count must be at least 1")
    args.ranks = sorted(set(args.ranks))
    if args.scaling in ("strong", "weak") and args.ranks[0] != 1:
        args.ranks.insert(0, 1)  # the efficiency is relative to one rank
    if args.scaling == "throughput" and args.ranks != [1]:
        raise InputError("--ranks: a throughput study runs on one rank (drop --ranks or use --scaling strong|weak)")
    if args.commbench and not os.path.isfile(args.commbench):
        raise InputError(f"--commbench: {args.commbench}: no such file")


def per_step(result, word):
    """Seconds per step of the rows whose name holds `word` (median x calls / steps), or None."""
    rows = [k for k in result.kernels if word in k.name]
    steps = step_calls(result)
    if not rows or not steps:
        return None
    return sum(k.median * k.calls for k in rows) / steps


# Rows that set up or tear down a run, not part of the step a user waits for.
SETUP_ROWS = {"initial_grid", "upload", "download_tree"}


def whole_step_seconds(kernels):
    """Seconds per step of the whole step (kernels, halo exchange, rebucketing, migration): the step
    row where the app times one, else the sum over every row of median x calls over the step count
    (the most calls of a row: the repetitions); set-up rows and end-to-end totals left out. `kernels`:
    the document's kernel records (dicts)."""
    def calls(k):
        return k.get("calls") or 0

    def median(k):
        return (k.get("time_s") or {}).get("median") or 0.0
    step = next((k for k in kernels if k.get("name") == STEP_ROW), None)
    if step is not None and calls(step) and median(step):
        return median(step)
    rows = [k for k in kernels if k.get("name") not in SETUP_ROWS and not k.get("name", "").startswith("end_to_end")]
    steps = max((calls(k) for k in rows), default=0)
    if not steps:
        return None
    total = sum(median(k) * calls(k) for k in rows)
    return total / steps if total > 0 else None


def efficiency(study, ranks, t1, tp):
    """Strong T(1) / (p T(p)); weak T(1) / T(p); None without both times."""
    if not t1 or not tp:
        return None
    return t1 / (ranks * tp) if study == "strong" else t1 / tp


def step_calls(result):
    step = next((k for k in result.kernels if k.name == STEP_ROW), None)
    return step.calls if step is not None else None


def compute_times(result):
    """(max, mean) over ranks of the compute time per step: every row but step, halo and allreduce."""
    steps = step_calls(result)
    rows = [k for k in result.kernels
            if k.name != STEP_ROW and HALO_WORD not in k.name and ALLREDUCE_WORD not in k.name]
    if not rows or not steps:
        return None, None
    tmax = sum(k.median * k.calls for k in rows) / steps
    means = [mean_over_ranks(result, k.name) for k in rows]
    if all(m is not None for m in means):
        return tmax, sum(m * k.calls for m, k in zip(means, rows)) / steps
    return tmax, tmax


def mean_over_ranks(result, name):
    """The per-call time of a kernel averaged over ranks (its time_s is the maximum), if recorded."""
    for k in result.doc.get("kernels", []):
        if k.get("name") == name:
            m = k.get("time_mean_over_ranks")
            m = m.get("median") if isinstance(m, dict) else m
            return m if isinstance(m, (int, float)) and not isinstance(m, bool) else None
    return None


def halo_rate(result):
    """(GB/s per direction, message bytes) of the halo rows, or (None, None). An app's halo row counts
    the bytes a rank receives (bytes_read) and sends (bytes_written) per exchange: the two directions
    of the link, so the rate per direction, the figure copa-commbench gives, uses the larger of the
    two, not their sum."""
    rows = [k for k in result.kernels if HALO_WORD in k.name]
    nbytes = sum(max(k.bytes_read, k.bytes_written) for k in rows)
    seconds = sum(k.median for k in rows)
    if not rows or nbytes <= 0 or seconds <= 0:
        return None, None
    return nbytes / seconds / 1e9, nbytes / max(len(rows), 1)


def link_rate(commbench, transport, message_bytes, memory="device"):
    """copa-commbench's GB/s per direction (copa-comm/1: a list of results) for a transport at the
    measured size nearest to message_bytes (by ratio, so 8 MiB is nearer 10 MB than 2 MiB is), over
    the 26-neighbour halo pattern and the ping-pong together (a quick commbench measures the halo
    only up to 2 MiB per neighbour; at equal distance the halo pattern); device memory first (the
    apps' GPU fields), else host."""
    if not commbench or not message_bytes:
        return None
    results = [r for r in commbench.get("results", []) if r.get("transport") == transport]
    for mem in (memory, "host"):
        points = [r for r in results if r.get("pattern") in ("halo26", "pingpong") and r.get("memory") == mem
                  and r.get("bytes") and r.get("GBs_per_direction") is not None]
        if points:
            best = min(points, key=lambda r: (abs(math.log(r["bytes"] / message_bytes)), r["pattern"] != "halo26"))
            return best["GBs_per_direction"]
    return None


def row_of(result, baseline, study, ranks, commbench, transport):
    t = whole_step_seconds(result.doc.get("kernels", []))
    halo = per_step(result, HALO_WORD)
    allreduce = per_step(result, ALLREDUCE_WORD)
    cmax, cmean = compute_times(result)
    t1 = whole_step_seconds(baseline.doc.get("kernels", [])) if baseline is not None else None
    fom, fom1 = (result.fom or {}).get("value"), (baseline.fom or {}).get("value") if baseline is not None else None
    # Kernel-only: what the FOM times (the app's FOM rows), beside the whole step's.
    kernel_eff = fom / (ranks * fom1) if fom and fom1 else None  # FOMs are global rates: strong and weak
    comm = ((halo or 0) + (allreduce or 0)) / t if t else None
    rate, message = halo_rate(result)
    link = link_rate(commbench, transport, message)
    return {"ranks": ranks, "transport": transport, "time_per_step_s": t, "compute_max_s": cmax,
            "compute_mean_s": cmean, "imbalance": cmax / cmean if cmax and cmean else None,
            "halo_s": halo, "allreduce_s": allreduce, "comm_fraction": comm,
            "fom": (result.fom or {}).get("value"), "fom_unit": (result.fom or {}).get("unit"),
            "efficiency": efficiency(study, ranks, t1, t), "kernel_efficiency": kernel_eff, "halo_GBs": rate, "link_GBs": link,
            "frac_link": rate / link if rate and link else None,
            "decomposition": result.doc["run"].get("decomposition")}


def global_work(result):
    """The work of the whole problem: the sum of the decomposition's local_work, if reported."""
    decomposition = result.doc["run"].get("decomposition") or {}
    work = decomposition.get("local_work")
    if isinstance(work, list) and all(isinstance(w, (int, float)) for w in work):
        return sum(work)
    return None


def table_rows(study_doc):
    rows = []
    for app in study_doc["apps"]:
        for r in app["rows"]:
            pct = lambda x: f"{100 * x:.1f}" if x is not None else "-"  # noqa: E731
            name = f"{app['app']} {r.get('size', app['size'])}"
            rows.append([name, r["transport"], r["ranks"], fmt_num(r["time_per_step_s"]),
                         fmt_num(r["compute_max_s"]), fmt_num(r["compute_mean_s"]), fmt_num(r["imbalance"]),
                         fmt_num(r["halo_s"]), fmt_num(r["allreduce_s"]), pct(r["comm_fraction"]),
                         fmt_num(r["fom"]), pct(r["efficiency"]), pct(r.get("kernel_efficiency")),
                         fmt_num(r["halo_GBs"]), pct(r["frac_link"])])
    return rows


def launch(args, launcher, binary, app, size, backend, ranks, transport, out, ceilings):
    """One run of the study; returns (entry, Result or None)."""
    stem = f"{app}.{size}.{backend}.{transport}.r{ranks}"
    json_path, log_path = os.path.join(out, stem + ".json"), os.path.join(out, stem + ".log")
    cmd = launcher + ["-np", str(ranks), binary, "--backend", backend, "--size", size, "--reps", str(args.reps),
                      "--json", json_path]
    if ranks > 1:
        cmd += ["--transport", transport]
    if args.scaling == "weak":
        cmd += WEAK_OPTIONS[app](size, ranks)
    if args.warmup is not None:
        cmd += ["--warmup", str(args.warmup)]
    if ceilings:
        cmd += ["--ceilings", ceilings]
    entry = {"app": app, "size": size, "backend": backend, "ranks": ranks, "transport": transport,
             "command_line": cmd, "json": os.path.basename(json_path), "log": os.path.basename(log_path)}
    start = time.monotonic()
    env = dict(os.environ, NCCL_NVLS_ENABLE="0")
    with open(log_path, "w") as log:
        try:
            rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                timeout=args.timeout or None).returncode
        except subprocess.TimeoutExpired:
            rc = None
        except OSError as e:
            raise InputError(f"--mpiexec: cannot run {cmd[0]}: {e}") from None
    entry["wall_s"] = round(time.monotonic() - start, 3)
    entry["exit_code"] = rc
    entry["status"] = "ok" if rc == 0 else ("timeout" if rc is None else f"exit {rc}")
    result = None
    if os.path.exists(json_path):
        try:
            result = Result(json_path, stem, entry)
        except InputError as e:
            entry["status"], entry["error"] = "bad_json", str(e)
    if result is not None and result.doc["run"].get("mpi_ranks") != ranks:
        entry["status"] = "not_distributed"
        entry["error"] = (f"{app} ran as {result.doc['run'].get('mpi_ranks')} rank(s) under -np {ranks}: "
                          "it does not split its work over MPI ranks in this build")
        result = None
    return entry, result


def run_study(args, build, out, apps, backend, ceilings):
    """Runs the study, writes scaling.json, scaling.txt and the charts; returns (doc, entries)."""
    launcher = mpiexec_command(args.mpiexec)
    commbench = None
    if args.commbench:
        with open(args.commbench) as f:
            commbench = json.load(f)
    transports = args.transports or ["host"]
    doc = {"schema": SCALING_SCHEMA, "study": args.scaling, "backend": backend, "sizes": args.size,
           "ranks": args.ranks, "transports": transports, "apps": [], "skipped": []}
    entries = []
    for app in apps:
        binary = os.path.join(build, app, app)
        if not os.access(binary, os.X_OK):
            doc["skipped"].append({"app": app, "reason": f"{binary} not built"})
            continue
        if args.scaling == "weak" and app not in WEAK_OPTIONS:
            doc["skipped"].append({"app": app, "reason": "no weak-scaling mode yet"})
            print(f"{app}: skipped, no weak-scaling mode yet", flush=True)
            continue
        if args.scaling == "throughput":
            app_doc = {"app": app, "size": ",".join(args.size), "rows": []}
            for size in args.size:
                entry, result = launch(args, launcher, binary, app, size, backend, 1, transports[0], out, ceilings)
                entries.append(entry)
                print(f"{app} ({size}): {entry['status']} {entry['wall_s']:.1f}s", flush=True)
                if result is not None:
                    app_doc["rows"].append(dict(row_of(result, None, "throughput", 1, None, transports[0]),
                                                size=size, work=global_work(result)))
            if app_doc["rows"]:
                doc["apps"].append(app_doc)
            continue
        for size in args.size:
            app_doc = {"app": app, "size": size, "rows": []}
            baseline = None
            for ranks, transport in [(1, transports[0])] + [(r, t) for t in transports for r in args.ranks if r > 1]:
                entry, result = launch(args, launcher, binary, app, size, backend, ranks, transport, out, ceilings)
                entries.append(entry)
                print(f"{app} ({size}) {transport} x{ranks}: {entry['status']} {entry['wall_s']:.1f}s", flush=True)
                if result is None:
                    if entry["status"] == "not_distributed":
                        doc["skipped"].append({"app": app, "reason": entry["error"]})
                        app_doc["rows"] = []
                        break
                    continue
                if ranks == 1:
                    baseline = result
                    # The one-rank run is the reference of every transport.
                    app_doc["rows"].extend(dict(row_of(result, baseline, args.scaling, 1, commbench, t), transport=t)
                                           for t in transports)
                else:
                    app_doc["rows"].append(row_of(result, baseline, args.scaling, ranks, commbench, transport))
            if app_doc["rows"]:
                doc["apps"].append(app_doc)
    with open(os.path.join(out, SCALING_FILE), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    table = text_table(TABLE_HEADERS, table_rows(doc))
    with open(os.path.join(out, "scaling.txt"), "w") as f:
        f.write(f"{args.scaling} scaling, backend {backend}, sizes {','.join(args.size)}\n{table}\n")
    print()
    print(table)
    if not args.no_charts and doc["apps"]:
        draw_chart(doc, os.path.join(out, f"scaling-{args.scaling}.png"))
    return doc, entries


def draw_chart(doc, path):
    """Efficiency (strong/weak) or FOM (throughput) per app and transport; never fatal."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        for app in doc["apps"]:
            for transport in sorted({r["transport"] for r in app["rows"]}):
                rows = [r for r in app["rows"] if r["transport"] == transport]
                if doc["study"] == "throughput":
                    xs, ys = [r.get("work") for r in rows], [r["fom"] for r in rows]
                else:
                    xs, ys = [r["ranks"] for r in rows], [r["efficiency"] for r in rows]
                if any(v is None for v in xs + ys):
                    continue
                ax.plot(xs, ys, marker="o", label=f"{app['app']} {app['size']} {transport}")
        if doc["study"] == "throughput":
            ax.set_xlabel("global work (cells, dofs, particles, unknowns)")
            ax.set_ylabel("FOM")
            ax.set_xscale("log")
        else:
            ax.set_xlabel("MPI ranks (one per GPU)")
            ax.set_ylabel(f"{doc['study']} scaling efficiency")
            ax.axhline(1.0, color="grey", linewidth=0.8)
            ax.set_ylim(bottom=0)
        ax.set_title(f"copa {doc['study']} scaling ({doc['backend']})")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
        print(f"copa-run: scaling chart {path}")
    except Exception as e:  # noqa: BLE001 -- the chart is an extra; the table stands without it
        print(f"copa-run: warning: scaling chart not drawn: {e}")


def efficiency_regressions(base_doc, cand_doc, threshold):
    """Rows (app, size, transport, ranks) whose efficiency fell by more than `threshold` (absolute)."""
    def index(doc):
        return {(a["app"], a["size"], r["transport"], r["ranks"]): r.get("efficiency")
                for a in doc.get("apps", []) for r in a["rows"]}
    base, cand = index(base_doc), index(cand_doc)
    found = []
    for key, eb in base.items():
        ec = cand.get(key)
        if eb is not None and ec is not None and ec < eb - threshold:
            found.append({"app": key[0], "size": key[1], "transport": key[2], "ranks": key[3],
                          "baseline": eb, "candidate": ec})
    return found
