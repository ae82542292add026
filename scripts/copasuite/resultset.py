"""Reading what the apps and the runner write: copa-result/1 documents (one per app, backend and
case), the copa-ceilings/1 file of copa-probe, and the runner's run.json (copa-run/1).

A result set is a directory holding result documents (*.json with "schema": "copa-result/1"),
optionally run.json and ceilings.json. A directory that holds no documents itself but run
directories (results/<machine>/<date-time>/) stands for its newest run directory.

Every malformed or missing file raises InputError naming the file and what is wrong (exit 2)."""
import json
import os

from .errors import InputError
from .stats import mad

RESULT_SCHEMA = "copa-result/1"
CEILINGS_SCHEMA = "copa-ceilings/1"
RUN_SCHEMA = "copa-run/1"
RUN_FILE = "run.json"
CEILINGS_FILE = "ceilings.json"


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON number (copa documents hold finite numbers only)")


def load_json(f, path):
    """json.load that refuses NaN and Infinity (Python's json accepts them; JSON and copa's schemas do
    not) and documents nested too deeply to read, each as an InputError naming the file."""
    try:
        return json.load(f, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except ValueError as e:
        raise InputError(f"{path}: not valid JSON ({e})") from None
    except RecursionError:
        raise InputError(f"{path}: not valid JSON (nested too deeply to read)") from None


def read_json(path):
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    try:
        with open(path, encoding="utf-8") as f:
            return load_json(f, path)
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {e}") from None


def _require(obj, key, kind, path, where):
    if not isinstance(obj, dict) or key not in obj:
        raise InputError(f"{path}: missing key '{key}' in {where}")
    value = obj[key]
    if kind is not None and not isinstance(value, kind):
        raise InputError(f"{path}: '{key}' in {where} has the wrong type ({type(value).__name__})")
    return value


def _number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


class Kernel:
    """One kernel row: per-call time statistics (seconds) and the roofline figures."""

    def __init__(self, doc, path, index):
        where = f"kernels[{index}]"
        self.name = _require(doc, "name", str, path, where)
        time = _require(doc, "time_s", dict, path, where)
        self.median = _require(time, "median", None, path, where + ".time_s")
        if not _number(self.median):
            raise InputError(f"{path}: {where}.time_s.median is not a number")
        samples = doc.get("samples_s") or []
        self.samples = [s for s in samples if _number(s)]
        if _number(time.get("mad")):
            self.mad = float(time["mad"])
        elif len(self.samples) > 1:
            self.mad = mad(self.samples)
        else:
            self.mad = 0.0
        self.min = time.get("min", self.median)
        self.max = time.get("max", self.median)
        self.count = int(time.get("count") or len(self.samples) or 1)
        self.calls = int(doc.get("calls") or self.count)
        self.flops = float(doc.get("flops") or 0)
        self.bytes_read = float(doc.get("bytes_read") or 0)
        self.bytes_written = float(doc.get("bytes_written") or 0)
        self.bytes = self.bytes_read + self.bytes_written
        self.precision = doc.get("precision") or "fp64"
        self.gflops = doc.get("gflops")
        self.gbs = doc.get("gbs")
        self.intensity = doc.get("intensity")
        self.frac_roofline = doc.get("frac_roofline")
        self.bound = doc.get("bound")

    def achieved(self):
        """(intensity FLOP/byte, GFLOP/s) from the per-call cost and the median time."""
        if self.median <= 0 or self.flops <= 0 or self.bytes <= 0:
            return None
        return self.flops / self.bytes, self.flops / self.median * 1e-9


class Result:
    """One copa-result/1 document."""

    def __init__(self, path, key, runner_entry=None):
        doc = read_json(path)
        if not isinstance(doc, dict):
            raise InputError(f"{path}: expected a JSON object, found {type(doc).__name__}")
        schema = doc.get("schema")
        if schema != RESULT_SCHEMA:
            raise InputError(f"{path}: schema is {schema!r}, expected {RESULT_SCHEMA!r}")
        self.path = path
        self.key = key
        self.doc = doc
        self.app = _require(doc, "app", str, path, "the document")
        run = _require(doc, "run", dict, path, "the document")
        self.backend = _require(run, "backend", str, path, "run")
        self.variant = str(run.get("variant") or "default")
        problem = run.get("problem") if isinstance(run.get("problem"), dict) else {}
        entry = runner_entry or {}
        self.size = str(entry.get("size") or problem.get("size") or "")
        self.reps = entry.get("reps") or run.get("reps")
        kernels = _require(doc, "kernels", list, path, "the document")
        self.kernels = [Kernel(k, path, i) for i, k in enumerate(kernels)]
        self.fom = doc.get("fom") if isinstance(doc.get("fom"), dict) else None
        self.verification = _verification(doc.get("verification"), path)
        self.build = doc.get("build") if isinstance(doc.get("build"), dict) else {}
        self.machine = doc.get("machine") if isinstance(doc.get("machine"), dict) else {}

    @property
    def passed(self):
        """True, False, or None when the document carries no verification or was not verified."""
        return None if self.verification is None else self.verification["passed"]

    @property
    def not_verified(self):
        """True when the app ran without a reference that could fail ("passed": null with a reason):
        neither a pass nor a failure."""
        return self.verification is not None and self.verification["passed"] is None

    @property
    def not_verified_reason(self):
        return self.verification.get("reason", "") if self.not_verified else ""

    @property
    def energy(self):
        """The document's energy block (joules, mean power, source; joules null with the reason), or
        None for documents written before it."""
        e = self.doc.get("energy")
        return e if isinstance(e, dict) else None

    def fom_per_joule(self):
        """The FOM per joule (work per joule: FOM / mean power of the timed run), or None."""
        v = (self.fom or {}).get("per_joule")
        return float(v) if _number(v) and v > 0 else None

    @property
    def throttled(self):
        """True when the GPU was power or thermally throttled during the timed run, False when its
        throttle reasons were read and none was, None when they were not read."""
        c = self.doc.get("clocks")
        t = c.get("throttled") if isinstance(c, dict) else None
        return t if isinstance(t, bool) else None

    def above_roofline(self):
        """Kernels whose roofline fraction exceeds 1: a ceiling, a count or a region's time is wrong."""
        return [k for k in self.kernels if _number(k.frac_roofline) and k.frac_roofline > 1]

    def total_time(self):
        """Seconds of one repetition of the app's timed kernels: sum of median x calls / reps.
        Comparable between backends of one app and problem (the same calls are timed)."""
        reps = self.reps if _number(self.reps) and self.reps > 0 else 1
        return sum(k.median * k.calls for k in self.kernels) / reps


def _verification(ver, path):
    """The document's verification: null, a verdict (boolean 'passed'), or NOT VERIFIED ('passed' null
    with a string 'reason', common/src/report.cpp)."""
    if ver is None:
        return None
    if not isinstance(ver, dict) or "passed" not in ver:
        raise InputError(f"{path}: 'verification' must be an object with a 'passed' key")
    if isinstance(ver["passed"], bool):
        return ver
    if ver["passed"] is None:
        if not isinstance(ver.get("reason"), str) or not ver["reason"]:
            raise InputError(f"{path}: 'verification' has 'passed': null (NOT VERIFIED) but no string 'reason'")
        return ver
    raise InputError(f"{path}: 'passed' in verification must be true, false or null, "
                     f"found {type(ver['passed']).__name__}")


def is_result_file(path):
    """Cheap test whether a *.json file claims to be a result document (others are skipped)."""
    try:
        with open(path, encoding="utf-8") as f:
            head = f.read(4096)
    except OSError:
        return False
    return RESULT_SCHEMA in head or '"kernels"' in head


def resolve_set_dir(path):
    """The directory a result-set argument stands for (see the module comment)."""
    if not os.path.isdir(path):
        raise InputError(f"{path}: no such result directory")
    own = [n for n in os.listdir(path) if n.endswith(".json") and n not in (RUN_FILE, CEILINGS_FILE)]
    if own or os.path.exists(os.path.join(path, RUN_FILE)):
        return path
    runs = sorted(n for n in os.listdir(path)
                  if os.path.exists(os.path.join(path, n, RUN_FILE))
                  or any(f.endswith(".json") for f in _listdir(os.path.join(path, n))))
    if not runs:
        raise InputError(f"{path}: holds no result documents (*.json) and no run directories")
    return os.path.join(path, runs[-1])


def _listdir(path):
    return os.listdir(path) if os.path.isdir(path) else []


class ResultSet:
    """All results of one run directory, keyed by file name without .json (the runner names files
    <app>.<size>.<backend>.json, so the same case has the same key on every machine and commit)."""

    def __init__(self, path):
        self.dir = resolve_set_dir(path)
        self.run = None
        run_path = os.path.join(self.dir, RUN_FILE)
        entries = {}
        if os.path.exists(run_path):
            self.run = read_json(run_path)
            if not isinstance(self.run, dict) or self.run.get("schema") != RUN_SCHEMA:
                raise InputError(f"{run_path}: schema is not {RUN_SCHEMA!r}")
            for e in self.run.get("runs", []):
                if e.get("json"):
                    entries[e["json"]] = e
        self.results = {}
        names = sorted(set(entries) | {n for n in os.listdir(self.dir)
                                       if n.endswith(".json") and n not in (RUN_FILE, CEILINGS_FILE)})
        for name in names:
            p = os.path.join(self.dir, name)
            if name in entries or is_result_file(p):
                key = name[:-len(".json")]
                self.results[key] = Result(p, key, entries.get(name))
        failed_runs = [e for e in (self.run or {}).get("runs", []) if e.get("status") not in ("ok", None)]
        self.failed_runs = failed_runs
        if not self.results and not failed_runs:
            raise InputError(f"{self.dir}: holds no copa-result/1 documents")
        ceil_path = os.path.join(self.dir, CEILINGS_FILE)
        self.ceilings = load_ceilings(ceil_path) if os.path.exists(ceil_path) else None

    def machine_name(self):
        if self.run and self.run.get("machine_name"):
            return self.run["machine_name"]
        for r in self.results.values():
            gpu = r.machine.get("gpu")
            if r.backend in ("cuda", "hip") and isinstance(gpu, dict) and gpu.get("name"):
                return slug(gpu["name"])
            if r.machine.get("host"):
                return slug(r.machine["host"])
        return slug(os.path.basename(os.path.normpath(self.dir)))

    def ceilings_for(self, backend):
        """A backend's ceilings: the set's ceilings.json, else those a result document used."""
        if self.ceilings and backend in self.ceilings:
            return self.ceilings[backend]
        for r in self.results.values():
            c = r.machine.get("ceilings")
            if r.backend == backend and isinstance(c, dict) and c.get("triad_GBs"):
                return c
        return None


def load_ceilings(path):
    """{backend: {triad_GBs, fp64_GFLOPs, fp32_GFLOPs, ...}} of a copa-ceilings/1 file."""
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("schema") != CEILINGS_SCHEMA:
        raise InputError(f"{path}: schema is not {CEILINGS_SCHEMA!r}")
    backends = _require(doc, "backends", dict, path, "the document")
    for name, c in backends.items():
        if not isinstance(c, dict) or not _number(c.get("triad_GBs")):
            raise InputError(f"{path}: backends.{name} lacks a numeric triad_GBs")
    return backends


def slug(text):
    """A file-name friendly machine name: 'NVIDIA H200' -> 'h200', 'node-12.site' -> 'node-12'."""
    t = text.strip().lower()
    for prefix in ("nvidia ", "amd ", "nvidia-"):
        if t.startswith(prefix):
            t = t[len(prefix):]
    t = t.split(".")[0] if " " not in t else t
    out = "".join(c if c.isalnum() or c in "-_" else "-" for c in t)
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-") or "machine"
