#!/usr/bin/python3
"""Scheduler convergence from a geotrain schedule convergence.csv (candidate, phase, cost_s,
best_cost_s): the cost of every candidate and the best so far.

Usage: plot_convergence.py convergence.csv [more.csv ...]
One file: convergence.png next to it. Several (e.g. seeds or searches): one figure with a best-
so-far curve each, convergence_all.png next to the first.
"""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return ([int(r["candidate"]) for r in rows], [float(r["cost_s"]) for r in rows],
            [float(r["best_cost_s"]) for r in rows], [r["phase"] for r in rows])


def label_of(path):
    p = Path(path)
    return f"{p.parent.parent.parent.name}/{p.parent.name}" if p.parent.name else p.stem


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    files = argv[1:]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for f in files:
        cand, cost, best, phase = read(f)
        if len(files) == 1:
            ax.scatter(cand, cost, s=3, color="0.6", label="candidate cost")
            n_init = sum(1 for p in phase if p == "initial")
            ax.axvline(n_init - 0.5, color="k", ls=":", lw=0.8, label="end of initial population")
        ax.plot(cand, best, lw=1.6, label=f"best so far ({label_of(f)})" if len(files) > 1 else "best so far")
    ax.set_xscale("symlog", linthresh=10)  # the early improvements happen in the first hundreds
    ax.set_xlabel("candidate evaluated (log scale above 10)")
    ax.set_ylabel("DT-FM cost (s): DP + 2 PP")
    ax.set_title("scheduler convergence")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    out = Path(files[0]).with_name("convergence.png" if len(files) == 1 else "convergence_all.png")
    fig.savefig(out, dpi=130)
    plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
