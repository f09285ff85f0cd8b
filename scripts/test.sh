#!/usr/bin/env bash
# README command 2 (and CI): install what is missing, build, run every test. Emulation tests
# (label emu) need root; in CI they run, never skip.
# It builds in the same tree with the same configuration as scripts/demo.sh, so after the demo
# only what changed is rebuilt. Warnings are errors when CI=true (or WERROR=1): CI builds from a
# clean clone, so it pays for no second configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
cd build
ctest --output-on-failure -j "${JOBS:-2}" "$@"
