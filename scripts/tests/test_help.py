"""Every script answers --help with its usage, exit 0 and no side effects: run from a copy of scripts/
in a scratch repository, with the tools a script could start (cmake, ctest, apt-get, ...) replaced by
stubs that record any call."""
import os
import re
import shutil
import subprocess
import unittest

from synthetic import SCRIPTS
from tooltest import ToolTest

SCRIPT_NAMES = ["run-tests", "install-deps", "gpu-check", "copa-run", "copa-compare", "copa-roofline",
                "copa-sanitize", "gpu-check-dist", "copa-validate", "copa-dashboard", "gpu-profile", "gpu-hot", "gpu-energy", "carry-build",
                "gputrace-summary"]
STUBBED_TOOLS = ["cmake", "ctest", "ninja", "apt-get", "sudo", "dpkg-query", "nvidia-smi", "nvcc", "hipcc",
                 "compute-sanitizer", "mpirun", "tar"]


class HelpTest(ToolTest):
    def test_every_script_prints_usage_without_side_effects(self):
        repo = self.path("repo")
        shutil.copytree(SCRIPTS, os.path.join(repo, "scripts"), ignore=shutil.ignore_patterns("__pycache__"))
        stubs, calls = self.path("stubs"), self.path("calls.log")
        os.makedirs(stubs)
        for tool in STUBBED_TOOLS:
            with open(os.path.join(stubs, tool), "w") as f:
                f.write(f'#!/bin/sh\necho "{tool} $*" >> "{calls}"\nexit 1\n')
            os.chmod(os.path.join(stubs, tool), 0o755)
        env = dict(os.environ, PATH=stubs + os.pathsep + os.environ.get("PATH", ""), PYTHONDONTWRITEBYTECODE="1")
        before = sorted(os.listdir(repo))
        executables = [n for n in os.listdir(SCRIPTS)
                       if os.path.isfile(os.path.join(SCRIPTS, n)) and os.access(os.path.join(SCRIPTS, n), os.X_OK)]
        self.assertEqual(sorted(executables), sorted(SCRIPT_NAMES), "every executable in scripts/ is listed here")
        for name in SCRIPT_NAMES:
            p = subprocess.run([os.path.join(repo, "scripts", name), "--help"], capture_output=True, text=True,
                               timeout=60, cwd=self.tmp, env=env)
            text = p.stdout + p.stderr
            self.assertEqual(p.returncode, 0, f"{name} --help: {text}")
            self.assertRegex(p.stdout.lower(), r"usage|scripts/" + name, f"{name} --help printed: {text}")
            self.assertFalse(os.path.exists(calls), f"{name} --help started a tool (see {calls})")
            self.assertEqual(sorted(os.listdir(repo)), before, f"{name} --help wrote into the repository")
            self.assertEqual(sorted(os.listdir(self.tmp)), ["repo", "stubs"], f"{name} --help wrote a file")

    def test_every_script_prints_the_version(self):
        with open(os.path.join(os.path.dirname(SCRIPTS), "CMakeLists.txt")) as f:
            version = re.search(r"project\(copa VERSION ([0-9.]+)", f.read()).group(1)
        for name in SCRIPT_NAMES:
            p = subprocess.run([os.path.join(SCRIPTS, name), "--version"], capture_output=True, text=True,
                               timeout=60, cwd=self.tmp)
            self.assertEqual(p.returncode, 0, f"{name} --version: {p.stdout}{p.stderr}")
            self.assertEqual(p.stdout.strip(), f"{name} (copa) {version}")
            self.assertEqual(os.listdir(self.tmp), [], f"{name} --version wrote a file")


if __name__ == "__main__":
    unittest.main()
