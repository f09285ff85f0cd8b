#!/usr/bin/python3
"""Validation suite plots from summary.csv (geotrain validate).

Usage: plot_validation.py results/validation/summary.csv
Writes next to it: validation_scatter.png (predicted vs measured, y = x, +-5% / +-15% bands)
and validation_errors.png (signed error by strategy variant and network, one panel per model).
"""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MARKERS = {"flow": "o", "tcp": "^"}


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def scatter(rows, out):
    variants = sorted({r["variant"] for r in rows})
    cmap = plt.get_cmap("tab20")  # 12 variants: tab10 repeated two colours
    fig, ax = plt.subplots(figsize=(7.5, 7))
    vals = [float(r[k]) for r in rows for k in ("measured_s", "predicted_s")]
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
            for r in pts:  # the spread of the measured iterations
                ax.plot([float(r["measured_min_s"]), float(r["measured_max_s"])],
                        [float(r["predicted_s"])] * 2, color=cmap(i % 20), lw=0.8, alpha=0.6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("measured iteration time (s, emulated; bar = min..max of iterations)")
    ax.set_ylabel("predicted iteration time (s, simulated)")
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
    for ax, model in zip(axes[:, 0], models):
        for j, net in enumerate(networks):
            ys, xs = [], []
            for i, v in enumerate(variants):
                for r in rows:
                    if r["variant"] == v and r["network"] == net and r["network_model"] == model:
                        xs.append(i + (j - (len(networks) - 1) / 2) * width)
                        ys.append(float(r["error_pct"]))
            ax.bar(xs, ys, width=width, label=net)
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
