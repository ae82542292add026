"""copa-sanitize (gpu-check's sanitize stage) with stub GPU apps and a stub compute-sanitizer that runs
the app and prints the summary lines of the real tool."""
import json
import os
import stat
import unittest

import synthetic  # noqa: F401 -- puts scripts/ on sys.path
from copasuite.sanitize import TINY_ARGS
from tooltest import ToolTest

# Variant "unverified" exits 1 (a verification verdict); "racy" has a shared-memory hazard, "oob" an
# out-of-bounds access, "crash" exits 3.
STUB_GPU_APP = r'''#!/usr/bin/python3
import sys
args = sys.argv[1:]
if "--list" in args:
    print("{app}: variants (backends built: serial, cuda)")
    print("  variant  backends  default  summary")
    print("  default  serial    serial   the oracle")
    for v in "{variants}".replace(",", " ").split():
        print("  " + v + "  cuda,hip*  -  a GPU variant")
    print("  (* not built in this executable)")
    sys.exit(0)
variant = args[args.index("--variant") + 1]
sys.exit({{"unverified": 1, "crash": 3}}.get(variant, 0))
'''

STUB_SANITIZER = r'''#!/usr/bin/python3
import subprocess, sys
args = sys.argv[1:]
tool = args[args.index("--tool") + 1]
app = args[args.index("--error-exitcode") + 2:]
with open({calls!r}, "a") as f:
    f.write(" ".join(args) + "\n")
rc = subprocess.run(app).returncode
variant = app[app.index("--variant") + 1]
errors = 1 if (tool, variant) in (("racecheck", "racy"), ("memcheck", "oob")) else 0
print("========= COMPUTE-SANITIZER")
if tool == "racecheck":
    print(f"========= RACECHECK SUMMARY: {{errors}} hazards displayed ({{errors}} errors, 2 warnings)")
else:
    print(f"========= ERROR SUMMARY: {{errors}} errors")
sys.exit(1 if errors else rc)
'''


def _executable(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


class SanitizeTest(ToolTest):
    def setUp(self):
        super().setUp()
        self.calls = self.path("calls.log")
        self.sanitizer = self.path("compute-sanitizer")
        _executable(self.sanitizer, STUB_SANITIZER.format(calls=self.calls))

    def build(self, variants_by_app):
        for app, variants in variants_by_app.items():
            _executable(self.path("build", app, app), STUB_GPU_APP.format(app=app, variants=", ".join(variants)))
        return self.path("build")

    def sanitize(self, build, *extra):
        return self.tool("copa-sanitize", "--build", build, "--out", self.path("out"), "--sanitizer", self.sanitizer,
                         *extra)

    def summary(self, app):
        with open(self.path("out", app, "sanitize.json")) as f:
            return json.load(f)

    def test_every_gpu_variant_runs_under_memcheck_and_racecheck(self):
        build = self.build({"mps-density": ["fine-lean", "unverified"], "ramses-oct": ["plain"]})
        code, text = self.sanitize(build)
        self.assertEqual(code, 0, text)
        with open(self.calls) as f:
            calls = f.read().splitlines()
        # Every GPU variant under both tools, at the tiny size; the host backend is not sanitized.
        self.assertEqual(len(calls), 6, calls)
        for variant in ("fine-lean", "unverified"):
            for tool in ("memcheck", "racecheck"):
                expected = (f"--tool {tool} --error-exitcode 1 {build}/mps-density/mps-density --backend cuda "
                            f"--variant {variant} " + " ".join(TINY_ARGS["mps-density"]))
                self.assertTrue(any(c.startswith(expected) for c in calls), f"{expected}\n{calls}")
        self.assertFalse(any("serial" in c for c in calls))
        s = self.summary("mps-density")
        self.assertTrue(s["passed"])
        statuses = {(c["variant"], c["tool"]): c["status"] for c in s["cases"]}
        self.assertEqual(statuses[("unverified", "memcheck")], "clean (app verification failed)")
        self.assertEqual(statuses[("fine-lean", "racecheck")], "clean")
        self.assertEqual(s["cases"][1]["sanitizer_warnings"], 2)
        self.assertTrue(os.path.exists(self.path("out", "mps-density", "racecheck.cuda.fine-lean.log")))
        # Apps that are not built are skipped and said so.
        self.assertIn("not built", self.summary("laghos-like")["skipped"])
        with open(self.path("out", "summary.json")) as f:
            total = json.load(f)
        self.assertEqual((total["passed"], total["cases"]), (True, 6))

    def test_a_sanitizer_error_or_an_app_failure_fails_the_stage(self):
        build = self.build({"laghos-like": ["generic", "racy", "oob", "crash"]})
        code, text = self.sanitize(build)
        self.assertEqual(code, 1, text)
        s = self.summary("laghos-like")
        self.assertFalse(s["passed"])
        statuses = {(c["variant"], c["tool"]): c["status"] for c in s["cases"]}
        self.assertEqual(statuses[("generic", "racecheck")], "clean")
        self.assertEqual(statuses[("racy", "racecheck")], "sanitizer errors")
        self.assertEqual(statuses[("racy", "memcheck")], "clean")
        self.assertEqual(statuses[("oob", "memcheck")], "sanitizer errors")
        self.assertEqual(statuses[("crash", "memcheck")], "app exit 3")
        self.assertIn("FAILED", text)

    def test_bad_input_and_a_missing_sanitizer(self):
        build = self.build({"mom-efie": ["pairs"]})
        code, text = self.sanitize(build, "--tools", "memcheck,helgrind")
        self.assertEqual(code, 2, text)
        self.assertIn("--tools", text)
        code, text = self.tool("copa-sanitize", "--build", build, "--out", self.path("out"),
                               "--sanitizer", self.path("no-such-sanitizer"))
        self.assertEqual(code, 3, text)
        self.assertIn("compute-sanitizer not found", text)
        code, text = self.sanitize(self.path("no-build"))
        self.assertEqual(code, 2, text)
        self.assertIn("--build", text)


if __name__ == "__main__":
    unittest.main()
