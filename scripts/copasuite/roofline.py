"""copa-roofline: roofline charts (PNG and SVG) from result directories.

Per machine, backend and size: every kernel of every app as a labelled point at (arithmetic intensity
= FLOPs / bytes per call, achieved GFLOP/s = FLOPs / median time), under the roofs of the measured
ceilings: the bandwidth roof triad_GBs x intensity, capped by the FP64 and FP32 FMA peaks
(Williams, Waterman, Patterson, CACM 2009). Per app as well: its kernels on every backend of the
machine, each backend with its own roofs. Kernels that declare no FLOPs or no bytes have no place on
the chart; they are named in a note under it."""
import argparse
import os
from collections import defaultdict

from . import labels, metadata
from .errors import EXIT_OK, InputError
from .resultset import ResultSet

MARKERS = {"fp64": "o", "fp32": "^"}
BACKEND_COLOURS = {"serial": "tab:gray", "openmp": "tab:blue", "cuda": "tab:green", "hip": "tab:red"}


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def collect(dirs):
    """{machine: [(result, ceilings of its backend or None)]} over the given result directories."""
    by_machine = defaultdict(list)
    for d in dirs:
        rs = ResultSet(d)
        name = rs.machine_name()
        for r in rs.results.values():
            by_machine[name].append((r, rs.ceilings_for(r.backend)))
    return by_machine


def _roof_peaks(ceilings):
    return [float(ceilings.get(k) or 0) for k in ("fp64_GFLOPs", "fp32_GFLOPs")]


def _roofs(ax, ceilings, xmin, xmax, colour, tag, taken):
    """Draws FP64 (solid) and FP32 (dashed) roofs. The FP64 label sits under its roof and the FP32
    label over its own, at the right edge, so the two never share a line even when the peaks are
    close; a label that would still touch one placed before (another backend's roofs) moves down.
    taken: the label boxes placed so far (display pixels), extended here."""
    bw = float(ceilings.get("triad_GBs") or 0)
    for key, style, label, above in (("fp64_GFLOPs", "-", "FP64", False), ("fp32_GFLOPs", "--", "FP32", True)):
        peak = float(ceilings.get(key) or 0)
        if bw <= 0 or peak <= 0:
            continue
        ridge = peak / bw
        xs = [xmin, ridge, xmax] if xmin < ridge < xmax else [xmin, xmax]
        ys = [min(bw * x, peak) for x in xs]
        ax.plot(xs, ys, style, color=colour, linewidth=1.4, alpha=0.8)
        text = f"{tag}{label} {peak / 1000:.3g} TFLOP/s" if peak >= 1000 else f"{tag}{label} {peak:.3g} GFLOP/s"
        px, py = ax.transData.transform((xmax, peak))
        to_px = ax.figure.dpi / 72  # offsets are in points, boxes in display pixels

        def box_at(dy):
            return labels.text_box(px - 4 * to_px, py + dy * to_px, text, 7 * to_px, "right",
                                   "bottom" if above else "top")
        dy = 3 if above else -3
        while any(labels.overlap(box_at(dy), b) for b in taken):
            dy -= 9
        taken.append(box_at(dy))
        ax.annotate(text, (xmax, peak), xytext=(-4, dy), textcoords="offset points", ha="right",
                    va="bottom" if above else "top", fontsize=7, color=colour)
    top = max(_roof_peaks(ceilings))
    if bw > 0 and top > 0:
        x_label = max(xmin * 1.5, top / bw / 5)
        ax.annotate(f"{tag}triad {bw:.4g} GB/s", (x_label, bw * x_label), xytext=(-4, 6),
                    textcoords="offset points", fontsize=7, color=colour, ha="right")
        px, py = ax.transData.transform((x_label, bw * x_label))
        to_px = ax.figure.dpi / 72
        taken.append(labels.text_box(px - 4 * to_px, py + 6 * to_px, f"{tag}triad {bw:.4g} GB/s", 7 * to_px,
                                     "right", "bottom"))


