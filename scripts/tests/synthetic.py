"""Synthetic copa-result/1 documents, result sets, a stub app and a stub copa-probe for the suite
tools' tests: the tests plant known changes and check the tools find them."""
import json
import os
import stat
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
sys.path.insert(0, SCRIPTS)

from copasuite.stats import mad, median  # noqa: E402

# Relative deviations of five repetitions: median 0, MAD 1 (times the noise level).
SPREAD = [-2.0, -1.0, 0.0, 1.0, 1.5]

H200_CEILINGS = {"openmp": {"triad_GBs": 200.0, "copy_GBs": 180.0, "fp64_GFLOPs": 1500.0, "fp32_GFLOPs": 3000.0,
                            "threads": 16},
                 "cuda": {"triad_GBs": 4133.0, "copy_GBs": 3965.0, "fp64_GFLOPs": 33400.0, "fp32_GFLOPs": 65300.0,
                          "dgemm_GFLOPs": 64600.0, "launch_us": 3.0}}


def kernel(name, median_s, flops, bytes_moved, noise=0.01, precision="fp64", repetitions=5):
    """Samples median_s (1 + noise s) over SPREAD, or over `repetitions` evenly spaced s in [-2, 2]."""
    spread = SPREAD if repetitions == 5 else [-2 + 4 * i / (repetitions - 1) for i in range(repetitions)]
    return kernel_from_samples(name, [median_s * (1 + noise * s) for s in spread], flops, bytes_moved, precision)


def kernel_from_samples(name, samples, flops=1e6, bytes_moved=1e6, precision="fp64"):
    """A kernel record with these repetition samples (none: a single call of 1 ms, no samples)."""
    if not samples:
        return {"name": name, "calls": 1, "time_s": {"count": 1, "min": 1e-3, "median": 1e-3, "max": 1e-3,
                                                     "mean": 1e-3, "total": 1e-3, "mad": 0.0},
                "samples_s": [], "flops": flops, "bytes_read": bytes_moved, "bytes_written": 0, "precision": precision}
    return {"name": name, "calls": len(samples),
            "time_s": {"count": len(samples), "min": min(samples), "median": median(samples), "max": max(samples),
                       "mean": sum(samples) / len(samples), "total": sum(samples), "mad": mad(samples)},
            "samples_s": samples, "flops": flops, "bytes_read": bytes_moved * 0.75,
            "bytes_written": bytes_moved * 0.25, "precision": precision}


def result(app, backend, kernels, passed=True, fom=1.0e9, variant="default", size="small", gpu=None):
    return {
        "schema": "copa-result/1", "app": app, "version": "0.1.0", "git_sha": "abc123",
        "build": {"compiler": "GNU", "compiler_version": "12.2.0", "flags": "-O3", "build_type": "Release",
                  "cuda_version": None, "hip_version": None, "backends": ["serial", "openmp"],
                  "git_sha": "abc123", "git_dirty": False},
        "machine": {"host": "testhost", "cpu": "Test CPU", "cores": 2, "gpu": gpu,
                    "ceilings": dict(H200_CEILINGS.get(backend, H200_CEILINGS["openmp"]), source="test")},
        "run": {"backend": backend, "variant": variant, "variants_built": {}, "problem": {"size": size},
                "mpi_ranks": 1, "threads": 2, "device": -1, "command_line": f"{app} --backend {backend}",
                "date": "2025-01-01T00:00:00Z"},
        "kernels": kernels,
        "fom": {"name": "throughput", "value": fom, "unit": "items/s"},
        "verification": {"reference": "exact", "metric": "l2_error", "value": 1e-9 if passed else 0.5,
                         "tolerance": 1e-6, "passed": passed},
        "memory": {"device_peak_bytes": 0, "host_peak_bytes": 1 << 20},
    }


def not_verified(doc, reason="no reference for this problem"):
    """The document as an app writes it when it ran without a reference that could fail."""
    doc["verification"] = {"reference": None, "passed": None, "reason": reason}
    return doc


def without_samples(docs):
    """The documents as apps wrote them before they stored repetition samples (statistics only)."""
    for doc in docs.values():
        for k in doc["kernels"]:
            k["samples_s"] = []
    return docs


