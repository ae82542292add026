"""gpu-check's probe and bench stages in a scratch copy of the repository: the ceilings copa-probe
measured on the machine at hand reach every app's benchmark (COPA_CEILINGS), instead of the
built-in H200 ones; --bench-cases narrows every app's bench/h200.sh to the matching cases."""
import os
import shutil
import stat
import subprocess
import unittest

import synthetic
from tooltest import ToolTest

BENCH = """#!/bin/sh
# A stand-in benchmark: records the ceilings file its app runs would use.
mkdir -p "$2"
echo "${COPA_CEILINGS:-none}" > "$2/ceilings-seen.txt"
"""


class GpuCheckTest(ToolTest):
    def scratch_repo(self):
        repo = self.path("repo")
        shutil.copytree(synthetic.SCRIPTS, os.path.join(repo, "scripts"), ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(os.path.join(os.path.dirname(synthetic.SCRIPTS), "CMakeLists.txt"), repo)
        bench = os.path.join(repo, "fakeapp", "bench", "h200.sh")
        os.makedirs(os.path.dirname(bench))
        with open(bench, "w") as f:
            f.write(BENCH)
        os.chmod(bench, os.stat(bench).st_mode | stat.S_IXUSR)
        stubs = self.path("stubs")
        os.makedirs(stubs)
        with open(os.path.join(stubs, "nvidia-smi"), "w") as f:
            f.write("#!/bin/sh\necho 'name, driver_version'\necho 'Test GPU, 1.0'\n")
        os.chmod(os.path.join(stubs, "nvidia-smi"), 0o755)
        synthetic.fake_build(self.path("build"), [], probe=True)
        return repo, dict(os.environ, PATH=stubs + os.pathsep + os.environ["PATH"])

    def test_bench_uses_the_ceilings_probed_here(self):
        repo, env = self.scratch_repo()
        env.pop("COPA_CEILINGS", None)
        out = self.path("out")
        p = subprocess.run([os.path.join(repo, "scripts", "gpu-check"), out, "--stages", "probe,bench",
                            "--apps", "fakeapp", "--build-dir", self.path("build")],
                           capture_output=True, text=True, timeout=300, env=env, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(os.path.exists(os.path.join(out, "ceilings.json")), p.stdout)
        with open(os.path.join(out, "fakeapp", "ceilings-seen.txt")) as f:
            self.assertEqual(f.read().strip(), os.path.join(out, "ceilings.json"))
        # Without a probe the benchmark gets no ceilings file, and gpu-check says so.
        out2 = self.path("out2")
        p = subprocess.run([os.path.join(repo, "scripts", "gpu-check"), out2, "--stages", "bench",
                            "--apps", "fakeapp", "--build-dir", self.path("build")],
                           capture_output=True, text=True, timeout=300, env=env, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("built-in ceilings", p.stdout)
        with open(os.path.join(out2, "fakeapp", "ceilings-seen.txt")) as f:
            self.assertEqual(f.read().strip(), "none")

    def test_bench_cases_runs_only_the_matching_cases_of_every_app(self):
        # Each app's real bench/h200.sh against a stand-in binary that records its calls: with
        # COPA_BENCH_CASES matching one case name (mom-efie: one title), the app runs once, and the
        # script still ends with exit 0 (its summary reads only what exists).
        repo = os.path.dirname(synthetic.SCRIPTS)
        one_case = {"laghos-like": "^q2q1_n44_lean_xy$", "ramses-oct": "^sweep-256-zmarch$",
                    "mps-density": "^pflow-cuda-fp32$", "mom-efie": "^large sphere end to end \\(cuda"}
        for app, pattern in one_case.items():
            build, calls = self.path("build-" + app), self.path("calls-" + app)
            os.makedirs(os.path.join(build, app))
            binary = os.path.join(build, app, app)
            with open(binary, "w") as f:
                f.write(f'#!/bin/sh\necho "$*" >> "{calls}"\n')
            os.chmod(binary, 0o755)
            env = dict(os.environ, COPA_BENCH_CASES=pattern)
            p = subprocess.run([os.path.join(repo, app, "bench", "h200.sh"), build, self.path("out-" + app)],
                               capture_output=True, text=True, timeout=300, env=env, cwd=self.tmp)
            self.assertEqual(p.returncode, 0, f"{app}: {p.stdout}{p.stderr}")
            with open(calls) as f:
                self.assertEqual(len(f.read().splitlines()), 1, f"{app}: {pattern} ran another number of cases")
        # A pattern that is not a regular expression is refused before any stage (exit 2).
        p = subprocess.run([os.path.join(synthetic.SCRIPTS, "gpu-check"), self.path("out"), "--bench-cases", "("],
                           capture_output=True, text=True, timeout=60, cwd=self.tmp)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("--bench-cases", p.stderr)
        self.assertFalse(os.path.exists(self.path("out")))


if __name__ == "__main__":
    unittest.main()
