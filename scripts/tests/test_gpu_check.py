"""gpu-check's probe and bench stages in a scratch copy of the repository: the ceilings copa-probe
measured on the machine at hand reach every app's benchmark (COPA_CEILINGS), instead of the
built-in H200 ones."""
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


if __name__ == "__main__":
    unittest.main()
