"""copa-dashboard: one static HTML page per result directory, RESULTS_DIR/index.html, that a person
opens in a browser: the run's summary table with every case and its verdict, the roofline charts
(the SVGs copa-run or copa-roofline drew; drawn here when missing and matplotlib is available),
the scaling table of a study directory (scaling.json) and the comparison report when one lies in
the directory (compare.html: embedded). The page refers to the charts by relative path, so the
directory can be moved or served as it is. copa-run writes it at the end of every run."""
import argparse
import datetime
import html
import os

from . import metadata, scaling, summary
from .errors import EXIT_OK, InputError
from .resultset import RUN_FILE, ResultSet, read_json
from .summary import SUMMARY_HEADERS, summary_rows

PAGE = "index.html"
STYLE = ("body{font-family:sans-serif;margin:2em;max-width:100em;color:#222}"
         "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;font-size:90%;"
         "text-align:left}th{background:#eee}.PASSED{background:#d0f0d0}.FAILED{background:#f8d0d0;font-weight:bold}"
         ".NOT{background:#fff3c4}.charts img{max-width:48%;margin:0.5%;border:1px solid #ddd}"
         "iframe{width:100%;height:40em;border:1px solid #ccc}code{background:#f4f4f4}")


def _table(headers, rows, verdict_column=None):
    out = ["<table><tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in headers) + "</tr>"]
    for r in rows:
        cells = []
        for i, v in enumerate(r):
            cls = str(v).split(" ")[0] if i == verdict_column else ""
            attr = f' class="{html.escape(cls)}"' if cls in ("PASSED", "FAILED", "NOT") else ""
            cells.append(f"<td{attr}>{html.escape(str(v))}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _summary(directory):
    """(rows, verdict counts) of the summary table, from run.json's entries or, without run.json,
    from the result documents themselves."""
    run_path = os.path.join(directory, RUN_FILE)
    if os.path.exists(run_path):
        rs = ResultSet(directory)
        entries = rs.run.get("runs", [])
        results = list(rs.results.values())
    else:
        rs = ResultSet(directory)
        results = list(rs.results.values())
        entries = [{"app": r.app, "size": r.size, "backend": r.backend, "variant": r.variant,
                    "json": os.path.basename(r.path), "status": "ok"} for r in results]
    rows = summary_rows(entries, results)
    counts = {}
    for r in rows:
        counts[r[6]] = counts.get(r[6], 0) + 1
    return rs, rows, counts


def _charts(directory, draw):
    chart_dir = os.path.join(directory, "roofline")
    svgs = sorted(n for n in os.listdir(chart_dir) if n.endswith(".svg")) if os.path.isdir(chart_dir) else []
    if not svgs and draw:
        try:
            from . import roofline
            roofline.render_sets([directory], chart_dir)
            svgs = sorted(n for n in os.listdir(chart_dir) if n.endswith(".svg"))
        except Exception as e:  # noqa: BLE001 -- the page is still useful without charts
            return f"<p>Roofline charts not drawn: {html.escape(str(e))}</p>"
    if not svgs:
        return "<p>No roofline charts (<code>copa-roofline DIR</code> draws them).</p>"
    imgs = "".join(f'<a href="roofline/{html.escape(n)}"><img src="roofline/{html.escape(n)}" alt="{html.escape(n)}"></a>'
                   for n in svgs)
    return f'<div class="charts">{imgs}</div>'


def _above_roofline(rs):
    """Rows above 100% of their roofline, flagged: a ceiling, a FLOP or byte count or a time is wrong."""
    rows = [[f"{r.app} {r.size} {r.backend} {r.variant}", k.name, f"{100 * k.frac_roofline:.1f}%"]
            for r in rs.results.values() for k in r.above_roofline()]
    if not rows:
        return ""
    return ('<p class="FAILED">ABOVE ROOFLINE: these kernel rows claim more than the hardware can do '
            "(a ceiling, a FLOP or byte count, or the region's time is wrong).</p>" +
            _table(["case", "kernel", "% of roofline"], rows))


def _energy(rs, machine):
    """FOM per joule of every case on this machine, with the energy, mean power and clock state."""
    rows = []
    for r in rs.results.values():
        e = r.energy or {}
        joules, watts = e.get("joules"), e.get("mean_power_w")
        rows.append([machine, r.app, r.size, f"{r.backend}/{r.variant}", summary.fom_per_joule_text(r),
                     "-" if joules is None else f"{joules:.4g}", "-" if watts is None else f"{watts:.4g}",
                     e.get("source") or e.get("reason") or "not recorded", summary.clocks_text(r)])
    return (_table(["machine", "app", "size", "backend/variant", "FOM per joule", "joules", "mean W",
                    "source (or why none)", "clocks"], rows) +
            "<p>FOM per joule: the FOM over the mean power of the timed run (work per joule). THROTTLED: the GPU "
            "was power or thermally throttled during the timed run.</p>")


def _scaling(directory):
    path = os.path.join(directory, scaling.SCALING_FILE)
    if not os.path.exists(path):
        return None
    doc = read_json(path)
    title = f"{doc.get('study', '?')} scaling, backend {doc.get('backend', '?')}"
    return title, _table(scaling.TABLE_HEADERS, scaling.table_rows(doc))


def render(directory, draw=True):
    """The page of one result directory (a run or a scaling study)."""
    if not os.path.isdir(directory):
        raise InputError(f"{directory}: no such result directory")
    parts = []
    title = f"copa results: {os.path.basename(os.path.normpath(directory))}"
    study = _scaling(directory)
    has_results = any(n.endswith(".json") and n not in (RUN_FILE, "ceilings.json", scaling.SCALING_FILE)
                      for n in os.listdir(directory))
    if has_results and not study:
        rs, rows, counts = _summary(directory)
        machine = rs.machine_name()
        run = rs.run or {}
        git = run.get("git") or {}
        title = f"copa results: {machine}, {run.get('date', '')}".rstrip(", ")
        verdicts = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
        parts.append(f"<p>Machine <b>{html.escape(machine)}</b>; git {html.escape(str(git.get('sha', '-'))[:12])}"
                     f"{' (dirty)' if git.get('dirty') else ''}; {len(rows)} runs: {html.escape(verdicts)}.</p>")
        parts.append("<h2>Summary</h2>")
        parts.append(_table(SUMMARY_HEADERS, rows, verdict_column=6))
        parts.append("<p><i>time</i>: one repetition of the app's timed kernels (sum of median x calls / reps); "
                     "compare times between backends of one app. NOT VERIFIED: the run had no reference that "
                     "could fail, neither a pass nor a failure.</p>")
        kernels = []
        for r in rs.results.values():
            for k in r.kernels:
                frac = f"{100 * k.frac_roofline:.1f}%" if isinstance(k.frac_roofline, (int, float)) else "-"
                kernels.append([f"{r.app} {r.size} {r.backend} {r.variant}", k.name, f"{k.median:.4g}",
                                len(k.samples), frac, k.bound or "-"])
        parts.append("<h2>Kernels</h2>")
        parts.append(_table(["case", "kernel", "median (s)", "samples", "% of roofline", "bound"], kernels))
        parts.append(_above_roofline(rs))
        parts.append("<h2>Energy</h2>")
        parts.append(_energy(rs, machine))
        parts.append("<h2>Rooflines</h2>")
        parts.append(_charts(directory, draw))
    if study:
        parts.append(f"<h2>{html.escape(study[0])}</h2>")
        parts.append(study[1])
    if os.path.exists(os.path.join(directory, "compare.html")):
        parts.append('<h2>Comparison</h2><p><a href="compare.html">compare.html</a> '
                     '(<a href="compare.md">Markdown</a>)</p><iframe src="compare.html"></iframe>')
    if not parts:
        raise InputError(f"{directory}: holds no copa results, scaling study or comparison")
    stamp = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>\n"
            f"<h1>{html.escape(title)}</h1>\n" + "\n".join(parts) +
            f"\n<p><small>{html.escape(metadata.version_text('copa-dashboard'))}, {stamp}</small></p>\n"
            "</body></html>\n")


def write(directory, draw=True):
    path = os.path.join(directory, PAGE)
    text = render(directory, draw)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def main(argv):
    p = argparse.ArgumentParser(prog="copa-dashboard",
                                description="Write RESULTS_DIR/index.html: summary, verdicts, rooflines, scaling, compare.",
                                epilog="Exit status: 0 page written, 2 bad input.")
    p.add_argument("results", metavar="RESULTS_DIR", help="a copa-run result directory (or a scaling study)")
    p.add_argument("--no-charts", action="store_true", help="do not draw missing roofline charts")
    p.add_argument("--version", action="version", version=metadata.version_text("copa-dashboard"))
    args = p.parse_args(argv)
    print(f"copa-dashboard: {write(args.results, not args.no_charts)}")
    return EXIT_OK

