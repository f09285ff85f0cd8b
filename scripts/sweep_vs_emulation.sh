#!/bin/sh
# Is the winner map's ranking right? Picks 9 points of scenarios/sweeps/wan_strategies.yaml at
# 8 workers (bandwidth 30 Mbit/s, 300 Mbit/s, 3 Gbit/s x one-way delay 1, 30, 300 ms) and emulates
# every strategy there with `geotrain emulate` (gpt-tiny, links x0.05 as in scenarios/validation,
# so CPU workers meet WAN-like compute/communication ratios).
# Two deviations from the map, both to fit a few hours of real training on 2 cores: the global
# batch is 8 (one micro-batch per worker per step; a DiLoCo H = 500 round is then 500 micro-batch
# steps instead of 8,000), and each emulation runs --steps 2 (one warm-up, one measured).
# Each point x strategy is predicted twice: by the map's own model (`geotrain sweep`, the nominal
# `cpu` device profile), and by `geotrain compare` against its emulation (flow model: the compute
# profile that emulation measured, each Compute op drawn from its samples -- SD-Pipe's groups form
# only among replicas ready within a 1-10 ms window, so the spread of compute times decides its
# throughput -- plus the emulator's transport effects). Kendall's tau-b between predicted and
# measured throughput ranks, per point and overall, and how often the predicted winner is the
# measured one, are reported for both. Needs root and geotrain-worker (LibTorch); about 1.5 h on a
# 2-core host (88 min on 2026-11-26, partly beside a build).
#   scripts/sweep_vs_emulation.sh [build dir] [out dir] [--points N] [--steps S]
# OUT/predicted/ (the sweep), OUT/emu/<point>_<strategy>/ (each emulation), OUT/calibrated/<same>/
# (its comparison), OUT/ranking.csv (per point and prediction: tau, winners), OUT/runs.csv
# (every run: predicted and measured tokens/s) and OUT/ranking.txt (summary). Finished
# emulations are kept and skipped on a rerun (their summary.json exists). --points N stops after
# the first N points (N = 1 checks the pipeline on one point).
set -eu
build=${1:-build}
out=${2:-results/sweeps/wan_strategies_vs_emulation}
shift $(($# < 2 ? $# : 2))
points=9
steps=2
while [ $# -gt 0 ]; do
  case $1 in
    --points) points=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    *) echo "$0: unknown option $1 (expected --points N or --steps S)" >&2; exit 2 ;;
  esac
done
geotrain=$build/geotrain
[ -x "$geotrain" ] || { echo "$0: $geotrain: not built" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "$0: needs root (network namespaces for geotrain emulate)" >&2; exit 2; }
mkdir -p "$out/emu"

# The check's spec: the bundled map's base and strategies at 8 workers, links x0.05.
{
  grep -v '^#' scenarios/sweeps/wan_base.yaml |
    sed -e 's/^name: wan_base$/name: wan_check/' -e 's/global_batch: 128$/global_batch: 8/'
  echo "emulation: {bandwidth_scale: 0.05, delay_scale: 1, torch_threads: 1, collectives: p2p}"
} > "$out/wan_check_base.yaml"
cat > "$out/wan_check.yaml" << 'SPEC'
# Written by scripts/sweep_vs_emulation.sh: 9 points of wan_strategies.yaml at 8 workers, links x0.05, global batch 8.
base: wan_check_base.yaml
vary:
  network.regions.intra.bandwidth: [30Mbps, 300Mbps, 3Gbps]
  network.regions.intra.delay: [1ms, 30ms, 300ms]
strategies:
  ddp: {name: ddp-allreduce, algorithm: ring}
  diloco_h1: {name: diloco, inner_steps: 1}
  diloco_h50: {name: diloco, inner_steps: 50}
  diloco_h500: {name: diloco, inner_steps: 500}
  sdpipe: {name: sdpipe-preduce, stages: 2, replicas: 4}
  adpsgd: {name: adpsgd, seed: 11}
  hetpipe: {name: hetpipe, stages: 2, replicas: 4}
  gpipe: {name: gpipe, stages: 2, replicas: 4}
iterations: 1
SPEC
"$geotrain" sweep "$out/wan_check.yaml" --out "$out/predicted" --no-plot

# One emulation per predicted row, in the sweep's order; the row's values become --set keys.
/usr/bin/python3 - "$out" "$points" << 'PY' > "$out/emulations.txt"
import csv, sys, yaml
out, limit = sys.argv[1], int(sys.argv[2])
spec = yaml.safe_load(open(f"{out}/wan_check.yaml"))
keys = list(spec["vary"])
for row in csv.DictReader(open(f"{out}/predicted/sweep.csv")):
    if int(row["point"]) >= limit or row["status"] != "ok":
        continue
    block = yaml.safe_dump(spec["strategies"][row["strategy"]], default_flow_style=True).strip()
    sets = [f"{k}={row[k]}" for k in keys] + [f"strategy={block}"]
    print("\t".join([f"{row['point']}_{row['strategy']}"] + sets))
PY
mkdir -p "$out/calibrated"
while IFS="$(printf '\t')" read -r name s1 s2 s3; do
  dir="$out/emu/$name"
  if [ ! -f "$dir/summary.json" ]; then
    rm -rf "$dir"
    echo "emulating $name ($s1 $s2 $s3)"
    "$geotrain" emulate "$out/wan_check_base.yaml" --steps "$steps" --out "$dir" \
      --set "$s1" --set "$s2" --set "$s3" > "$out/emu/$name.log" 2>&1 ||
      { echo "$0: emulation $name failed (log: $out/emu/$name.log)" >&2; exit 1; }
  fi
  # The same run predicted as `geotrain compare` predicts it (flow model): with the compute
  # times this emulation measured, drawn from their samples, and the emulator's transport
  # effects (Gloo's rendezvous, buffered sends, the links' measured TCP payload share).
  cal="$out/calibrated/$name"
  [ -f "$cal/sim_flow/summary.json" ] && continue
  rm -rf "$cal"
  "$geotrain" compare "$out/wan_check_base.yaml" --measured "$dir" --network-model flow --out "$cal" \
    --set "$s1" --set "$s2" --set "$s3" > "$cal.log" 2>&1 ||
    { echo "$0: comparison $name failed (log: $cal.log)" >&2; exit 1; }
done < "$out/emulations.txt"

# Kendall's tau-b per point between predicted and measured tokens/s; winner agreement.
/usr/bin/python3 - "$out" << 'PY'
import csv, json, os, sys, yaml
out = sys.argv[1]

def tau_b(x, y):
    concordant = discordant = tx = ty = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    n0 = (concordant + discordant + tx) * (concordant + discordant + ty)
    return (concordant - discordant) / n0 ** 0.5 if n0 else float("nan")

keys = list(yaml.safe_load(open(f"{out}/wan_check.yaml"))["vary"])
points, runs_rows = {}, []
for row in csv.DictReader(open(f"{out}/predicted/sweep.csv")):
    name = f"{row['point']}_{row['strategy']}"
    emu, cal = f"{out}/emu/{name}/summary.json", f"{out}/calibrated/{name}/sim_flow/summary.json"
    if row["status"] != "ok" or not os.path.exists(emu) or not os.path.exists(cal):
        continue
    run = {"point": row["point"], **{k: row[k] for k in keys}, "strategy": row["strategy"],
           "map_tokens_per_s": float(row["tokens_per_s"]),
           "calibrated_tokens_per_s": json.load(open(cal))["tokens_per_s"],
           "measured_tokens_per_s": json.load(open(emu))["tokens_per_s"]}
    runs_rows.append(run)
    points.setdefault(row["point"], []).append(run)
with open(f"{out}/runs.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["point", *keys, "strategy", "map_tokens_per_s",
                                      "calibrated_tokens_per_s", "measured_tokens_per_s"])
    w.writeheader()
    for r in runs_rows:
        w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})

