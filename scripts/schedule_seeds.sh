#!/bin/sh
# The scheduler's quality over seeds: DT-FM cases 1-5 x seeds 1-5, gcma with the full budget
# (population 100 + 4,900 trials, the scenarios' activation size 0.4712 GB), once with the
# structured starting partitions (default) and once with --random-start (the original's purely
# random population). Writes <out dir>/schedule_seeds.csv with the best total cost of each run.
# Usage: scripts/schedule_seeds.sh [geotrain binary] [out dir]   (from the repository root)
set -eu
GEOTRAIN=${1:-build/geotrain}
OUT=${2:-results/reference}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
CSV="$OUT/schedule_seeds.csv"
echo "case,seed,start,total_cost_s,dp_cost_s,pp_cost_s" > "$TMP/table.csv"
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
for c in 1 2 3 4 5; do
  for seed in 1 2 3 4 5; do
    for start in structured random; do
      flag=""
      [ "$start" = random ] && flag="--random-start"
      "$GEOTRAIN" schedule "scenarios/paper/dtfm_case$c.yaml" --quiet --seed "$seed" $flag \
        --out "$TMP/a.json" > /dev/null
      s="$TMP/a.summary.json"
      echo "$c,$seed,$start,$(field "$s" total_cost_s),$(field "$s" dp_cost_s),$(field "$s" pp_cost_s)" >> "$TMP/table.csv"
    done
  done
done
mv "$TMP/table.csv" "$CSV"
cat "$CSV"
