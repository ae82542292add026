"""copa-compare: a baseline and a candidate result set give a Markdown and an HTML report of every
case (app, size, backend) they share: per kernel the medians, their spread, the ratio and a verdict,
the FOM and verification changes, and the metadata that differs.

Verdict of a kernel, judged against the run-to-run noise:
- both sides with at least MIN_SAMPLES repetition samples (samples_s): the two-sided Mann-Whitney U
  test of "the two sets of samples come from one distribution" at level --alpha (default 0.01). When
  nothing changed, a kernel is flagged (SLOWER or FASTER) with probability at most alpha: that is
  the false-alarm rate per kernel. A significant change must also exceed --threshold (default 5%)
  in the medians to be reported (smaller effects are real but not worth a verdict):
    SLOWER when p < alpha and median_cand / median_base - 1 > threshold,
    FASTER when p < alpha and median_base / median_cand - 1 > threshold, else SAME.
- fewer samples (older documents, single repetitions): the median rule,
    noise     = max(MAD_base / median_base, MAD_cand / median_cand)   (relative MAD of the repetitions)
    threshold = max(--threshold, --mad-factor x noise)                (defaults 5% and 3)
    SLOWER when median_cand / median_base - 1 > threshold,
    FASTER when median_base / median_cand - 1 > threshold (the same factor the other way), else SAME;
  its false-alarm rate is not known (it depends on the distribution of the noise).
Exit status: 1 when a kernel is SLOWER, a candidate verification failed or a candidate run failed;
2 when an input is missing or malformed or when no case was compared; else 0.

Two sets from different machines (run.json's machine_name) or with no backend in common are
compared machine against machine instead (compare_machines.py; --mode machines forces it)."""
import argparse
import json
import os
import sys

from . import metadata, scaling
from .errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK, InputError
from .outputs import check_output_dir, check_output_file
from .resultset import ResultSet, read_json, resolve_set_dir
from .compare_machines import MachineComparison, print_summary
from .compare_model import (CASE_HEADERS, FASTER, KERNEL_HEADERS, MIN_SAMPLES, SAME, SLOWER,  # noqa: F401
                            CaseDelta, Comparison, KernelDelta, case_label, kernel_rows)
from .compare_report import html_report, markdown_report
from .runner import REPO, default_results_root
from .tables import text_table


