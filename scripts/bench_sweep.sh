#!/bin/sh
# The sweep benchmark: scenarios/sweeps/bench_8workers.yaml (1,024 points = 32 bandwidths x 32
# delays, x 5 strategies at 8 workers = 5,120 simulations) from scratch, into a temporary folder
# that is removed afterwards. Target: <= 120 s wall on 2 cores.
#   scripts/bench_sweep.sh [build dir] [jobs]
# Prints the wall time, runs/s, the CPU seconds of all simulations and the load average before
# and after (a shared machine's load changes the wall figure: report it with it).
set -eu
build=${1:-build}
jobs=${2:-$(nproc)}
out=$(mktemp -d /tmp/geotrain-bench-sweep.XXXXXX)
trap 'rm -rf "$out"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s.%N)
# /usr/bin/time counts the CPU seconds of the sweep and every simulation it forked: on a busy
# host, CPU s / cores estimates what the wall time would be with the cores to itself.
/usr/bin/time -f "%U %S" -o "$out/cpu" \
  "$build/geotrain" sweep scenarios/sweeps/bench_8workers.yaml --out "$out/sweep" --jobs "$jobs" --no-plot
end=$(date +%s.%N)
cpu=$(awk '{ print $1 + $2 }' "$out/cpu")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
runs=$(($(wc -l < "$out/sweep/sweep.csv") - 1))
awk -v s="$start" -v e="$end" -v r="$runs" -v j="$jobs" -v c="$(nproc)" -v lb="$load_before" -v la="$load_after" -v cpu="$cpu" 'BEGIN {
  printf "bench_sweep: %d runs (1,024 points x 5 strategies, 8 workers) in %.1f s wall, %.1f runs/s, --jobs %d on %d cores; %.1f CPU s (%.1f s per core); load average before %s, after %s (target <= 120 s on 2 cores)\n", r, e - s, r / (e - s), j, c, cpu, cpu / j, lb, la }'
