#!/usr/bin/python3
"""DDP vs DiLoCo vs SD-Pipe vs AD-PSGD vs HetPipe, predicted by `geotrain simulate`.

Usage: plot_decentralized.py RESULTS_DIR
RESULTS_DIR holds one folder per scenario of scenarios/decentralized, each with the
summary.json of one simulated run (scripts/run_decentralized.sh writes them). Writes into
RESULTS_DIR: decentralized_sim.csv (per scenario: steps per iteration, predicted iteration time,
time per training step, bytes on the wire per step, reduction vs DDP) and
decentralized_sim.png (time per step and bytes per step, log scale).
"""
import csv
import json
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def steps_per_iteration(name):
    # DiLoCo's iteration is one outer round of H inner steps; everything else is one step.
    m = re.match(r"diloco_h(\d+)", name)
    return int(m.group(1)) if m else 1


def read(results):
    rows = []
    for summary in sorted(Path(results).glob("*/summary.json")):
        name = summary.parent.name
        s = json.loads(summary.read_text())
        iterations = len(s["iteration_end_s"])
        b = s["bytes"]
        total = b["p2p"] + b["collectives"] + b.get("dynamic", 0)
        h = steps_per_iteration(name)
        rows.append({
            "scenario": name,
            "steps_per_iteration": h,
            "iterations": iterations,
            "iteration_time_s": s["iteration_time_s"],
            "time_per_step_s": s["iteration_time_s"] / h,
            "bytes_per_step": total / iterations / h,
        })
    ddp = {r["scenario"].replace("ddp", "", 1): r for r in rows if r["scenario"].startswith("ddp")}
    for r in rows:
        base = ddp.get(re.sub(r"^[a-z]+(_h\d+)?(_timeout)?", "", r["scenario"]))
        r["bytes_reduction_vs_ddp"] = (base["bytes_per_step"] / r["bytes_per_step"]
                                       if base and r["bytes_per_step"] > 0 else "")
    return rows


def main():
    results = Path(sys.argv[1])
    rows = read(results)
    with open(results / "decentralized_sim.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    names = [r["scenario"].replace("__case5", "") for r in rows]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
    for ax, key, label in ((axes[0], "time_per_step_s", "predicted time per training step (s)"),
                           (axes[1], "bytes_per_step", "bytes on the wire per step (all ranks)")):
        ax.barh(names, [r[key] for r in rows], color="tab:blue")
        ax.set_xscale("log")
        ax.set_xlabel(label)
        ax.invert_yaxis()
        ax.grid(axis="x", which="both", alpha=0.3)
    fig.suptitle("Decentralized strategies on DT-FM case 5 (8 cities, gpt-tiny, links x0.05): "
                 "geotrain simulate")
    fig.tight_layout()
    fig.savefig(results / "decentralized_sim.png", dpi=120)


if __name__ == "__main__":
    main()
