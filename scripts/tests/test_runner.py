"""copa-run on a fake build directory whose apps are stub scripts (no real app needed)."""
import json
import os
import subprocess
import sys
import unittest

import synthetic
from tooltest import ToolTest


class RunnerTest(ToolTest):
    def run_suite(self, failing=(), *extra, probe=True):
        build = synthetic.fake_build(self.path("build"), ["mom-efie", "mps-density"], failing, probe=probe)
        out = self.path("out")
        code, text = self.tool("copa-run", "--build", build, "--out", out, "--no-charts", *extra)
        return code, text, out

    @staticmethod
    def summary_row(text, app, backend):
        for line in text.splitlines():
            words = line.split()
            if len(words) > 3 and words[0] == app and words[2] == backend:
                return words
        return None

    def test_summary_of_a_verified_run(self):
        code, text, out = self.run_suite()
        self.assertEqual(code, 0, text)
        # Missing apps are reported and skipped; each present app gets a progress line.
        self.assertIn("laghos-like: skipped", text)
        self.assertIn("[3/4] mom-efie (small): serial ok", text)
        row = self.summary_row(text, "mps-density", "openmp")
        self.assertIsNotNone(row, text)
        # openmp's stub kernels take half the serial time: 2x over serial, 1x over itself.
        self.assertEqual(row[-5:-2], ["PASSED", "2.00x", "1.00x"], text)
        self.assertEqual(self.summary_row(text, "mps-density", "serial")[-5:-2], ["PASSED", "1.00x", "0.50x"])
        for name in ("mom-efie.small.serial.json", "mps-density.small.openmp.json", "run.json",
                     "ceilings.json", "summary.txt", "mom-efie.small.openmp.log"):
            self.assertTrue(os.path.exists(os.path.join(out, name)), name)
        with open(os.path.join(out, "run.json")) as f:
            run = json.load(f)
        self.assertEqual(run["schema"], "copa-run/1")
        self.assertEqual(run["ceilings"]["source"], "copa-probe")
        self.assertNotIn("--quick", run["ceilings"]["command_line"])
        self.assertEqual(run["build"]["reported"]["compiler"], "GNU")
        self.assertEqual(run["mpi_ranks"], [1])
        self.assertIn("sha", run["git"])
        self.assertEqual(len(run["runs"]), 4)
        self.assertEqual([s["app"] for s in run["skipped"]], ["laghos-like", "ramses-oct"])
        cmd = run["runs"][0]["command_line"]
        self.assertEqual(cmd[cmd.index("--ceilings") + 1], os.path.join(out, "ceilings.json"))
        self.assertEqual(cmd[cmd.index("--reps") + 1], "5")

    def test_default_results_go_under_the_current_directory_not_the_checkout(self):
        build = synthetic.fake_build(self.path("build"), ["mom-efie"])
        repo = os.path.dirname(synthetic.SCRIPTS)
        before = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
        work = self.path("work")
        os.makedirs(work)
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        env.pop("COPA_RESULTS", None)
        run = [sys.executable, os.path.join(synthetic.SCRIPTS, "copa-run"), "--build", build, "--no-charts",
               "--machine", "box", "--apps", "mom-efie"]
        p = subprocess.run(run, cwd=work, env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        (stamp,) = os.listdir(os.path.join(work, "copa-results", "box"))
        first = os.path.join(work, "copa-results", "box", stamp)
        self.assertTrue(os.path.exists(os.path.join(first, "mom-efie.small.openmp.json")))
        # copa-compare's report goes beside the new results (the candidate's directory).
        env["COPA_RESULTS"] = self.path("elsewhere")
        p = subprocess.run(run, cwd=work, env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        (stamp,) = os.listdir(self.path("elsewhere", "box"))
        second = self.path("elsewhere", "box", stamp)
        p = subprocess.run([sys.executable, os.path.join(synthetic.SCRIPTS, "copa-compare"), first, second],
                           cwd=work, env=env, capture_output=True, text=True, timeout=300)
        self.assertIn(p.returncode, (0, 1), p.stdout + p.stderr)
        self.assertTrue(os.path.exists(os.path.join(second, "compare.md")))
        self.assertTrue(os.path.exists(os.path.join(second, "compare.html")))
        after = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
        self.assertEqual(after, before, "copa-run or copa-compare wrote into the source checkout")

    def test_time_limit_stops_a_run(self):
        build = synthetic.fake_build(self.path("build"), ["mom-efie"])
        os.environ["COPA_STUB_SLEEP"] = "5"
        try:
            code, text = self.tool("copa-run", "--build", build, "--out", self.path("out"), "--no-charts",
                                   "--apps", "mom-efie", "--backends", "serial", "--time-limit", "1")
        finally:
            del os.environ["COPA_STUB_SLEEP"]
        self.assertEqual(code, 1, text)
        self.assertIn("time limit per app run: small 1 s", text)
        self.assertIn("TIMEOUT (1 S, --TIME-LIMIT)", text)
        code, text = self.tool("copa-run", "--build", build, "--time-limit", "-3")
        self.assertEqual(code, 2, text)
        self.assertIn("--time-limit: must not be negative", text)

    def test_failed_verification_makes_the_runner_fail(self):
        code, text, out = self.run_suite(["openmp"], "--quick-probe")
        self.assertEqual(code, 1, text)
        with open(os.path.join(out, "run.json")) as f:
            self.assertIn("--quick", json.load(f)["ceilings"]["command_line"])
        self.assertEqual(self.summary_row(text, "mom-efie", "openmp")[-5], "FAILED", text)
        self.assertEqual(self.summary_row(text, "mom-efie", "serial")[-5], "PASSED", text)
        self.assertIn("mom-efie openmp: verification_failed", text)

    def test_options_reach_the_apps(self):
        code, text, out = self.run_suite((), "--apps", "mps-density", "--backends", "openmp,cuda",
                                         "--reps", "3", "--size", "medium", "--all-variants", probe=False)
        self.assertEqual(code, 0, text)
        with open(os.path.join(out, "run.json")) as f:
            run = json.load(f)
        self.assertEqual([(r["backend"], r["variant"]) for r in run["runs"]], [("openmp", None), ("openmp", "tiled")])
        cmd = run["runs"][0]["command_line"]
        self.assertEqual(cmd[cmd.index("--reps") + 1], "3")
        self.assertEqual(cmd[cmd.index("--size") + 1], "medium")
        self.assertNotIn("--ceilings", cmd)
        self.assertEqual(run["ceilings"]["source"], "none (copa-probe not built)")
        self.assertEqual(run["skipped"], [{"app": "mps-density", "backend": "cuda", "reason": "cuda not built into mps-density"}])

    def test_bad_options_exit_2(self):
        build = synthetic.fake_build(self.path("build"), ["mom-efie"])
        for args in (["--size", "huge"], ["--apps", "nope"], ["--apps", ""], ["--apps", ","], ["--backends", "fortran"], ["--reps", "0"],
                     ["--ceilings", self.path("missing.json")]):
            code, text = self.tool("copa-run", "--build", build, "--out", self.path("out"), *args)
            self.assertEqual(code, 2, f"{args}: {text}")
            self.assertIn(args[0], text)

    def test_refuses_to_overwrite_a_run(self):
        code, text, out = self.run_suite()
        self.assertEqual(code, 0, text)
        code, text = self.tool("copa-run", "--build", self.path("build"), "--out", out)
        self.assertEqual(code, 2, text)
        self.assertIn("already holds a run", text)

    def test_empty_build_directory_exits_2(self):
        os.makedirs(self.path("empty"))
        code, text = self.tool("copa-run", "--build", self.path("empty"), "--out", self.path("out"), "--no-probe")
        self.assertEqual(code, 2, text)
        self.assertIn("nothing ran", text)

    def test_not_verified_run_is_neither_pass_nor_fail(self):
        build = synthetic.fake_build(self.path("build"), ["mps-density"], unverified_backends=["openmp"])
        out = self.path("out")
        code, text = self.tool("copa-run", "--build", build, "--out", out, "--no-charts", "--no-probe")
        self.assertEqual(code, 0, text)  # not a failure
        self.assertIn("[4/4] mps-density (small): serial ok", text)
        self.assertIn("openmp NOT VERIFIED", text)
        row = next(line for line in text.splitlines() if line.split()[:3] == ["mps-density", "small", "openmp"])
        self.assertIn("NOT VERIFIED", row)  # not PASSED
        self.assertNotIn("PASSED", row)
        self.assertIn("1 of 2 runs verified, 1 NOT VERIFIED, 0 failed", text)
        self.assertIn("mps-density openmp: NOT VERIFIED: stub without a reference", text)
        with open(os.path.join(out, "run.json")) as f:
            runs = json.load(f)["runs"]
        self.assertEqual([(r["backend"], r["status"], r.get("not_verified")) for r in runs],
                         [("serial", "ok", None), ("openmp", "ok", "stub without a reference")])

    def test_unwritable_out_exits_2_before_building_or_running(self):
        blocker = self.path("a-file")
        with open(blocker, "w") as f:
            f.write("not a directory\n")
        build = synthetic.fake_build(self.path("build"), ["mom-efie"])
        for out in (os.path.join(blocker, "run"), blocker):
            # With --build: no app runs (the stub would write its log into --out).
            code, text = self.tool("copa-run", "--build", build, "--out", out, "--no-probe")
            self.assertEqual(code, 2, text)
            self.assertIn(f"--out: {out}", text)
            self.assertNotIn("mom-efie (small)", text)
            # Without --build: refused before configuring (an unknown preset would fail with exit 3).
            code, text = self.tool("copa-run", "--preset", "no-such-preset", "--out", out)
            self.assertEqual(code, 2, text)
            self.assertNotIn("cmake --preset", text)


if __name__ == "__main__":
    unittest.main()
