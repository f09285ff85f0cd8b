#!/usr/bin/python3
"""The bandwidth each strategy needs for a compute share of the iteration (default 90 %).

Usage: bandwidth_for_utilization.py SWEEP_DIR [--threshold 0.9]
Reads SWEEP_DIR/sweep.csv (a `geotrain sweep` whose first varied key is a bandwidth; its
`compute_share` column is the mean rank's compute over the iteration time, as `geotrain simulate`
prints it after "compute / comm / idle") and the spec's name from sweep.json. Writes
- SWEEP_DIR/bandwidth_for_90.csv (the threshold's percent in the name): per combination of the
  other varied keys and strategy, the smallest grid bandwidth whose share is >= the threshold
  ("never" when no grid point reaches it), its share, the share at the grid's highest bandwidth,
  and whether every higher grid bandwidth stays at or above the threshold;
- SWEEP_DIR/bandwidth_for_90.png: compute share against bandwidth, one line per strategy, one
  panel per combination of the other varied keys, the threshold dashed.
"""
import csv
import itertools
import json
import math
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot_sweep import numeric  # noqa: E402  (same folder)

def bits_per_s(text):
    """'14.7Mbps' -> 1.47e7 (bit/s); None when not a rate (plot_sweep's units)."""
    return numeric(text) if re.search(r"(bps|bit/s|Bps)\s*$", text) else None


def read(sweep_dir):
    with open(sweep_dir / "sweep.csv", newline="") as f:
        reader = csv.DictReader(f)
        fields = reader.fieldnames
        rows = list(reader)
    keys = fields[1:fields.index("strategy")]
    name = sweep_dir.name
    if (sweep_dir / "sweep.json").exists():
        name = json.loads((sweep_dir / "sweep.json").read_text())["spec"].get("name", name)
    if "compute_share" not in fields:
        sys.exit(f"{sweep_dir}/sweep.csv: no compute_share column (a sweep from an older geotrain: rerun it)")
    return name, keys, rows


def ordered(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def main():
    args = sys.argv[1:]
    threshold = 0.9
    if "--threshold" in args:
        i = args.index("--threshold")
        threshold = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1 or not 0 < threshold <= 1:
        sys.exit(__doc__)
    sweep_dir = Path(args[0])
    name, keys, rows = read(sweep_dir)
    x = keys[0]
    if any(bits_per_s(r[x]) is None for r in rows):
        sys.exit(f"bandwidth_for_utilization: the first varied key {x} is not a bandwidth")
    facet_keys = keys[1:]
    strategies = ordered(r["strategy"] for r in rows)
    facets = list(itertools.product(*[ordered(r[k] for r in rows) for k in facet_keys])) or [()]
    pct = round(100 * threshold)

    curves = {}  # (facet, strategy) -> [(bps, text, share)] sorted by bandwidth
    for r in rows:
        if r["status"] != "ok":
            continue
        share = float(r["compute_share"])
        facet = tuple(r[k] for k in facet_keys)
        curves.setdefault((facet, r["strategy"]), []).append((bits_per_s(r[x]), r[x], share))
    for pts in curves.values():
        pts.sort()

    out_csv = sweep_dir / f"bandwidth_for_{pct}.csv"
    with open(out_csv, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        # devices.count is written as `workers`, the other varied keys under their own names.
        w.writerow([("workers" if k == "devices.count" else k) for k in facet_keys] +
                   ["strategy", f"min_bandwidth_for_{pct}pct", "min_bandwidth_bps", "compute_share_at_min",
                    "compute_share_at_max_bandwidth", "holds_above"])
        for facet in facets:
            for s in strategies:
                pts = curves.get((facet, s))
                if not pts:
                    w.writerow(list(facet) + [s, "skipped", "", "", "", ""])
                    continue
                first = next((i for i, p in enumerate(pts) if p[2] >= threshold), None)
                top = f"{pts[-1][2]:.4f}"
                if first is None:
                    w.writerow(list(facet) + [s, "never", "", "", top, ""])
                    continue
                holds = all(p[2] >= threshold for p in pts[first:])
                w.writerow(list(facet) + [s, pts[first][1], f"{pts[first][0]:.6g}", f"{pts[first][2]:.4f}",
                                          top, str(holds).lower()])

    palette = plt.get_cmap("tab20").colors
    colour = {s: palette[i % len(palette)] for i, s in enumerate(strategies)}
    cols = min(len(facets), 3)
    nrows = math.ceil(len(facets) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(5.2 * cols, 3.9 * nrows + 1.4), squeeze=False,
                             sharex=True, sharey=True)
    for ax, facet in zip(axes.flat, facets):
        for i, s in enumerate(strategies):
            pts = curves.get((facet, s))
            if not pts:
                continue
            ax.plot([p[0] for p in pts], [100 * p[2] for p in pts], color=colour[s], lw=1.4,
                    ls="-" if i < 10 else "--", label=s)
        ax.axhline(100 * threshold, color="black", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_ylim(0, 102)
        ax.grid(True, which="major", lw=0.3, alpha=0.5)
        ax.set_title(", ".join(f"{k} = {v}" for k, v in zip(facet_keys, facet)) or name, fontsize=9)
        ax.set_xlabel(f"{x} (bit/s, log scale)", fontsize=8)
        ax.set_ylabel("compute share of the iteration (%)", fontsize=8)
        ax.tick_params(labelsize=8)
    for ax in list(axes.flat)[len(facets):]:
        ax.axis("off")
    fig.suptitle(f"Compute share against bandwidth: sweep '{name}' (geotrain sweep, simulated)\n"
                 f"dotted: {pct} %; bandwidth_for_{pct}.csv gives the first grid bandwidth at or above it",
                 fontsize=11)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=7, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(sweep_dir / f"bandwidth_for_{pct}.png", dpi=110)
    print(f"bandwidth_for_utilization: wrote {out_csv} and bandwidth_for_{pct}.png")


if __name__ == "__main__":
    main()
