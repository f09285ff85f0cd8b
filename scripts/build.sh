#!/usr/bin/env bash
# Configures and builds geotrain into build/ (warnings are errors when CI=true or WERROR=1).
set -euo pipefail
cd "$(dirname "$0")/.."
werror=OFF
if [ "${CI:-}" = "true" ] || [ "${WERROR:-0}" = "1" ]; then werror=ON; fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGEOTRAIN_WERROR=$werror >/dev/null
cmake --build build -j "${JOBS:-$(nproc)}"
