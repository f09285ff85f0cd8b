#!/usr/bin/env bash
# README command 1: install what is missing, build, and run the main job on the bundled default
# scenario (DT-FM case 5, world-wide, GPT-3 XL on 64 V100s).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
./build/geotrain simulate scenarios/paper/dtfm_case5.yaml
