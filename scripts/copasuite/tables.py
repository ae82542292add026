"""Plain-text and Markdown tables, and number formats shared by the tools."""


def text_table(headers, rows):
    """Columns padded to their widest cell; numbers right-aligned, text left-aligned."""
    cells = [[str(c) for c in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    numeric = [all(_looks_numeric(r[i]) for r in cells) and cells for i in range(len(headers))]

    def line(values):
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric)).rstrip()

    out = [line(headers), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells]
    return "\n".join(out)


def markdown_table(headers, rows):
    def esc(v):
        return str(v).replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(esc(h) for h in headers) + " |",
           "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def _looks_numeric(s):
    s = s.strip()
    for unit in (" s", " ms", " us"):
        s = s[:-len(unit)] if s.endswith(unit) else s
    s = s.rstrip("x%")
    try:
        float(s)
        return True
    except ValueError:
        return s in ("", "-")


def fmt_time(seconds):
    """Seconds with a unit that keeps three significant digits readable."""
    if seconds is None:
        return "-"
    s = abs(seconds)
    if s >= 1:
        return f"{seconds:.3f} s"
    if s >= 1e-3:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds * 1e6:.2f} us"


def fmt_num(x, digits=4):
    if x is None:
        return "-"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    return f"{x:.{digits}g}"


def fmt_ratio(x):
    return "-" if x is None else f"{x:.2f}x"


def fmt_pct(x):
    return "-" if x is None else f"{x * 100:+.1f}%"
