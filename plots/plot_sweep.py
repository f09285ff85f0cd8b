#!/usr/bin/python3
"""Winner map of a `geotrain sweep`: which strategy wins where.

Usage: plot_sweep.py SWEEP_DIR
Reads SWEEP_DIR/sweep.csv only (and the spec's name from sweep.json when present) and writes
SWEEP_DIR/winner_map.png: the first varied key on x, the second on y (log scale when the values
span two decades or more), one colour per strategy, one panel per combination of the other
varied keys. Each cell names its margin over the runner-up; grey cells had no valid strategy.
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
from matplotlib.patches import Patch  # noqa: E402

# Units as the scenario files write them, scaled to SI (bits for bandwidths).
UNITS = {
    "": 1, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "min": 60,
    "bps": 1, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9, "tbps": 1e12,
    "bit/s": 1, "kbit/s": 1e3, "mbit/s": 1e6, "gbit/s": 1e9,
    "bps_bytes": 8, "kbps_bytes": 8e3, "mbps_bytes": 8e6, "gbps_bytes": 8e9,
}
BYTE_RATES = {"Bps": 8, "kBps": 8e3, "KBps": 8e3, "MBps": 8e6, "GBps": 8e9, "TBps": 8e12}


def numeric(text):
    """'300Mbps' -> 3e8, '150ms' -> 0.15, '32' -> 32; None when not a number with a known unit."""
    m = re.fullmatch(r"\s*([-+]?[0-9.]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z/]*)\s*", text)
    if not m:
        return None
    value, unit = float(m.group(1)), m.group(2)
    if unit in BYTE_RATES:
        return value * BYTE_RATES[unit]
    scale = UNITS.get(unit.lower())
    return None if scale is None else value * scale


class Axis:
    """Positions of one varied key's values: log or linear when numeric, else categories."""

    def __init__(self, key, values):
        self.key = key
        self.values = values
        nums = [numeric(v) for v in values]
        self.numeric = all(n is not None for n in nums) and len(set(nums)) == len(nums)
        self.log = self.numeric and min(nums) > 0 and max(nums) / min(nums) >= 100
        order = sorted(range(len(values)), key=lambda i: nums[i]) if self.numeric else range(len(values))
        self.values = [values[i] for i in order]
        nums = [nums[i] for i in order] if self.numeric else list(range(len(values)))
        self.pos = {v: (math.log10(n) if self.log else n) for v, n in zip(self.values, nums)}

    def edges(self):
        p = [self.pos[v] for v in self.values]
        if len(p) == 1:
            return [p[0] - 0.5, p[0] + 0.5]
        mids = [(a + b) / 2 for a, b in zip(p, p[1:])]
        return [p[0] - (mids[0] - p[0])] + mids + [p[-1] + (p[-1] - mids[-1])]


def read(sweep_dir):
    with open(sweep_dir / "sweep.csv", newline="") as f:
        reader = csv.DictReader(f)
        fields = reader.fieldnames
        rows = list(reader)
    keys = fields[fields.index("point") + 1:fields.index("strategy")]
    name = sweep_dir.name
    meta = sweep_dir / "sweep.json"
    if meta.exists():
        name = json.loads(meta.read_text()).get("spec", {}).get("name", name)
    return name, keys, rows


def values_of(rows, key):
    seen = []
    for r in rows:
        if r[key] not in seen:
            seen.append(r[key])
    return seen


