#!/usr/bin/python3
"""Validation suite plots from summary.csv (geotrain validate).

Usage: plot_validation.py results/validation/summary.csv
Writes next to it: validation_scatter.png (predicted vs measured, y = x, +-5% / +-15% bands;
error bars p10..p90 of the iterations on both axes where the file has the spread columns, else
the measured min..max) and validation_errors.png (signed error by strategy variant and network,
one panel per model; the p90's error as a marker where the file has it).
"""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MARKERS = {"flow": "o", "tcp": "^"}


SPREAD = ("p10_measured_s", "p90_measured_s", "p10_predicted_s", "p90_predicted_s")


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def has_spread(rows):
    """Whether the summary has the p10/p90 columns (files written before them do not)."""
    return all(rows[0].get(k) not in (None, "") for k in SPREAD)


def spread_bars(r, key):
    """(below, above) of key's value to its p10 and p90, as errorbar() wants them."""
    mid = float(r[f"{key}_s"])
    side = key.split("_")[0]  # measured or predicted
    return max(mid - float(r[f"p10_{side}_s"]), 0), max(float(r[f"p90_{side}_s"]) - mid, 0)


def scatter(rows, out):
    variants = sorted({r["variant"] for r in rows})
    cmap = plt.get_cmap("tab20")  # 12 variants: tab10 repeated two colours
    spread = has_spread(rows)
    fig, ax = plt.subplots(figsize=(7.5, 7))
    keys = ("measured_s", "predicted_s") + (SPREAD if spread else ())
    vals = [float(r[k]) for r in rows for k in keys]
    lo, hi = min(vals) * 0.7, max(vals) * 1.4
    xs = [lo, hi]
    ax.fill_between(xs, [x * 0.85 for x in xs], [x * 1.15 for x in xs], color="0.92", label="±15%")
    ax.fill_between(xs, [x * 0.95 for x in xs], [x * 1.05 for x in xs], color="0.80", label="±5%")
    ax.plot(xs, xs, "k-", lw=1, label="y = x")
    for i, v in enumerate(variants):
        for model, marker in MARKERS.items():
            pts = [r for r in rows if r["variant"] == v and r["network_model"] == model]
            if not pts:
                continue
            ax.scatter([float(r["measured_s"]) for r in pts], [float(r["predicted_s"]) for r in pts],
                       marker=marker, color=cmap(i % 20), s=46, edgecolor="k", linewidth=0.4,
                       label=f"{v} ({model})")
            for r in pts:  # the spread of the iterations
                if spread:
                    below_m, above_m = spread_bars(r, "measured")
                    below_p, above_p = spread_bars(r, "predicted")
                    ax.errorbar([float(r["measured_s"])], [float(r["predicted_s"])],
                                xerr=[[below_m], [above_m]], yerr=[[below_p], [above_p]],
                                fmt="none", ecolor=cmap(i % 20), elinewidth=0.8, alpha=0.6)
                else:
                    ax.plot([float(r["measured_min_s"]), float(r["measured_max_s"])],
                            [float(r["predicted_s"])] * 2, color=cmap(i % 20), lw=0.8, alpha=0.6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    bar = "p10..p90" if spread else "min..max"
    ax.set_xlabel(f"measured iteration time (s, emulated median; bar = {bar} of iterations)")
    ax.set_ylabel("predicted iteration time (s, simulated median" + ("; bar = p10..p90)" if spread else ")"))
    ax.set_title("geotrain validate: predicted vs measured (● flow, ▲ tcp)")
    ax.legend(fontsize=6.5, ncol=2, loc="upper left")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    plt.close(fig)


def errors(rows, out):
    models = [m for m in MARKERS if any(r["network_model"] == m for r in rows)]
    variants = sorted({r["variant"] for r in rows})
    networks = sorted({r["network"] for r in rows})
    fig, axes = plt.subplots(len(models), 1, figsize=(10, 3.6 * len(models)), squeeze=False)
    width = 0.8 / max(len(networks), 1)
    p90 = rows[0].get("p90_error_pct") not in (None, "")
    for ax, model in zip(axes[:, 0], models):
        for j, net in enumerate(networks):
            ys, xs, tails = [], [], []
            for i, v in enumerate(variants):
                for r in rows:
                    if r["variant"] == v and r["network"] == net and r["network_model"] == model:
                        xs.append(i + (j - (len(networks) - 1) / 2) * width)
                        ys.append(float(r["error_pct"]))
                        tails.append(float(r["p90_error_pct"]) if p90 else None)
            ax.bar(xs, ys, width=width, label=net)
            if p90:  # the slow tail's error on the same bar
                ax.scatter(xs, tails, marker="_", s=120, color="k", linewidths=1.5, zorder=3)
        if p90:
            ax.scatter([], [], marker="_", color="k", label="p90 error")
        for y, style in ((5, "--"), (15, ":")):
            ax.axhline(y, color="k", ls=style, lw=0.8)
            ax.axhline(-y, color="k", ls=style, lw=0.8)
        ax.axhline(0, color="k", lw=0.6)
        ax.set_xticks(range(len(variants)))
        ax.set_xticklabels(variants, rotation=15, fontsize=8)
        ax.set_ylabel("error (%)  predicted − measured")
        ax.set_title(f"network model: {model}  (dashed ±5%, dotted ±15%)")
        ax.legend(fontsize=8, ncol=len(networks))
        ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    plt.close(fig)


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src = Path(argv[1])
    rows = read_rows(src)
    if not rows:
        print(f"{src}: no rows", file=sys.stderr)
        return 1
    scatter(rows, src.parent / "validation_scatter.png")
    errors(rows, src.parent / "validation_errors.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
