#!/usr/bin/python3
"""Heat maps of a `geotrain real probe` report: one-way delay (min RTT / 2), one-flow and N-flow
TCP goodput per ordered host pair (rows: source, columns: destination); loss noted in the cells.

Usage: plot_probe.py network.csv [network.png]  ->  the PNG (default: next to the CSV)
Exit 3 when matplotlib is missing (the probe then only warns).
"""
import csv
import os
import sys
from pathlib import Path


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (Debian: apt-get install python3-matplotlib)", file=sys.stderr)
        return 3
    src = Path(argv[1])
    out = Path(argv[2]) if len(argv) > 2 else src.with_suffix(".png")
    rows = list(csv.DictReader(src.open()))
    if not rows:
        return 0
    names = []
    for r in rows:
        for key in ("src", "dst"):
            if r[key] not in names:
                names.append(r[key])
    n = len(names)
    at = {name: i for i, name in enumerate(names)}
    flows = rows[0].get("flows", "N")
    panels = [("one_way_delay_ms", "one-way delay (ms)", "viridis_r"),
              ("one_flow_mbps", "1 flow goodput (Mbit/s)", "viridis"),
              ("n_flow_mbps", f"{flows} flows goodput (Mbit/s)", "viridis")]
    fig, axes = plt.subplots(1, 3, figsize=(4.2 * 3, 0.45 * n + 3))
    for ax, (key, title, cmap) in zip(axes, panels):
        grid = [[float("nan")] * n for _ in range(n)]
        for r in rows:
            grid[at[r["src"]]][at[r["dst"]]] = float(r[key])
        im = ax.imshow(grid, cmap=cmap)
        for r in rows:
            i, j = at[r["src"]], at[r["dst"]]
            loss = float(r["loss_pct"])
            text = f"{float(r[key]):.3g}" + (f"\n{loss:.2g}% loss" if loss > 0 else "")
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color="w")
        ax.set_xticks(range(n))
        ax.set_xticklabels(names, rotation=45, ha="right", fontsize=7)
        ax.set_yticks(range(n))
        ax.set_yticklabels(names, fontsize=7)
        ax.set_xlabel("destination")
        ax.set_ylabel("source")
        ax.set_title(title, fontsize=9)
        fig.colorbar(im, ax=ax, shrink=0.8)
    fig.suptitle(f"geotrain real probe: {src.name}", fontsize=10)
    fig.tight_layout()
    tmp = out.with_name("." + out.name + ".tmp.png")
    fig.savefig(tmp, dpi=120)
    plt.close(fig)
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