def standard_set(slowdown=1.0, fom_factor=1.0, fail_verification=False, noise=0.01, repetitions=5):
    """Two apps x two backends; kernel 'update' of mom-efie/openmp has its median multiplied by slowdown."""
    docs = {}
    for app, kernels in (("mom-efie", [("fill", 2e-3, 4e9, 1e8), ("lu", 5e-3, 2e10, 4e8)]),
                         ("mps-density", [("density", 1e-3, 2e8, 4e8), ("update", 4e-4, 1e7, 2e8)])):
        for backend, speed in (("serial", 1.0), ("openmp", 0.25)):
            ks = []
            for name, t, flops, nbytes in kernels:
                factor = slowdown if (app, backend, name) == ("mom-efie", "openmp", "lu") else 1.0
                ks.append(kernel(name, t * speed * factor, flops, nbytes, noise, repetitions=repetitions))
            failed = fail_verification and (app, backend) == ("mps-density", "openmp")
            docs[f"{app}.small.{backend}"] = result(app, backend, ks, passed=not failed, fom=1e9 / speed * fom_factor)
    return docs


def write_set(directory, docs, ceilings=True, run_json=True, git_sha="abc123", machine_name="testbox"):
    os.makedirs(directory, exist_ok=True)
    for key, doc in docs.items():
        with open(os.path.join(directory, key + ".json"), "w") as f:
            json.dump(doc, f)
    if ceilings:
        with open(os.path.join(directory, "ceilings.json"), "w") as f:
            json.dump({"schema": "copa-ceilings/1", "date": "2025-01-01", "machine": {"host": "testhost"},
                       "backends": H200_CEILINGS}, f)
    if run_json:
        runs = [{"app": d["app"], "size": d["run"]["problem"].get("size", "small"), "backend": d["run"]["backend"], "json": k + ".json",
                 "status": "verification_failed" if d["verification"]["passed"] is False else "ok", "reps": 5}
                for k, d in docs.items()]
        with open(os.path.join(directory, "run.json"), "w") as f:
            json.dump({"schema": "copa-run/1", "machine_name": machine_name, "git": {"sha": git_sha, "dirty": False},
                       "runs": runs}, f)
    return directory


STUB_APP = r'''#!/usr/bin/python3
# A stand-in for a copa app: --list, and one run writing a copa-result/1 document.
import json, os, sys, time
sys.path.insert(0, {synthetic_dir!r})
import synthetic
args = sys.argv[1:]
app = {app!r}
if "--list" in args:
    print(app + ": variants (backends built: serial, openmp)")
    print("  variant  backends  default  summary")
    print("  loop     serial    serial   the stub's one loop")
    print("  tiled    openmp,cuda*   openmp   tiles")
    print("           --tuning tile=8|16  (tile edge; default 8)")
    print("  (* not built in this executable)")
    sys.exit(0)
opt = lambda name, default=None: args[args.index(name) + 1] if name in args else default
backend = opt("--backend")
if os.environ.get("COPA_STUB_SLEEP"):
    time.sleep(float(os.environ["COPA_STUB_SLEEP"]))
speed = {{"serial": 1.0, "openmp": 0.5}}[backend]
passed = backend not in {failing!r}
doc = synthetic.result(app, backend, [synthetic.kernel("k1", 1e-3 * speed, 1e6, 1e6),
                                      synthetic.kernel("k2", 3e-3 * speed, 1e7, 1e6)],
                       passed=passed, size=opt("--size"), variant=opt("--variant", "default"))
doc["run"]["reps"] = int(opt("--reps", 5))
doc["run"]["ceilings_file"] = opt("--ceilings")
if backend in {unverified!r}:
    synthetic.not_verified(doc, "stub without a reference")
json.dump(doc, open(opt("--json"), "w"))
print("VERIFICATION " + ("PASSED" if passed else "FAILED"))
sys.exit(0 if passed else 1)
'''

STUB_PROBE = r'''#!/usr/bin/python3
# A stand-in for copa-probe: writes a copa-ceilings/1 file.
import json, sys
sys.path.insert(0, {synthetic_dir!r})
import synthetic
if "--help" in sys.argv:
    print("copa-probe [--json FILE] [--quick]")
    sys.exit(0)
out = sys.argv[sys.argv.index("--json") + 1]
json.dump({{"schema": "copa-ceilings/1", "date": "x", "machine": {{}}, "backends": synthetic.H200_CEILINGS}},
          open(out, "w"))
'''


def _executable(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def fake_build(directory, apps, failing_backends=(), probe=True, unverified_backends=()):
    """A build directory holding stub apps (BUILD/<app>/<app>) and, if asked, a stub copa-probe.
    Backends in unverified_backends write a NOT VERIFIED document and exit 0."""
    for app in apps:
        _executable(os.path.join(directory, app, app),
                    STUB_APP.format(synthetic_dir=HERE, app=app, failing=list(failing_backends),
                                    unverified=list(unverified_backends)))
    if probe:
        _executable(os.path.join(directory, "common", "probe", "copa-probe"), STUB_PROBE.format(synthetic_dir=HERE))
    return directory
