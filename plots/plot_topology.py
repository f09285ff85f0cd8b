#!/usr/bin/python3
"""Heat maps of a network written by `geotrain topology --format json` (delay and bandwidth).

Usage: plot_topology.py topology.json [out.png]
Reads only the results file; writes a PNG next to it unless told otherwise.
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def region_ticks(devices):
    """Tick at the first device of each run of one region, labelled with the region."""
    ticks, labels, last = [], [], None
    for d in devices:
        if d["region"] != last:
            ticks.append(d["id"])
            labels.append(d["region"])
            last = d["region"]
    return ticks, labels


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src = Path(argv[1])
    doc = json.loads(src.read_text())
    out = Path(argv[2]) if len(argv) > 2 else src.with_suffix(".png")
    ticks, labels = region_ticks(doc["devices"])
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
    for ax, key, title, cmap in (
        (axes[0], "delay_ms", "one-way delay (ms)", "viridis"),
        (axes[1], "bandwidth_Gbps", "bandwidth (Gbit/s)", "magma"),
    ):
        image = ax.imshow(doc[key], cmap=cmap, interpolation="nearest")
        ax.set_title(title)
        ax.set_xticks(ticks)
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
        ax.set_yticks(ticks)
        ax.set_yticklabels(labels, fontsize=7)
        fig.colorbar(image, ax=ax, shrink=0.8)
    fig.suptitle(f"{src.name}: {len(doc['devices'])} devices")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
