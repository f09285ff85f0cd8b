#!/usr/bin/python3
"""Loss against wall-clock of emulated runs that differ in how they communicate.

Usage: plot_loss_vs_wallclock.py RESULTS_DIR
RESULTS_DIR holds one folder per run, each the run directory of one `geotrain emulate`
(summary.json: iteration_times_s, loss, counted bytes; scenario.yaml: the scenario as run).
scripts/run_lowcomm_emu.sh writes them. Writes into RESULTS_DIR:
  loss_vs_wallclock.csv  one row per run and iteration: run, strategy, compression, iteration,
                         inner steps done, wall-clock at its end (sum of the measured iteration
                         times), loss (mean over the iteration's inner steps), bytes on the wire
                         per iteration (counted by the workers, all ranks)
  loss_vs_wallclock.png  loss against wall-clock, and against inner steps
"""
import csv
import re
import sys
from itertools import accumulate
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot_decentralized_emu import emu_summaries  # noqa: E402  (same folder)


def read(results):
    runs = []
    for folder, s in emu_summaries(results):
        # Two facts of the scenario as run (matplotlib is this folder's only dependency, so no
        # YAML parser): the global batch and the compression kind, in either YAML style.
        scenario = (folder / "scenario.yaml").read_text()
        batch = re.search(r"global_batch:\s*([0-9]+)", scenario)
        kind = re.search(r"compression:\s*(?:\{\s*|\n\s*)kind:\s*([a-z0-9]+)", scenario)
        if not batch:
            sys.exit(f"{folder}/scenario.yaml: no training.global_batch")
        compression = kind.group(1) if kind else "none"
        # An iteration is a round of H inner steps: its sequences over the global batch.
        steps = round(s["sequences_per_iteration"] / int(batch.group(1)))
        runs.append({"run": folder.name, "strategy": s["strategy"], "compression": compression,
                     "steps": steps, "times": s["iteration_times_s"], "loss": s["loss"],
                     "bytes": s["bytes"].get("counted_per_iteration")})
    return runs


def main():
    results = Path(sys.argv[1])
    runs = read(results)
    if not runs:
        sys.exit(f"{results}: no emulation summary.json below it")
    with open(results / "loss_vs_wallclock.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "strategy", "compression", "iteration", "inner_steps", "wall_clock_s", "loss",
                    "bytes_per_iteration"])
        for r in runs:
            for i, (end, loss) in enumerate(zip(accumulate(r["times"]), r["loss"])):
                w.writerow([r["run"], r["strategy"], r["compression"], i, (i + 1) * r["steps"], f"{end:.3f}",
                            "" if loss is None else f"{loss:.5f}", "" if r["bytes"] is None else int(r["bytes"])])
    fig, (wall, steps) = plt.subplots(1, 2, figsize=(13, 5.5))
    for r in runs:
        pts = [(t, l, (i + 1) * r["steps"]) for i, (t, l) in enumerate(zip(accumulate(r["times"]), r["loss"]))
               if l is not None]
        wall.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=r["run"])
        steps.plot([p[2] for p in pts], [p[1] for p in pts], marker=".", label=r["run"])
    wall.set_xlabel("wall-clock (s, sum of measured iteration times)")
    steps.set_xlabel("inner steps")
    for ax in (wall, steps):
        ax.set_ylabel("training loss (mean over the round's inner steps)")
        ax.grid(alpha=0.3)
    wall.legend(fontsize=8)
    fig.suptitle("Low-communication DiLoCo variants, 8 workers at 100 Mbit/s and 100 ms: geotrain emulate")
    fig.tight_layout()
    fig.savefig(results / "loss_vs_wallclock.png", dpi=120)


if __name__ == "__main__":
    main()
