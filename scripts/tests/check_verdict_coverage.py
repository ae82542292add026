#!/usr/bin/env python3
"""Every app-run test of a build that expects success reads the verdict (docs/CONVENTIONS.md "Tests").

Usage: check_verdict_coverage.py BUILD_DIR [ctest filter arguments...]

Lists the build's tests (ctest --show-only=json-v1) and fails, naming them, on each test that runs an
app (laghos-like, ramses-oct, mom-efie, mps-density; directly, under mpiexec, or through
cmake/expect_exit.cmake with exit code 0) and expects success, but has neither a pass regular
expression nor a checker script. A run through cmake/check_verdict.cmake (copa_add_test's default)
or another -P script that reads the output or the JSON is checked; --list, --help and --version
print without a verdict.
"""
import json
import os
import subprocess
import sys

APPS = {"laghos-like", "ramses-oct", "mom-efie", "mps-density"}
NO_RUN = {"--list", "--help", "-h", "--version"}


def props(test):
    return {p["name"]: p["value"] for p in test.get("properties", [])}


def unjudged(test):
    """Why the test is judged by its exit code alone, or None."""
    cmd = test.get("command") or []
    p = props(test)
    if not cmd or p.get("WILL_FAIL") or any(a in NO_RUN for a in cmd):
        return None
    names = [os.path.basename(a) for a in cmd]
    app_at = next((i for i, n in enumerate(names) if n in APPS), None)
    if app_at is None:
        return None
    if names[0] == "cmake":
        script = next((cmd[i + 1] for i, a in enumerate(cmd[:-1]) if a == "-P"), "")
        if os.path.basename(script) == "expect_exit.cmake" and "-DEXPECT=0" not in cmd:
            return None  # expects a failure exit code
        if os.path.basename(script) != "expect_exit.cmake":
            return None  # check_verdict.cmake or an app's own checker script
    elif names[0] in ("bash", "sh") or names[0].startswith("python"):
        return None  # a checker script
    if p.get("PASS_REGULAR_EXPRESSION"):
        return None if p.get("FAIL_REGULAR_EXPRESSION") else "a pass expression without a fail expression"
    return "exit code alone (no pass expression, no checker)"


def main(argv):
    if len(argv) < 2:
        print("usage: check_verdict_coverage.py BUILD_DIR [ctest filter arguments...]", file=sys.stderr)
        return 2
    out = subprocess.run(["ctest", "--test-dir", argv[1], "--show-only=json-v1", *argv[2:]],
                         capture_output=True, text=True)
    if out.returncode != 0:
        print(f"ctest --show-only failed: {out.stderr.strip()}", file=sys.stderr)
        return 3
    tests = json.loads(out.stdout)["tests"]
    bad = [(t["name"], why) for t in tests if (why := unjudged(t))]
    runs = sum(1 for t in tests if any(os.path.basename(a) in APPS for a in t.get("command") or []))
    for name, why in bad:
        print(f"{name}: {why}")
    print(f"{len(tests)} tests, {runs} run an app, {len(bad)} judged by the exit code alone")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
