#!/usr/bin/python3
"""Convergence of `geotrain schedule` runs: best total cost after each candidate.

Usage: plot_schedule_convergence.py out.png convergence.csv [label=convergence.csv ...]
Each CSV is a run's convergence.csv (candidate,phase,cost_s,best_cost_s); an optional
"label=" prefix names the curve (default: the scheduler folder name).
"""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_curve(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return [int(r["candidate"]) for r in rows], [float(r["best_cost_s"]) for r in rows]


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    fig, ax = plt.subplots(figsize=(7, 4))
    for arg in argv[2:]:
        label, _, path = arg.rpartition("=")
        x, y = read_curve(path)
        ax.plot(x, y, label=label or Path(path).parent.name)
    ax.set_xlabel("candidates evaluated (population, then trials)")
    ax.set_ylabel("best total cost (s)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(argv[1], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
