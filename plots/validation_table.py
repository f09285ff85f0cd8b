#!/usr/bin/python3
"""Markdown table of a validation summary (for the README).

Usage: validation_table.py results/validation/summary.csv
Columns a summary lacks (mean, p90 error: files written before them) are left out.
"""
import csv
import statistics
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    cases = {}
    for r in rows:
        cases.setdefault((r["variant"], r["network"]), {})[r["network_model"]] = r
    models = sorted({r["network_model"] for r in rows})
    # The judged error is on the median completion interval; "mean err" is the same comparison
    # on the mean interval (throughput), where the file has it.
    has_mean = "mean_error_pct" in rows[0]
    # The error of the p90 of the same intervals (the spread), where the file has it.
    has_p90 = rows[0].get("p90_error_pct") not in (None, "")
    per_model = 2 + has_mean + has_p90
    head = "| variant | network | measured s (min–max) | " + " | ".join(
        f"{m} s | {m} error" + (f" | {m} mean err" if has_mean else "") + (f" | {m} p90 err" if has_p90 else "")
        for m in models) + " |"
    print(head)
    print("|" + "---|" * (3 + per_model * len(models)))
    for (v, n), by in sorted(cases.items()):
        any_row = next(iter(by.values()))
        cells = [v, n, f"{float(any_row['measured_s']):.3f} ({float(any_row['measured_min_s']):.3f}–"
                       f"{float(any_row['measured_max_s']):.3f})"]
        for m in models:
            r = by.get(m)
            cells += [f"{float(r['predicted_s']):.3f}", f"{float(r['error_pct']):+.1f}%"] if r else ["", ""]
            if has_mean:
                cells += [f"{float(r['mean_error_pct']):+.1f}%" if r else ""]
            if has_p90:
                cells += [f"{float(r['p90_error_pct']):+.1f}%" if r else ""]
        print("| " + " | ".join(cells) + " |")
    print()
    for m in models:
        e = [abs(float(r["error_pct"])) for r in rows if r["network_model"] == m]
        print(f"- `{m}`: {len(e)} cases, median |error| {statistics.median(e):.1f}%, max {max(e):.1f}%, "
              f"{sum(1 for x in e if x <= 5)} within 5%, {sum(1 for x in e if x <= 15)} within 15%")
        if has_mean:
            e = [abs(float(r["mean_error_pct"])) for r in rows if r["network_model"] == m]
            print(f"- `{m}` on the mean interval: median |error| {statistics.median(e):.1f}%, max {max(e):.1f}%, "
                  f"{sum(1 for x in e if x <= 5)} within 5%, {sum(1 for x in e if x <= 15)} within 15%")
        if has_p90:
            e = [abs(float(r["p90_error_pct"])) for r in rows if r["network_model"] == m]
            print(f"- `{m}` on the p90 interval: median |error| {statistics.median(e):.1f}%, max {max(e):.1f}%, "
                  f"{sum(1 for x in e if x <= 5)} within 5%, {sum(1 for x in e if x <= 15)} within 15%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
