"""The two renderings of a Comparison: Markdown (for a pull request or a wiki) and a self-contained
HTML page (verdicts coloured). Both hold the same sections in the same order."""
import html

from .compare_model import (CASE_HEADERS, FASTER, KERNEL_HEADERS, SAME, SLOWER, case_label, case_rows,
                            kernel_rows)
from .compare_machines import sections
from .tables import markdown_table


def _sections(c):
    """[(title, text paragraphs, (headers, rows) or None)] shared by both renderings."""
    verdict = "REGRESSION" if c.failed() else "no regression"
    head = [f"Baseline: `{c.base.dir}`; candidate: `{c.cand.dir}`.",
            f"**{verdict}**: {c.count(SLOWER)} kernels SLOWER, {c.count(SAME)} SAME, {c.count(FASTER)} FASTER "
            f"over {len(c.cases)} shared cases; {len(c.failed_verifications)} candidate verifications failed, "
            f"{len(c.not_verified)} candidate runs NOT VERIFIED (neither pass nor fail), "
            f"{len(c.failed_runs)} candidate runs failed.",
            f"A kernel is SLOWER (FASTER) when its median time grew (shrank) by more than {c.threshold * 100:g}% "
            f"and, where both sides stored at least 5 repetition samples, the two-sided Mann-Whitney U test "
            f"rejects 'no change' at alpha = {c.alpha:g} (the false-alarm rate per kernel); with fewer samples "
            f"the median rule applies: a change beyond max({c.threshold * 100:g}%, {c.mad_factor:g} x the larger "
            f"relative MAD of the two sets' repetitions)."]
    sections = [("Summary", head, None)]
    problems = [f"Verification FAILED in the candidate: {case_label(r)} "
                f"({r.verification.get('metric', '')} = {r.verification.get('value')}, "
                f"tolerance {r.verification.get('tolerance')})" for r in c.failed_verifications]
    problems += [f"Run failed in the candidate: {e.get('app')} {e.get('size', '')} {e.get('backend', '')}: "
                 f"{e.get('status')} {e.get('error', '')}".rstrip() for e in c.failed_runs]
    problems += [f"Kernel SLOWER: {case_label(case.cand)} / {k.name}: ratio {k.ratio:.3f} "
                 f"(threshold {k.threshold * 100:.1f}%)" for case, k in c.kernels() if k.verdict == SLOWER]
    if problems:
        sections.append(("Problems", problems, None))
    sections.append(("Kernels", [] if c.cases else ["No case is present in both sets."],
                     (KERNEL_HEADERS, kernel_rows(c)) if c.cases else None))
    if c.cases:
        sections.append(("FOM and verification", [], (CASE_HEADERS, case_rows(c))))
    missing = []
    if c.only_base:
        missing.append("Only in the baseline: " + ", ".join(c.only_base))
    if c.only_cand:
        missing.append("Only in the candidate: " + ", ".join(c.only_cand))
    for case in c.cases:
        if case.only_base or case.only_cand:
            missing.append(f"{case_label(case.cand)}: kernels only in the baseline: {', '.join(case.only_base) or '-'}; "
                           f"only in the candidate: {', '.join(case.only_cand) or '-'}")
    if missing:
        sections.append(("Cases and kernels present on one side only", missing, None))
    meta_rows = [[k, _short(b), _short(v)] for k, b, v in c.metadata]
    sections.append(("Metadata that differs", [] if meta_rows else ["None."],
                     (["key", "baseline", "candidate"], meta_rows) if meta_rows else None))
    return sections


def _short(v):
    text = "-" if v is None else str(v)
    return text if len(text) <= 160 else text[:157] + "..."


BULLET_SECTIONS = ("Problems", "Cases and kernels present on one side only", "Cases on one side only")


def markdown_report(c, machines=False):
    """c: a Comparison (regression mode) or, with machines=True, a MachineComparison."""
    if machines:
        return render_markdown("copa machine comparison", sections(c))
    return render_markdown("copa performance comparison", _sections(c))


def html_report(c, machines=False):
    if machines:
        return render_html("copa machine comparison", sections(c))
    return render_html("copa performance comparison", _sections(c))


def render_markdown(heading, sections):
    out = [f"# {heading}", ""]
    for title, paragraphs, table in sections:
        out += [f"## {title}", ""]
        bullet = title in BULLET_SECTIONS
        for p in paragraphs:
            out += ["- " + p] if bullet else [p, ""]
        if bullet and paragraphs:
            out.append("")
        if table:
            out += [markdown_table(*table), ""]
    return "\n".join(out)


VERDICT_CLASSES = {SLOWER: "slower", FASTER: "faster", "FAILED": "slower"}


def render_html(heading, sections):
    def cell(v):
        text = html.escape(str(v))
        cls = VERDICT_CLASSES.get(str(v).split(" ")[0])
        return f'<td class="{cls}">{text}</td>' if cls else f"<td>{text}</td>"

    def inline(p):
        parts = html.escape(p).split("**")
        text = "".join(f"<b>{s}</b>" if i % 2 else s for i, s in enumerate(parts))
        parts = text.split("`")
        return "".join(f"<code>{s}</code>" if i % 2 else s for i, s in enumerate(parts))

    body = [f"<h1>{html.escape(heading)}</h1>"]
    for title, paragraphs, table in sections:
        body.append(f"<h2>{html.escape(title)}</h2>")
        body += [f"<p>{inline(p)}</p>" for p in paragraphs]
        if table:
            headers, rows = table
            body.append("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in headers) + "</tr>")
            body += ["<tr>" + "".join(cell(v) for v in r) + "</tr>" for r in rows]
            body.append("</table>")
    style = ("body{font-family:sans-serif;margin:2em;max-width:90em}"
             "table{border-collapse:collapse;margin:1em 0}"
             "td,th{border:1px solid #ccc;padding:3px 8px;font-size:90%;text-align:left}"
             "th{background:#eee}.slower{background:#f8d0d0;font-weight:bold}.faster{background:#d0f0d0}")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(heading)}</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
