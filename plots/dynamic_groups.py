#!/usr/bin/python3
"""Who averaged with whom: the run-time decisions of two runs side by side.

Usage: dynamic_groups.py MEASURED_RUN PREDICTED_RUN [--csv OUT.csv]

Both run directories hold a dynamic.csv (`geotrain emulate`, `geotrain real run` and
`geotrain simulate` write it for Programs with Dynamic ops: AD-PSGD gossip, SD-Pipe partial
reduce, DiLoCo with an averaging timeout). A partial-reduce window forms from the replicas that
are ready within a few milliseconds of each other, so which groups form in which step is close
to a coin flip in both executors; what a prediction can get right is how often each group size
occurs. This prints, per run, how many rank-decisions fell into groups of each size (overall and
per step), and for gossip how many decisions name the same partner in both runs (the pairing is
seeded, so any difference is a defect). --csv writes the same counts as rows
(run,step,size,decisions; step "all" for the totals) for plots.
"""
import collections
import csv
import os
import sys


def fail(message):
    """Bad input: one line on stderr, exit 2 (as geotrain does)."""
    print(f"dynamic_groups.py: {message}", file=sys.stderr)
    sys.exit(2)


def read_decisions(run_dir):
    path = os.path.join(run_dir, "dynamic.csv")
    if not os.path.exists(path):
        fail(f"{path}: no such file (the run has no Dynamic ops, or predates dynamic.csv)")
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def size_counts(rows):
    """{step: Counter(group size -> rank-decisions)} plus the totals under 'all'."""
    counts = collections.defaultdict(collections.Counter)
    for r in rows:
        size = len(r["members"].split(";"))
        counts[int(r["step"])][size] += 1
        counts["all"][size] += 1
    return counts


def gossip_agreement(measured, predicted):
    """(same partner, compared) over the gossip decisions both runs made."""
    key = lambda r: (r["rank"], r["step"], r["op"], r["round"])
    other = {key(r): r["members"] for r in predicted if r["rule"] == "gossip"}
    pairs = [(r["members"], other[key(r)]) for r in measured
             if r["rule"] == "gossip" and key(r) in other]
    return sum(a == b for a, b in pairs), len(pairs)


def histogram(counter):
    return " ".join(f"{size}:{n}" for size, n in sorted(counter.items())) or "-"


def main(argv):
    args = argv[1:]
    out = None
    if "--csv" in args:
        i = args.index("--csv")
        if i + 1 >= len(args):
            fail("--csv needs a file name")
        out = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        fail("expected two run directories: " + __doc__.strip().splitlines()[2])
    runs = {"measured": read_decisions(args[0]), "predicted": read_decisions(args[1])}
    counts = {name: size_counts(rows) for name, rows in runs.items()}
    steps = sorted({s for c in counts.values() for s in c if s != "all"})
    print("group size:rank-decisions (a group of 4 counts 4 decisions)")
    for name in runs:
        print(f"{name:>9} all steps: {histogram(counts[name]['all'])}")
    for step in steps:
        print(f"step {step:>3}: measured {histogram(counts['measured'][step]):<24} "
              f"predicted {histogram(counts['predicted'][step])}")
    same, compared = gossip_agreement(runs["measured"], runs["predicted"])
    if compared:
        print(f"gossip: {same}/{compared} decisions name the same partner in both runs")
    if out:
        with open(out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["run", "step", "size", "decisions"])
            for name in runs:
                for step in ["all", *steps]:
                    for size, n in sorted(counts[name][step].items()):
                        w.writerow([name, step, size, n])


if __name__ == "__main__":
    main(sys.argv)
