#!/usr/bin/env bash
# README command 2 (and CI): install what is missing, build, run every test. Emulation tests
# (label emu) need root; in CI they run, never skip.
# It builds in the same tree with the same configuration as scripts/demo.sh, so after the demo
# only what changed is rebuilt. Warnings are errors when CI=true (or WERROR=1): CI builds from a
# clean clone, so it pays for no second configuration.
# Then the sanitized side (scripts/sanitize.sh, its own tree build-sanitize/): the root-free,
# torch-free tests under ASan and UBSan, and 60 s of libFuzzer over scenario loading and Program
# building; a sanitizer report or a fuzz finding fails this script. SANITIZE=0 skips it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
(cd build && ctest --output-on-failure -j "${JOBS:-2}" "$@")
if [ "${SANITIZE:-1}" != "0" ]; then
  bash scripts/sanitize.sh
fi