def _chart(plt, title, points, roofs, out_base, note):
    """points: [(intensity, gflops, label, colour, precision)]; roofs: [(ceilings, colour, tag)]."""
    fig, ax = plt.subplots(figsize=(9, 6))
    xs = [p[0] for p in points] or [1.0]
    ys = [p[1] for p in points] or [1.0]
    ridges = [float(c.get("fp32_GFLOPs") or 0) / float(c["triad_GBs"]) for c, _, _ in roofs if c.get("triad_GBs")]
    xmin = min(xs + [0.05]) / 3
    xmax = max(xs + ridges + [10]) * 3
    top = max([max(_roof_peaks(c)) for c, _, _ in roofs] + [max(ys)])
    # Scales, limits and layout first: the labels are placed in display pixels, which these fix.
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(min(ys + [top]) / 10, top * 3)
    ax.set_xlabel("arithmetic intensity (FLOP/byte, analytic minimum bytes)")
    ax.set_ylabel("performance (GFLOP/s at the median time)")
    ax.set_title(title, fontsize=11)
    ax.grid(True, which="major", alpha=0.3)
    if not roofs:
        note = ("no ceilings found (run copa-probe); " + note).strip("; ")
    if note:
        fig.text(0.01, 0.01, note, fontsize=7, wrap=True)
    fig.text(0.99, 0.01, "o FP64   ^ FP32", fontsize=7, ha="right")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    taken = []
    for c, colour, tag in roofs:
        _roofs(ax, c, xmin, xmax, colour, tag, taken)
    seen = set()
    for x, y, label, colour, precision in points:
        legend = f"{label.split(': ')[0]}" if ": " in label else None
        ax.scatter([x], [y], marker=MARKERS.get(precision, "o"), color=colour, s=36, zorder=3,
                   edgecolors="black", linewidths=0.4,
                   label=legend if legend and legend not in seen else None)
        seen.add(legend)
    texts = [p[2].split(": ", 1)[-1] for p in points]
    pixels = [tuple(ax.transData.transform((p[0], p[1]))) for p in points]
    to_pt = 72 / fig.dpi
    for (x, y, label, colour, _), (px, py), text, (lx, ly, ha, va, leader) in zip(
            points, pixels, texts, labels.place(pixels, texts, 7 / to_pt, taken)):
        ax.annotate(text, (x, y), xytext=((lx - px) * to_pt, (ly - py) * to_pt), textcoords="offset points",
                    fontsize=7, ha=ha, va=va,
                    color=colour, arrowprops=dict(arrowstyle="-", color=colour, lw=0.5, alpha=0.7) if leader else None)
    if seen - {None}:
        ax.legend(fontsize=8, loc="lower right")
    files = [out_base + ".png", out_base + ".svg"]
    fig.savefig(files[0], dpi=130)
    fig.savefig(files[1], metadata={"Date": None})
    plt.close(fig)
    return files


def _note(skipped):
    if not skipped:
        return ""
    text = "not drawn (no FLOPs or no bytes declared): " + ", ".join(sorted(set(skipped)))
    return text if len(text) < 400 else text[:397] + "..."


def render_sets(dirs, out_dir):
    """Draws every chart of the given result directories into out_dir; returns the files written."""
    plt = _pyplot()
    os.makedirs(out_dir, exist_ok=True)
    files = []
    for machine, pairs in sorted(collect(dirs).items()):
        apps = sorted({r.app for r, _ in pairs})
        app_colour = {a: f"C{i % 10}" for i, a in enumerate(apps)}
        groups = defaultdict(list)
        for r, c in pairs:
            groups[(r.backend, r.size)].append((r, c))
        for (backend, size), members in sorted(groups.items()):
            points, skipped = [], []
            for r, _ in members:
                for k in r.kernels:
                    a = k.achieved()
                    if a is None:
                        skipped.append(f"{r.app}:{k.name}")
                    else:
                        points.append((a[0], a[1], f"{r.app}: {k.name}", app_colour[r.app], k.precision))
            ceilings = next((c for _, c in members if c), None)
            roofs = [(ceilings, "black", "")] if ceilings else []
            title = f"copa roofline: {machine}, {backend}" + (f", size {size}" if size else "")
            base = os.path.join(out_dir, "-".join(x for x in ("roofline", machine, backend, size) if x))
            files += _chart(plt, title, points, roofs, base, _note(skipped))
        for app in apps:
            for size in sorted({r.size for r, _ in pairs if r.app == app}):
                members = [(r, c) for r, c in pairs if r.app == app and r.size == size]
                points, skipped, roof_colours, roof_ceilings = [], [], {}, {}
                roof_backends = defaultdict(list)
                for r, c in sorted(members, key=lambda m: m[0].backend):
                    colour = BACKEND_COLOURS.get(r.backend, "tab:purple")
                    if c:
                        values = tuple(float(c.get(k) or 0) for k in ("triad_GBs", "fp64_GFLOPs", "fp32_GFLOPs"))
                        if r.backend not in roof_backends[values]:
                            roof_backends[values].append(r.backend)
                            roof_colours[values] = roof_colours.get(values, colour)
                            roof_ceilings[values] = c
                    for k in r.kernels:
                        a = k.achieved()
                        if a is None:
                            skipped.append(k.name)
                        else:
                            points.append((a[0], a[1], f"{r.backend}: {k.name}", colour, k.precision))
                roofs = [(roof_ceilings[v], roof_colours[v], "/".join(b) + ": ") for v, b in roof_backends.items()]
                title = f"copa roofline: {app} on {machine}" + (f", size {size}" if size else "")
                base = os.path.join(out_dir, "-".join(x for x in ("roofline", machine, app, size) if x))
                files += _chart(plt, title, points, roofs, base, _note(skipped))
    return files


def main(argv):
    p = argparse.ArgumentParser(
        prog="copa-roofline",
        description="Roofline charts (PNG and SVG) of copa result directories: one per machine, backend "
                    "and size with every kernel of every app, and one per app.")
    p.add_argument("dirs", nargs="+", metavar="RESULT_DIR",
                   help="result directories (results/<machine>/<date-time>/, or results/<machine>/ for its newest run)")
    p.add_argument("--out", metavar="DIR", help="where the charts go (default: RESULT_DIR/roofline of the first directory)")
    p.add_argument("--version", action="version", version=metadata.version_text("copa-roofline"))
    args = p.parse_args(argv)
    for d in args.dirs:
        if not os.path.isdir(d):
            raise InputError(f"{d}: no such result directory")
    from .resultset import resolve_set_dir
    out = args.out or os.path.join(resolve_set_dir(args.dirs[0]), "roofline")
    files = render_sets(args.dirs, out)
    for f in files:
        print(f)
    return EXIT_OK
