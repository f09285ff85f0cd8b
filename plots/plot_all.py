#!/usr/bin/python3
"""Every plot a results folder has data for (what `geotrain plot DIR` and `make plots` run).

Usage: plot_all.py <results dir>
- summary.csv with network_model and predicted_s (geotrain validate) -> plot_validation.py
- comparison.json (geotrain compare)                          -> plot_gantt.py, flow and tcp
- convergence.csv (geotrain schedule)                         -> plot_convergence.py
- linktest.json (geotrain emulate / emu linktest)             -> plot_linktest.py
PNGs land next to the data. Reads only results files.
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import plot_convergence  # noqa: E402
import plot_gantt  # noqa: E402
import plot_linktest  # noqa: E402
import plot_validation  # noqa: E402


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = Path(argv[1])
    drawn = 0
    for f in sorted(root.rglob("summary.csv")):
        # validate's summary; validate --plan's (plan/summary.csv) has planned_s, not predicted_s
        header = f.read_text().split("\n", 1)[0].split(",")
        if "network_model" in header and "predicted_s" in header:
            plot_validation.main(["", str(f)])
            drawn += 1
    for f in sorted(root.rglob("comparison.json")):
        for model in ("flow", "tcp"):
            plot_gantt.main(["", str(f.parent), model])
        drawn += 1
    conv = sorted(str(f) for f in root.rglob("convergence.csv"))
    for f in conv:
        plot_convergence.main(["", f])
    if len(conv) > 1:
        plot_convergence.main([""] + conv)
    drawn += len(conv)
    for f in sorted(root.rglob("linktest.json")):
        plot_linktest.main(["", str(f)])
        drawn += 1
    print(f"plots: {drawn} result file(s) drawn under {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
