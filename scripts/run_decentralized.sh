#!/bin/sh
# Simulates every scenario of scenarios/decentralized and plots the comparison.
#   scripts/run_decentralized.sh [build dir] [results dir]
# Writes <results>/<scenario>/ (the simulator's result files) and decentralized_sim.{csv,png}.
set -eu
build=${1:-build}
out=${2:-results/decentralized/sim}
rm -rf "$out"
mkdir -p "$out"
for f in scenarios/decentralized/*.yaml; do
  name=$(basename "$f" .yaml)
  "$build/geotrain" simulate "$f" --out "$out/$name" --no-trace > "$out/$name.log" 2>&1 ||
    { echo "simulate $f failed:"; cat "$out/$name.log"; exit 1; }
done
/usr/bin/python3 plots/plot_decentralized.py "$out"
echo "wrote $out/decentralized_sim.csv and $out/decentralized_sim.png"
