"""scripts/carry-build on a synthetic build directory: the chosen tests (plain add_test lines and
GoogleTest's discovered lists with their properties) are kept with the build's path rewritten to the
copy's, the others dropped, and a kept test whose binary is not carried is refused."""
import os
import subprocess
import unittest

from synthetic import SCRIPTS
from tooltest import ToolTest


class CarryBuildTest(ToolTest):
    def fake_build(self):
        build, source = self.path("build"), self.path("src")
        os.makedirs(os.path.join(build, "app", "tests"))
        os.makedirs(source)
        with open(os.path.join(build, "CMakeCache.txt"), "w") as f:
            f.write(f"CMAKE_HOME_DIRECTORY:INTERNAL={source}\nCMAKE_COMMAND:INTERNAL=/usr/bin/cmake\n")
        for exe in ("app/app", "app/tests/app_gtest", "app/other"):
            with open(os.path.join(build, exe), "w") as f:
                f.write("#!/bin/sh\nexit 0\n")
            os.chmod(os.path.join(build, exe), 0o755)
        t = os.path.join(build, "app", "tests")
        with open(os.path.join(t, "CTestTestfile.cmake"), "w") as f:
            f.write(f'add_test([=[app.gpu-mpi.run]=] "{build}/app/app" "--json" "{build}/app/tests/run.json")\n'
                    f'set_tests_properties([=[app.gpu-mpi.run]=] PROPERTIES LABELS "gpu;mpi")\n'
                    f'add_test([=[app.cpu.run]=] "{build}/app/app")\n'
                    f'add_test([=[app.gpu-mpi.other]=] "{build}/app/other")\n')
        with open(os.path.join(t, "app_gtest[1]_tests.cmake"), "w") as f:
            f.write(f"add_test([=[app.gpu-mpi.Case.one]=]  {build}/app/tests/app_gtest [==[--gtest_filter=Case.one]==])\n"
                    f"set_tests_properties([=[app.gpu-mpi.Case.one]=]  PROPERTIES WORKING_DIRECTORY {build}/app/tests)\n"
                    f"add_test([=[app.cpu.Case.two]=]  {build}/app/tests/app_gtest [==[--gtest_filter=Case.two]==])\n"
                    "set( copa_gtest_app_gtest_1 app.gpu-mpi.Case.one app.cpu.Case.two)\n")
        with open(os.path.join(t, "copa_gtest_app_gtest_1_properties.cmake"), "w") as f:
            f.write('foreach(t IN LISTS copa_gtest_app_gtest_1)\n'
                    '  set_tests_properties("${t}" PROPERTIES LABELS [==[gpu;mpi]==] PROCESSORS 2)\nendforeach()\n')
        return build

    def carry(self, *args):
        p = subprocess.run([os.path.join(SCRIPTS, "carry-build")] + list(args), capture_output=True, text=True,
                           timeout=120)
        return p.returncode, p.stdout + p.stderr

    def test_keeps_the_chosen_tests_with_the_copy_s_paths(self):
        build, dest = self.fake_build(), self.path("carried")
        code, out = self.carry(build, dest, "--tests", r"app\.gpu-mpi\.(run|Case)", "app/app", "app/tests/app_gtest")
        self.assertEqual(code, 0, out)
        with open(os.path.join(dest, "CTestTestfile.cmake")) as f:
            text = f.read()
        self.assertIn("app.gpu-mpi.run", text)
        self.assertIn("app.gpu-mpi.Case.one", text)
        self.assertNotIn("app.cpu", text)
        self.assertNotIn("app.gpu-mpi.other", text)
        self.assertNotIn(build + "/", text)
        self.assertIn(f'"{dest}/app/app"', text)
        self.assertIn("set(copa_gtest_app_gtest_1 app.gpu-mpi.Case.one)", text)
        self.assertIn("PROCESSORS 2", text)
        self.assertTrue(os.access(os.path.join(dest, "app", "app"), os.X_OK))
        self.assertTrue(os.path.isdir(os.path.join(dest, "app", "tests")))
        with open(os.path.join(dest, "carried.txt")) as f:
            carried = f.read()
        self.assertIn(f"build {build}\n", carried)
        self.assertIn("cmake /usr/bin/cmake\n", carried)

    def test_refuses_a_test_whose_binary_is_not_carried(self):
        build = self.fake_build()
        code, out = self.carry(build, self.path("carried"), "--tests", r"app\.gpu-mpi", "app/app", "app/tests/app_gtest")
        self.assertEqual(code, 2, out)
        self.assertIn("app/other", out)

    def test_refuses_a_test_whose_target_is_not_built(self):
        # A test behind mpiexec names its binary as an argument; the target was configured (its
        # CMakeFiles/<name>.dir exists) but not built: refused, not carried as an empty folder.
        build = self.fake_build()
        os.makedirs(os.path.join(build, "app", "tests", "CMakeFiles", "app_check.dir"))
        with open(os.path.join(build, "app", "tests", "CTestTestfile.cmake"), "a") as f:
            f.write(f'add_test([=[app.gpu-mpi.check]=] "/usr/bin/mpiexec" "-n" "2" "{build}/app/tests/app_check" "2x1")\n')
        code, out = self.carry(build, self.path("carried"), "--tests", r"app\.gpu-mpi\.check", "app/app")
        self.assertEqual(code, 2, out)
        self.assertIn("not built (build target app_check)", out)
        with open(os.path.join(build, "app", "tests", "app_check"), "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(os.path.join(build, "app", "tests", "app_check"), 0o755)
        code, out = self.carry(build, self.path("carried"), "--tests", r"app\.gpu-mpi\.check", "app/app")
        self.assertEqual(code, 2, out)
        self.assertIn("not carried (add app/tests/app_check)", out)
        code, out = self.carry(build, self.path("carried"), "--tests", r"app\.gpu-mpi\.check", "app/app",
                               "app/tests/app_check")
        self.assertEqual(code, 0, out)

    def test_bad_input_exit_2(self):
        build = self.fake_build()
        for args in ([self.path("nothing"), self.path("c"), "app/app"],   # no build there
                     [build, self.path("c"), "app/missing"],               # file not built
                     [build, self.path("c"), "--tests", "zzz", "app/app"],  # no test matches
                     [build, os.path.join(build, "inside"), "app/app"]):     # copy inside the build
            code, out = self.carry(*args)
            self.assertEqual(code, 2, f"{args}: {out}")
            self.assertIn("carry-build:", out)


if __name__ == "__main__":
    unittest.main()
