#!/bin/sh
# Closes the loop between the scheduler's cost model and the simulator: for each DT-FM case,
# the gcma assignment and a random placement are scored by the cost model (geotrain schedule
# --evaluate) and simulated (geotrain simulate, flow model, placement from the file).
# Usage: scripts/schedule_vs_sim.sh [geotrain binary] [out dir]   (from the repository root)
set -eu
GEOTRAIN=${1:-build/geotrain}
OUT=${2:-results/schedule_vs_sim}
mkdir -p "$OUT"
CSV="$OUT/schedule_vs_sim.csv"
echo "case,assignment,dp_cost_s,pp_cost_s,total_cost_s,simulated_iteration_s" > "$CSV"
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d$2)" "$1"; }
for c in 1 2 3 4 5; do
  scenario=scenarios/paper/dtfm_case$c.yaml
  "$GEOTRAIN" schedule "$scenario" --quiet --seed 1 --out "$OUT/case${c}_gcma.json" > /dev/null
  # One random placement (a single random candidate: what a user gets without a scheduler).
  "$GEOTRAIN" schedule "$scenario" --quiet --scheduler random --population 1 --trials 0 --seed 1 \
    --out "$OUT/case${c}_random.json" > /dev/null
  for kind in gcma random; do
    file="$OUT/case${c}_$kind.json"
    "$GEOTRAIN" schedule "$scenario" --evaluate "$file" > "$OUT/case${c}_$kind.cost.json"
    rm -rf "$OUT/sim_case${c}_$kind"
    "$GEOTRAIN" simulate "$scenario" --no-trace --out "$OUT/sim_case${c}_$kind" \
      --set placement.kind=file --set "placement.file=$(pwd)/$file" > /dev/null
    cost="$OUT/case${c}_$kind.cost.json"
    # Random placements are scored as placed (their pipelines are fixed); gcma's equal both ways.
    echo "$c,$kind,$(field "$cost" "['as_placed']['dp_cost_s']"),$(field "$cost" "['as_placed']['pp_cost_s']"),$(field "$cost" "['as_placed']['total_cost_s']"),$(field "$OUT/sim_case${c}_$kind/summary.json" "['iteration_time_s']")" >> "$CSV"
  done
done
cat "$CSV"
