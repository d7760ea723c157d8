#!/usr/bin/env python3
"""Summarise a CSV file into workspace/out/report.md: total of one numeric
column per group, with each group's share. Standard library only, plus the
vendored lib/tabulate_lite. Runs the same under python3 and under skillrun."""

import argparse
import csv
import json
import os
import sys
from collections import defaultdict

from tabulate_lite import markdown_table

WORKSPACE = os.environ.get("WORKSPACE", "/workspace")


def is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def main(argv):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("csv", help="CSV file, relative to the workspace")
    p.add_argument("--group", help="column to group by (default: the first)")
    p.add_argument("--sum", dest="total", help="numeric column to total (default: the last numeric one)")
    args = p.parse_args(argv)

    config = {}
    config_path = os.path.join(WORKSPACE, "report.json")
    if os.path.exists(config_path):
        with open(config_path, encoding="utf-8") as f:
            config = json.load(f)

    with open(os.path.join(WORKSPACE, args.csv), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print(f"{args.csv}: no rows", file=sys.stderr)
        return 1
    columns = list(rows[0].keys())
    group = args.group or config.get("group") or columns[0]
    numeric = [c for c in columns if all(is_number(r[c]) for r in rows)]
    total_col = args.total or config.get("sum") or (numeric[-1] if numeric else None)
    for name, col in (("--group", group), ("--sum", total_col)):
        if col not in columns:
            print(f"{args.csv}: no column {col!r} for {name} (columns: {', '.join(columns)})", file=sys.stderr)
            return 2

    totals = defaultdict(float)
    for r in rows:
        totals[r[group]] += float(r[total_col])
    grand = sum(totals.values())
    table = [(g, f"{t:.2f}", f"{100 * t / grand:.1f}%") for g, t in sorted(totals.items(), key=lambda kv: -kv[1])]

    out_dir = os.path.join(WORKSPACE, "out")
    os.makedirs(out_dir, exist_ok=True)
    report = os.path.join(out_dir, "report.md")
    with open(report, "w", encoding="utf-8") as f:
        f.write(f"# {total_col} by {group}\n\n")
        f.write(f"Source: `{args.csv}`, {len(rows)} rows.\n\n")
        f.write(markdown_table([group, total_col, "share"], table, align="lrr"))
        f.write(f"\nTotal: {grand:.2f}\n")
    top = table[0]
    print(f"{len(rows)} rows, {len(table)} groups, total {total_col} {grand:.2f}; top {group}: {top[0]} ({top[2]}); wrote out/report.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