def winner(runs, key):
    return max(runs, key=lambda r: r[key])["strategy"]

rows, summary = [], []
for prediction in ("map", "calibrated"):
    taus, agree = [], 0
    for p, runs in sorted(points.items(), key=lambda kv: int(kv[0])):
        if len(runs) < 2:
            continue
        t = tau_b([r[f"{prediction}_tokens_per_s"] for r in runs], [r["measured_tokens_per_s"] for r in runs])
        pw, mw = winner(runs, f"{prediction}_tokens_per_s"), winner(runs, "measured_tokens_per_s")
        taus.append(t)
        agree += pw == mw
        rows.append({"point": p, **{k: runs[0][k] for k in keys}, "prediction": prediction,
                     "strategies": len(runs), "kendall_tau_b": f"{t:.3f}",
                     "predicted_winner": pw, "measured_winner": mw})
    if taus:
        summary.append(f"{prediction:>10} prediction, {len(taus)} points: mean Kendall tau-b "
                       f"{sum(taus) / len(taus):.3f} (goal >= 0.8), min {min(taus):.3f}; "
                       f"winner agreement {agree}/{len(taus)}")
with open(f"{out}/ranking.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["point", *keys, "prediction", "strategies", "kendall_tau_b",
                                      "predicted_winner", "measured_winner"])
    w.writeheader()
    w.writerows(rows)
text = "\n".join(summary) if summary else "no point has two emulated strategies"
open(f"{out}/ranking.txt", "w").write(text + "\n")
print(text)
PY
