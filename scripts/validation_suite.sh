#!/bin/sh
# Regenerates the validation suite in one go: writes scenarios/validation/*.yaml (make_suite.py),
# emulates and compares every case (`geotrain validate`), then draws the plots and prints the
# table in docs/validation.md. Resumable: a case whose emulation is already in the results folder is only
# re-simulated and re-compared, so an interrupted run continues where it stopped; --fresh
# emulates everything again.
#   sudo scripts/validation_suite.sh [build dir] [results dir] [--fresh] [--only TEXT]
# Needs root (geotrain emulate) and geotrain-worker (LibTorch). Time on this project's 2-core
# host (results/README.md): about 25-80 s per 4- or 8-worker case, 150-330 s per 16-worker case,
# 1-8 min per gpt-mini case (DiLoCo's rounds are the long ones); on 2026-11-26 54 cases took
# 56 min and 30 more (8 workers on cases 3/4, gpt-mini) 51 min. A case whose predictions spread
# by 15 % or more is emulated five times (SD-Pipe on case 5: 4 workers 2 min, 16 workers 7.4 min
# per run, 2026-11-27), every 16-worker case three times (the 27: about 100 min, 2026-11-27).
set -eu
build=${1:-build}
out=${2:-results/validation}
shift $(($# < 2 ? $# : 2))
reuse=--reuse
only=
while [ $# -gt 0 ]; do
  case $1 in
    --fresh) reuse=; shift ;;
    --only) only=$2; shift 2 ;;
    *) echo "$0: unknown option $1 (expected --fresh or --only TEXT)" >&2; exit 2 ;;
  esac
done
geotrain=$build/geotrain
[ -x "$geotrain" ] || { echo "$0: $geotrain: not built" >&2; exit 2; }
[ -x "$build/geotrain-worker" ] || { echo "$0: $build/geotrain-worker: not built (needs LibTorch)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "$0: needs root (network namespaces for geotrain emulate)" >&2; exit 2; }
/usr/bin/python3 scenarios/validation/make_suite.py
start=$(date +%s)
if [ -n "$only" ]; then
  # Emulate the selected cases, then summarize the whole folder from what it holds.
  "$geotrain" validate --out "$out" $reuse --only "$only" --no-plots
  "$geotrain" validate --out "$out" --reuse-only --no-plots
else
  "$geotrain" validate --out "$out" $reuse --no-plots
fi
"$geotrain" plot "$out"
/usr/bin/python3 plots/validation_table.py "$out/summary.csv" > "$out/table.md"
echo "validation suite: $(( $(date +%s) - start )) s; table in $out/table.md"
