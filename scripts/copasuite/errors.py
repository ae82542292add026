"""Exit codes shared by the suite tools, the same as the apps' (docs/CONVENTIONS.md "Exit codes"):
0 ok, 1 a check failed (verification, regression, app failure), 2 bad input, 3 runtime failure."""
import sys

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_RUNTIME = 3


class InputError(Exception):
    """Bad option, missing or malformed file: the message says which and why (exit 2)."""


class ToolRuntimeError(Exception):
    """Something the tool needed failed to run (a build, a subprocess): exit 3."""


def guarded_main(main, argv=None):
    """Runs main(argv) and turns the suite's exceptions into their exit codes with a one-line message."""
    name = sys.argv[0].rsplit("/", 1)[-1]
    try:
        return main(sys.argv[1:] if argv is None else argv)
    except InputError as e:
        print(f"{name}: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ToolRuntimeError as e:
        print(f"{name}: runtime error: {e}", file=sys.stderr)
        return EXIT_RUNTIME
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
