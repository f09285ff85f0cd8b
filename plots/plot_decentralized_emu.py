#!/usr/bin/python3
"""DDP vs DiLoCo vs SD-Pipe vs AD-PSGD vs HetPipe, measured by `geotrain emulate`.

Usage: plot_decentralized_emu.py RESULTS_DIR
RESULTS_DIR holds one folder per scenario of scenarios/decentralized, each the run directory of
one emulation (summary.json with iteration_times_s, loss and the counted bytes);
scripts/run_decentralized_emu.sh writes them. Writes into RESULTS_DIR:
decentralized_emu.csv (per scenario: training steps, wall-clock, median time per step, bytes
counted on the wire per step, first and last loss) and decentralized_emu.png (loss against
wall-clock and against training steps).
"""
import csv
import json
import sys
from itertools import accumulate
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot_decentralized import steps_per_iteration  # noqa: E402  (same folder)


def emu_summaries(results):
    """(run folder, its summary.json) of every emulation one level below `results`, by name."""
    for summary in sorted(Path(results).glob("*/summary.json")):
        s = json.loads(summary.read_text())
        if s.get("format") == "geotrain-emu-summary":
            yield summary.parent, s


def read(results):
    runs = []
    for folder, s in emu_summaries(results):
        name = folder.name
        h = steps_per_iteration(name)
        times = s["iteration_times_s"]
        loss = s["loss"]
        counted = s["bytes"].get("counted_per_iteration")
        runs.append({
            "scenario": name,
            "strategy": s["strategy"],
            "steps_per_iteration": h,
            "iterations": len(times),
            "training_steps": len(times) * h,
            "wall_clock_s": sum(times),
            "median_time_per_step_s": s["iteration_time_s"] / h,
            "bytes_per_step": counted / h if counted is not None else "",
            "first_loss": loss[0] if loss else "",
            "last_loss": loss[-1] if loss else "",
            "_times": times,
            "_loss": loss,
        })
    return runs


def main():
    results = Path(sys.argv[1])
    runs = read(results)
    if not runs:
        sys.exit(f"{results}: no emulation summary.json below it")
    fields = [k for k in runs[0] if not k.startswith("_")]
    with open(results / "decentralized_emu.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(runs)
    fig, (wall, steps) = plt.subplots(1, 2, figsize=(13, 5.5))
    for r in runs:
        label = r["scenario"].replace("__case5", "")
        ends = list(accumulate(r["_times"]))
        pts = [(t, l) for t, l in zip(ends, r["_loss"]) if l is not None]
        if not pts:
            continue
        wall.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=label)
        h = r["steps_per_iteration"]
        steps.plot([(i + 1) * h for i, l in enumerate(r["_loss"]) if l is not None],
                   [p[1] for p in pts], marker=".", label=label)
    wall.set_xlabel("wall-clock (s, sum of measured iteration times)")
    steps.set_xlabel("training steps (DiLoCo: inner steps)")
    steps.set_xscale("log")
    for ax in (wall, steps):
        ax.set_ylabel("training loss (loss rank)")
        ax.grid(alpha=0.3)
    wall.legend(fontsize=8)
    fig.suptitle("Decentralized strategies on DT-FM case 5 (8 cities, gpt-tiny, links x0.05): "
                 "geotrain emulate")
    fig.tight_layout()
    fig.savefig(results / "decentralized_emu.png", dpi=120)


if __name__ == "__main__":
    main()
