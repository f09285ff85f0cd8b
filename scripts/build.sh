#!/usr/bin/env bash
# Configures and builds geotrain into build/ (warnings are errors when CI=true or WERROR=1).
#   bash scripts/build.sh              everything: geotrain, the LibTorch worker, tests, benchmarks
#   bash scripts/build.sh geotrain     only what the named targets need (scripts/demo.sh)
# One configuration for every caller, so the demo's objects are reused by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
werror=OFF
if [ "${CI:-}" = "true" ] || [ "${WERROR:-0}" = "1" ]; then werror=ON; fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGEOTRAIN_WERROR=$werror >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build -j "${JOBS:-$(nproc)}" "${targets[@]}"