def draw_panel(ax, rows, xa, ya, colour, strategies, short=None):
    cells = {}
    for r in rows:
        cell = cells.setdefault((r[xa.key], r[ya.key] if ya else ""), {"winner": None})
        if r["winner"] == "true":
            cell["winner"] = r["strategy"]
            cell["margin"] = r["margin_to_runner_up"]
    xe, ye = xa.edges(), ya.edges() if ya else [0, 1]
    for (xv, yv), cell in cells.items():
        i = xa.values.index(xv)
        j = ya.values.index(yv) if ya else 0
        x0, x1, y0, y1 = xe[i], xe[i + 1], ye[j], ye[j + 1]
        face = colour[cell["winner"]] if cell["winner"] else "#d9d9d9"
        ax.add_patch(plt.Rectangle((x0, y0), x1 - x0, y1 - y0, facecolor=face, edgecolor="white",
                                   hatch=None if cell["winner"] else "//"))
        label = "none"
        if cell["winner"]:
            # Many or long names: the cell names the winner by its legend number.
            name = cell["winner"] if short is None else short[cell["winner"]]
            label = f"{name}\n×{float(cell['margin']):.2f}" if cell.get("margin") else name
        ax.text((x0 + x1) / 2, (y0 + y1) / 2, label, ha="center", va="center", fontsize=6.5)
    ax.set_xlim(xe[0], xe[-1])
    ax.set_ylim(ye[0], ye[-1])
    ax.set_xticks([xa.pos[v] for v in xa.values], xa.values, rotation=45, ha="right", fontsize=8)
    if ya:
        ax.set_yticks([ya.pos[v] for v in ya.values], ya.values, fontsize=8)
    else:
        ax.set_yticks([])


def main():
    sweep_dir = Path(sys.argv[1])
    name, keys, rows = read(sweep_dir)
    strategies = values_of(rows, "strategy")
    if len(strategies) <= 10:
        palette = plt.get_cmap("tab10").colors
    else:  # tab20's dark shades first, then the light ones: neighbours in the legend differ in hue
        tab20 = plt.get_cmap("tab20").colors
        palette = tab20[0::2] + tab20[1::2]
    colour = {s: palette[i % len(palette)] for i, s in enumerate(strategies)}
    # Cells fit about 10 characters: longer names (or more than 10 strategies) go by number.
    short = None
    if len(strategies) > 10 or max(len(s) for s in strategies) > 10:
        short = {s: str(i + 1) for i, s in enumerate(strategies)}
    xa = Axis(keys[0], values_of(rows, keys[0])) if keys else None
    ya = Axis(keys[1], values_of(rows, keys[1])) if len(keys) > 1 else None
    facet_keys = keys[2:]
    facets = list(itertools.product(*[values_of(rows, k) for k in facet_keys])) or [()]
    cols = min(len(facets), 3)
    nrows = math.ceil(len(facets) / cols)
    panel_width = max(5.2, 0.32 * len(xa.values)) if xa else 5.2  # room for each column's label
    fig, axes = plt.subplots(nrows, cols, figsize=(panel_width * cols, 4.4 * nrows + 1.2), squeeze=False)
    for ax, facet in zip(axes.flat, facets):
        chosen = [r for r in rows if all(r[k] == v for k, v in zip(facet_keys, facet))]
        if xa is None:
            ax.text(0.5, 0.5, "no varied key", ha="center")
            continue
        draw_panel(ax, chosen, xa, ya, colour, strategies, short)
        ax.set_title(", ".join(f"{k} = {v}" for k, v in zip(facet_keys, facet)) or name, fontsize=9)
        ax.set_xlabel(f"{xa.key}{' (log scale)' if xa.log else ''}", fontsize=8)
        if ya:
            ax.set_ylabel(f"{ya.key}{' (log scale)' if ya.log else ''}", fontsize=8)
    for ax in list(axes.flat)[len(facets):]:
        ax.axis("off")
    criterion = {"throughput": "highest throughput (tokens/s)",
                 "time_per_work": "lowest time per unit of work (s per token / statistical efficiency)"}
    crit = criterion.get(rows[0]["criterion"], rows[0]["criterion"]) if rows else "?"
    fig.suptitle(f"Which strategy wins where: sweep '{name}' (geotrain sweep, simulated)\n"
                 f"winner by {crit}; cell text: winner{' (legend number)' if short else ''} and its margin over "
                 "the runner-up", fontsize=11)
    handles = [Patch(facecolor=colour[s], label=s if short is None else f"{short[s]} {s}") for s in strategies]
    handles.append(Patch(facecolor="#d9d9d9", hatch="//", label="no valid strategy"))
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 9), fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(sweep_dir / "winner_map.png", dpi=110)


if __name__ == "__main__":
    main()
