#!/usr/bin/env bash
# README command 1: install what is missing, build, and run the main job on the bundled default
# scenario (DT-FM case 5, world-wide, GPT-3 XL on 64 V100s).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# Only the geotrain binary: the LibTorch worker and the tests are built by scripts/test.sh (or
# `cmake --build build`), and `geotrain emulate` names the command when its worker is missing.
bash scripts/build.sh geotrain
./build/geotrain simulate scenarios/paper/dtfm_case5.yaml
