#!/usr/bin/python3
"""Side-by-side timelines of one iteration, predicted and measured (a geotrain compare folder).

Usage: plot_gantt.py <comparison dir> [model]
Reads comparison.json, the measured run's ops.csv and the prediction's (model: flow by default),
each side's judged run as comparison.json names it (the median run of an ensemble); writes gantt_<model>.png into the comparison folder. The measured iteration drawn is
the one whose time is closest to the median; the predicted one is the simulator's middle one.
Each iteration is drawn from its own start (the earliest op of any rank in it).
"""
import csv
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"compute": "tab:blue", "send": "tab:orange", "recv": "tab:green",
          "collective": "tab:red", "wait": "tab:gray"}


def read_ops(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def iteration_rows(rows, iteration):
    sel = [r for r in rows if int(r["iteration"]) == iteration]
    t0 = min(float(r["start_s"]) for r in sel)
    return sel, t0


def measured_iteration(summary_path):
    s = json.loads(Path(summary_path).read_text())
    times = s["iteration_times_s"]
    warm = s.get("warmup_iterations", 0)
    cands = list(range(warm, len(times))) or list(range(len(times)))
    med = sorted(times[i] for i in cands)[len(cands) // 2]
    return min(cands, key=lambda i: abs(times[i] - med))


def draw(ax, rows, t0, title):
    ranks = sorted({int(r["rank"]) for r in rows})
    for r in rows:
        y = int(r["rank"])
        nb = r["nonblocking"] in ("1", "true")
        start, end = float(r["start_s"]) - t0, float(r["end_s"]) - t0
        ax.barh(y + (0.25 if nb else 0), max(end - start, 1e-5), left=start, height=0.35 if nb else 0.6,
                color=COLORS.get(r["type"], "k"), alpha=0.55 if nb else 0.9, edgecolor="none")
    ax.set_yticks(ranks)
    ax.set_yticklabels([f"rank {r}" for r in ranks])
    ax.invert_yaxis()
    ax.set_title(title, fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)


def located(comparison_dir, recorded, fallback):
    """A run folder comparison.json names: as recorded (absolute, or relative to where compare ran),
    else the folder of that name under the comparison folder or its ensemble/, else `fallback`."""
    if not recorded:
        return fallback
    p = Path(recorded)
    if p.exists():
        return p
    for candidate in (comparison_dir / p.name, comparison_dir / "ensemble" / p.name):
        if candidate.exists():
            return candidate
    return fallback


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    d = Path(argv[1])
    model = argv[2] if len(argv) > 2 else "flow"
    comp = json.loads((d / "comparison.json").read_text())
    mdir = located(d, comp["measured"]["dir"], d / "emu")
    # With an ensemble (compare --seeds/--runs) each side's judged run is its median run.
    judged = next((p.get("dir") for p in comp["predicted"] if p["network_model"] == model), None)
    pdir = located(d, judged, d / f"sim_{model}")
    if not (pdir / "ops.csv").exists():
        return 0
    pred = read_ops(pdir / "ops.csv")
    pit = max(int(r["iteration"]) for r in pred) // 2
    prow, pt0 = iteration_rows(pred, pit)
    mit = measured_iteration(mdir / "summary.json")
    mrow, mt0 = iteration_rows(read_ops(mdir / "ops.csv"), mit)
    pred_s = next(p["iteration_time_s"] for p in comp["predicted"] if p["network_model"] == model)
    fig, axes = plt.subplots(2, 1, figsize=(11, 1.6 + 0.5 * 2 * comp["world_size"]), sharex=True)
    draw(axes[0], prow, pt0, f"predicted ({model} model), iteration {pit}: {pred_s:.3f} s per iteration")
    draw(axes[1], mrow, mt0, f"measured (emulated), iteration {mit}: median {comp['measured']['iteration_time_s']:.3f} s")
    axes[1].set_xlabel("seconds from the iteration's first op (thin upper bars: nonblocking ops in flight)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLORS.values()]
    axes[0].legend(handles, COLORS.keys(), fontsize=7, ncol=5, loc="lower right")
    fig.suptitle(f"{comp['scenario']} ({comp['strategy']}, {comp['world_size']} ranks)", fontsize=11)
    fig.tight_layout()
    fig.savefig(d / f"gantt_{model}.png", dpi=120)
    plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
