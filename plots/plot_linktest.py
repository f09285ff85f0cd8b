#!/usr/bin/python3
"""Link test: configured vs achieved one-way delay and goodput (a linktest.json of geotrain
emulate or `geotrain emu linktest`).

Usage: plot_linktest.py linktest.json  ->  linktest.png next to it
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src = Path(argv[1])
    doc = json.loads(src.read_text())
    links = doc.get("links", [])
    if not links:
        return 0
    names = [f"{l['src']}→{l['dst']}" for l in links]
    conf_d = [l["configured"]["one_way_delay_s"] * 1e3 for l in links]
    got_d = [l["achieved"]["rtt_s"] * 1e3 / 2 if l["achieved"].get("rtt_s") else 0 for l in links]
    ceil = [l["configured"]["payload_ceiling_bps"] / 1e6 for l in links]
    wire = [l["configured"]["bandwidth_bps"] / 1e6 for l in links]
    got_b = [(l["achieved"].get("goodput_bps") or 0) / 1e6 for l in links]
    x = range(len(links))
    fig, axes = plt.subplots(1, 2, figsize=(max(8, 1.1 * len(links) + 4), 4))
    axes[0].bar([i - 0.2 for i in x], conf_d, 0.4, label="configured")
    axes[0].bar([i + 0.2 for i in x], got_d, 0.4, label="achieved (RTT / 2)")
    axes[0].set_ylabel("one-way delay (ms)")
    axes[1].bar([i - 0.2 for i in x], ceil, 0.4, label="configured × 1448/1514 (payload ceiling)")
    axes[1].bar([i + 0.2 for i in x], got_b, 0.4, label="achieved goodput")
    axes[1].scatter(list(x), wire, marker="_", s=200, color="k", label="configured wire rate")
    axes[1].set_ylabel("Mbit/s")
    for ax in axes:
        ax.set_xticks(list(x))
        ax.set_xticklabels(names, rotation=30, fontsize=7)
        ax.legend(fontsize=7)
        ax.grid(True, axis="y", alpha=0.3)
    status = "passed" if doc.get("passed") else "FAILED"
    fig.suptitle(f"link test {doc.get('scenario', '')} ({status}; bandwidth ×{doc.get('bandwidth_scale', 1)})", fontsize=10)
    fig.tight_layout()
    fig.savefig(src.with_suffix(".png"), dpi=120)
    plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
