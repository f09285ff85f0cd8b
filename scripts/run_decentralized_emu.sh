#!/bin/sh
# Emulates the decentralized strategies of scenarios/decentralized (8 ranks, root) with a step
# budget each, then plots loss against wall-clock and steps.
#   scripts/run_decentralized_emu.sh [build dir] [results dir]
# Budgets keep each run near a minute on 2 cores: DiLoCo's iteration is a round of H inner
# steps, so H = 50 runs 2 rounds (100 steps) and H = 500 one round (500 steps).
set -eu
build=${1:-build}
out=${2:-results/decentralized/emu}
rm -rf "$out"
mkdir -p "$out"
run() {
  name=$1 steps=$2
  echo "== $name ($steps iterations)"
  "$build/geotrain" emulate "scenarios/decentralized/$name.yaml" --steps "$steps" --out "$out/$name" \
    > "$out/$name.log" 2>&1 || { echo "emulate $name failed:"; tail -20 "$out/$name.log"; exit 1; }
  tail -1 "$out/$name.log"
}
run ddp__case5 12
run diloco_h1__case5 12
run diloco_h50__case5 2
run diloco_h500__case5 1
run sdpipe__case5 12
run adpsgd__case5 24
run hetpipe__case5 12
/usr/bin/python3 plots/plot_decentralized_emu.py "$out"
echo "wrote $out/decentralized_emu.csv and $out/decentralized_emu.png"
