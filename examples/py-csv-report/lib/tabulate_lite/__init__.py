"""tabulate_lite: a tiny pure-Python Markdown table formatter, vendored by
the py-csv-report skill to show that packages under a skill's lib/ are on
the import path."""

__version__ = "0.1.0"


def markdown_table(header, rows, align=None):
    """Return a GitHub-flavoured Markdown table. align is a string of
    'l' and 'r', one per column."""
    cells = [[str(c) for c in header]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    align = align or "l" * len(header)

    def fmt(row):
        out = []
        for i, c in enumerate(row):
            out.append(c.rjust(widths[i]) if align[i] == "r" else c.ljust(widths[i]))
        return "| " + " | ".join(out) + " |"

    sep = []
    for i, w in enumerate(widths):
        sep.append("-" * (w - 1) + ":" if align[i] == "r" else "-" * w)
    lines = [fmt(cells[0]), "| " + " | ".join(sep) + " |"]
    lines += [fmt(r) for r in cells[1:]]
    return "\n".join(lines) + "\n"