def compare_scaling(args):
    """Two scaling studies: every (app, size, transport, ranks) whose efficiency fell is a regression."""
    docs = [read_json(os.path.join(d, scaling.SCALING_FILE)) for d in (args.baseline, args.candidate)]
    if docs[0].get("study") != docs[1].get("study"):
        raise InputError(f"the studies differ: {docs[0].get('study')} vs {docs[1].get('study')}")
    found = scaling.efficiency_regressions(docs[0], docs[1], args.efficiency_threshold)
    shared = {(a["app"], a["size"], r["transport"], r["ranks"]) for a in docs[0]["apps"] for r in a["rows"]} & \
             {(a["app"], a["size"], r["transport"], r["ranks"]) for a in docs[1]["apps"] for r in a["rows"]}
    print(f"baseline:  {args.baseline}\ncandidate: {args.candidate}\n{docs[0]['study']} scaling: "
          f"{len(shared)} rows compared")
    for r in found:
        print(f"EFFICIENCY REGRESSION: {r['app']} {r['size']} {r['transport']} x{r['ranks']}: "
              f"{100 * r['baseline']:.1f}% -> {100 * r['candidate']:.1f}%")
    if not shared:
        print("copa-compare: the studies share no row", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_CHECK_FAILED if found else EXIT_OK


def main(argv):
    p = argparse.ArgumentParser(
        prog="copa-compare",
        description="Compare two copa result sets (a baseline and a candidate): Markdown and HTML report.",
        epilog="Exit status: 0 no regression, 1 a kernel is SLOWER or a candidate verification or run failed, "
               "2 missing or malformed input.")
    p.add_argument("baseline", help="result directory (results/<machine>/<date-time>/, or results/<machine>/ for its newest run)")
    p.add_argument("candidate", help="result directory of the candidate")
    p.add_argument("--threshold", type=float, default=0.05, help="smallest relative change reported (default 0.05 = 5%%)")
    p.add_argument("--mad-factor", type=float, default=3.0, help="noise multiple: threshold = max(--threshold, F x relative MAD) (default 3)")
    p.add_argument("--alpha", type=float, default=0.01,
                   help="false-alarm rate of the Mann-Whitney U test per kernel, used when both sides have at "
                        f"least {MIN_SAMPLES} repetition samples (default 0.01)")
    p.add_argument("--out", metavar="DIR",
                   help="directory for compare.md and compare.html (default: the candidate's result directory; "
                        "when that is inside the source checkout, ./copa-results/compare/ or $COPA_RESULTS/compare/)")
    p.add_argument("--markdown", metavar="FILE", help="Markdown report path (default: OUT/compare.md)")
    p.add_argument("--html", metavar="FILE", help="HTML report path (default: OUT/compare.html)")
    p.add_argument("--mode", choices=("auto", "regression", "machines"), default="auto",
                   help="regression: the same cases (app.size.backend) of one machine, baseline vs candidate; "
                        "machines: two machines (or backends) by app case, FOM ratios and the suite score; "
                        "auto (default): machines when the sets come from different machines or share no backend")
    p.add_argument("--machines", dest="mode", action="store_const", const="machines", help="the same as --mode machines")
    p.add_argument("--efficiency-threshold", type=float, default=0.05,
                   help="scaling studies (scaling.json in both): flag a parallel efficiency that fell by more "
                        "than this (absolute; default 0.05 = 5 points)")
    p.add_argument("--version", action="version", version=metadata.version_text("copa-compare"))
    args = p.parse_args(argv)
    if args.threshold < 0:
        raise InputError(f"--threshold: must not be negative, got {args.threshold}")
    if not 0 < args.alpha < 1:
        raise InputError(f"--alpha: must be between 0 and 1, got {args.alpha}")
    if args.mad_factor < 0:
        raise InputError(f"--mad-factor: must not be negative, got {args.mad_factor}")
    if all(os.path.isfile(os.path.join(d, scaling.SCALING_FILE)) for d in (args.baseline, args.candidate)):
        return compare_scaling(args)
    if args.out is None:
        args.out = default_out(args.candidate)
    md_path = args.markdown or os.path.join(args.out, "compare.md")
    html_path = args.html or os.path.join(args.out, "compare.html")
    check_output_dir(args.out, "--out")
    check_output_file(md_path, "--markdown" if args.markdown else "--out")
    check_output_file(html_path, "--html" if args.html else "--out")
    base, cand = ResultSet(args.baseline), ResultSet(args.candidate)
    if args.mode == "machines" or (args.mode == "auto" and different_machines(base, cand)):
        return compare_machines(base, cand, md_path, html_path, args.out)
    comparison = Comparison(base, cand, args.threshold, args.mad_factor, args.alpha)

    os.makedirs(args.out, exist_ok=True)
    with open(md_path, "w") as f:
        f.write(markdown_report(comparison))
    with open(html_path, "w") as f:
        f.write(html_report(comparison))

    print(f"baseline:  {comparison.base.dir}\ncandidate: {comparison.cand.dir}\n")
    if comparison.cases:
        print(text_table(KERNEL_HEADERS, kernel_rows(comparison)))
        print()
    for r in comparison.failed_verifications:
        print(f"VERIFICATION FAILED in the candidate: {case_label(r)} ({os.path.basename(r.path)})")
    for e in comparison.failed_runs:
        print(f"RUN FAILED in the candidate: {e.get('app')} {e.get('backend', '')}: {e.get('status')}")
    for r in comparison.not_verified:
        print(f"NOT VERIFIED in the candidate (neither pass nor fail): {case_label(r)}: {r.not_verified_reason}")
    print(f"{len(comparison.cases)} cases compared, {len(comparison.only_base)} only in the baseline, "
          f"{len(comparison.only_cand)} only in the candidate; kernels: {comparison.count(SLOWER)} SLOWER, "
          f"{comparison.count(SAME)} SAME, {comparison.count(FASTER)} FASTER")
    print(f"reports: {md_path} {html_path}")
    if not comparison.cases and not comparison.failed():
        print("copa-compare: no case (app.size.backend) is in both sets: nothing was compared "
              "(--mode machines compares different machines or backends)", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_CHECK_FAILED if comparison.failed() else EXIT_OK


def default_out(candidate):
    """The report goes beside the new results (the candidate's run directory), except into the source
    checkout (committed baselines are not written to): there under the result root copa-run uses."""
    try:
        target = resolve_set_dir(candidate)
    except InputError:
        return "."  # the missing set is reported by the comparison itself, after the output check
    inside = os.path.commonpath([os.path.realpath(target), os.path.realpath(REPO)]) == os.path.realpath(REPO)
    return os.path.join(default_results_root(), "compare") if inside else target


def different_machines(base, cand):
    """Auto mode: the sets come from different machines, or ran no backend in common."""
    backends = [{r.backend for r in s.results.values()} for s in (base, cand)]
    return base.machine_name() != cand.machine_name() or not (backends[0] & backends[1])


def compare_machines(base, cand, md_path, html_path, out_dir):
    mc = MachineComparison(base, cand)
    os.makedirs(out_dir, exist_ok=True)
    with open(md_path, "w") as f:
        f.write(markdown_report(mc, machines=True))
    with open(html_path, "w") as f:
        f.write(html_report(mc, machines=True))
    print_summary(mc, md_path, html_path)
    if not mc.cases:
        print("copa-compare: no case (app + size + problem) ran on both machines: nothing was compared",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK
