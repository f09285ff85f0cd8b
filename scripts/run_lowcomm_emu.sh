#!/bin/sh
# Loss against wall-clock of DiLoCo's low-communication variants (scenarios/lowcomm: 8 gpt-tiny
# workers, every pair 100 ms one way at 100 Mbit/s, links not scaled): emulates each for real
# (root: namespaces and shaped links), then plots. About 1-2 min per run on 2 cores.
#   sudo scripts/run_lowcomm_emu.sh [build dir] [results dir]   (committed: results/reference/lowcomm_emu)
set -eu
build=${1:-build}
out=${2:-results/lowcomm_emu}
[ "$(id -u)" = 0 ] || { echo "$0: needs root (network namespaces for geotrain emulate)" >&2; exit 2; }
[ -x "$build/geotrain" ] || { echo "$0: $build/geotrain: not built" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out"
for name in diloco_fp32 diloco_int8 diloco_fp4 diloco_topk3 streaming_fp32 streaming_fp4; do
  echo "== $name"
  "$build/geotrain" emulate "scenarios/lowcomm/$name.yaml" --out "$out/$name" > "$out/$name.log" 2>&1 ||
    { echo "emulate $name failed:"; tail -20 "$out/$name.log"; exit 1; }
  tail -1 "$out/$name.log"
done
/usr/bin/python3 plots/plot_loss_vs_wallclock.py "$out"
echo "wrote $out/loss_vs_wallclock.csv and $out/loss_vs_wallclock.png"
