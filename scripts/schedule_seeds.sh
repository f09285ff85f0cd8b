#!/bin/sh
# The scheduler's quality over seeds: DT-FM cases 1-5 x seeds 1-5, gcma with the full budget
# (population 100 + 4,900 trials, the scenarios' activation size 0.4712 GB), once with the
# structured starting partitions (default) and once with --random-start (the original's purely
# random population). Writes <out dir>/schedule_seeds.csv: the best total cost of both runs per
# case and seed, and the structured run's data-parallel and pipeline parts.
# Usage: scripts/schedule_seeds.sh [geotrain binary] [out dir]   (from the repository root)
set -eu
GEOTRAIN=${1:-build/geotrain}
OUT=${2:-results/reference}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
CSV="$OUT/schedule_seeds.csv"
echo "case,seed,structured_total_s,random_start_total_s,structured_dp_s,structured_pp_s" > "$TMP/table.csv"
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
for c in 1 2 3 4 5; do
  for seed in 1 2 3 4 5; do
    scenario=scenarios/paper/dtfm_case$c.yaml
    "$GEOTRAIN" schedule "$scenario" --quiet --seed "$seed" --out "$TMP/s.json" > /dev/null
    "$GEOTRAIN" schedule "$scenario" --quiet --seed "$seed" --random-start --out "$TMP/r.json" > /dev/null
    echo "$c,$seed,$(field "$TMP/s.summary.json" total_cost_s),$(field "$TMP/r.summary.json" total_cost_s),$(field "$TMP/s.summary.json" dp_cost_s),$(field "$TMP/s.summary.json" pp_cost_s)" >> "$TMP/table.csv"
  done
done
mv "$TMP/table.csv" "$CSV"
cat "$CSV"
