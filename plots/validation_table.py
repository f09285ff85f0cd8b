#!/usr/bin/python3
"""Markdown table of a validation summary (for docs/validation.md).

Usage: validation_table.py results/validation/summary.csv [--groups]
Columns a summary lacks (mean, p90 error: files written before them) are left out. A case
measured several times (compare --runs) says so beside its measured figure (the median run's).
--groups: one row per world size and model instead (networks caseN, caseN_w8, caseN_w16,
caseN_mini), with the median and largest |error| of each.
"""
import csv
import statistics
import sys


GROUPS = [("", "4 workers, gpt-tiny"), ("_w8", "8 workers, gpt-tiny"),
          ("_w16", "16 workers, gpt-tiny"), ("_mini", "4 workers, gpt-mini")]


def group_of(network):
    for suffix, label in reversed(GROUPS):
        if suffix and network.endswith(suffix):
            return label
    return GROUPS[0][1]


def groups_table(rows):
    """Median and largest |error| per world size, for each network model."""
    models = sorted({r["network_model"] for r in rows})
    has_p90 = rows[0].get("p90_error_pct") not in (None, "")
    print("| cases | model | n | median \\|error\\| | max \\|error\\| | within 5% |"
          + (" p90 median \\|error\\| |" if has_p90 else ""))
    print("|---|---|---|---|---|---|" + ("---|" if has_p90 else ""))
    for _, label in GROUPS + [(None, "all")]:
        for m in models:
            sel = [r for r in rows if r["network_model"] == m and (label == "all" or group_of(r["network"]) == label)]
            if not sel:
                continue
            e = [abs(float(r["error_pct"])) for r in sel]
            cells = [label, m, str(len(e)), f"{statistics.median(e):.1f}%", f"{max(e):.1f}%",
                     str(sum(1 for x in e if x <= 5))]
            if has_p90:
                cells.append(f"{statistics.median(abs(float(r['p90_error_pct'])) for r in sel):.1f}%")
            print("| " + " | ".join(cells) + " |")
    return 0


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    if "--groups" in argv[2:]:
        return groups_table(rows)
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
        # A case measured more than once (compare --runs): its figures are the median run's.
        if (any_row.get("measured_runs") or "1") not in ("", "1"):
            cells[2] += f", median run of {any_row['measured_runs']}"
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
