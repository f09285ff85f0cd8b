#!/usr/bin/env bash
# README command 2 (and CI): install what is missing, build with warnings as errors, run every
# test. Emulation tests (label emu) need root; in CI they run, never skip.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
WERROR=1 bash scripts/build.sh
cd build
ctest --output-on-failure -j "${JOBS:-2}" "$@"
