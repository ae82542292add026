"""Base class of the suite tools' tests: a scratch directory and a way to run a tool as users do."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from synthetic import SCRIPTS


class ToolTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="copa-suite-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def tool(self, name, *args):
        """Runs scripts/<name> with the interpreter of the test; returns (exit code, stdout + stderr)."""
        p = subprocess.run([sys.executable, os.path.join(SCRIPTS, name)] + [str(a) for a in args],
                           capture_output=True, text=True, timeout=600)
        return p.returncode, p.stdout + p.stderr
